// worker.h — one FastCGI worker process: a database, the API and the FCGX_Accept_r loop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api.h"
#include "supervisor.h"

namespace scribe::http {

struct WorkerOptions {
  int listen_fd = 0;                       // the shared FastCGI socket
  std::string db_path;
  std::string synchronous = "full";        // PRAGMA synchronous of the write connection
  std::string mount_prefix = "/scribe-trials";
  std::int64_t deadline_ms = 0;            // ApiOptions::deadline_ms
  int sealed_attempts = 3;                 // ApiOptions::sealed_attempts
  int threads = 1;                         // request threads (1 … kMaxWorkerThreads)
  bool submits = true;                     // serves submissions: has the process's Committer
  StorageHealth* storage = nullptr;        // shared by every worker (main.cpp)
  // Cluster mode: the replicated store's nodes (store_client.h); the record lives there and
  // db_path holds the corpus this grader grades against. Empty: the record is db_path.
  std::vector<std::string> store_urls;
};

// Serves requests on `threads` request threads until SIGTERM/SIGINT (each finishes its current
// request first). Each thread has its own connections; submissions are stored by the process's
// one Committer (group commit, committer.h). Each request runs inside an exception firewall;
// its start time is published in its thread's entry of `slot` for the watchdog. Returns the
// process exit status: 0 after a clean stop, 1 when accepting failed, 2 when the database cannot
// be opened.
int RunWorker(const WorkerOptions& options, WorkerSlot& slot);

}  // namespace scribe::http
