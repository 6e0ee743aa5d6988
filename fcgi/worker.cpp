// worker.cpp — the FCGX_Accept_r loop (after fcgi2's examples/threaded.c and echo-cpp.cpp).
//
// Each request: parameters from nginx's stock fastcgi_params (plus SCRIBE_REQUEST_START, nginx's
// $msec, for the deadline), the body read only through a valid CONTENT_LENGTH no larger than
// kMaxBodyBytes, Api::Handle inside an exception firewall, and a response that always starts
// with Status: and Content-Type:.
#include "worker.h"

#include <fcgiapp.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "api.h"
#include "committer.h"
#include "database.h"
#include "http.h"

namespace scribe::http {

namespace {

std::atomic<int> g_stop{0};
std::atomic<int> g_failed{0};  // a request thread could not accept: exit 1

std::string Param(FCGX_Request& req, const char* name) {
  const char* v = FCGX_GetParam(name, req.envp);
  return v ? v : "";
}

// Reads exactly `want` bytes of the request body; false when the stream ends first.
bool ReadExactly(FCGX_Request& req, std::size_t want, std::string& out) {
  out.resize(want);
  std::size_t got = 0;
  while (got < want) {
    int n = FCGX_GetStr(out.data() + got, static_cast<int>(want - got), req.in);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

// True once the request's input has been read to its end (at most 16 KB more is read here).
// Then nginx has sent everything and only waits for the answer, so the connection can be closed
// at once instead of with libfcgi's lingering shutdown (shutdown, then wait for the peer's EOF),
// which exists so that unread input cannot reset the connection under the answer. Skipping it
// frees the worker a round trip sooner: about +50 % GETs per second in tests/bench/wrk.
bool InputDrained(FCGX_Request& req) {
  char scratch[4096];
  for (int i = 0; i < 4; ++i)
    if (FCGX_GetStr(scratch, sizeof scratch, req.in) <= 0) return FCGX_HasSeenEOF(req.in) == EOF;
  return false;
}

// True when the other end of the connection has closed it (nginx gave up on the request).
bool PeerClosed(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Write(FCGX_Request& req, const Response& r) {
  std::string head = ResponseHead(r);
  FCGX_PutStr(head.data(), static_cast<int>(head.size()), req.out);
  if (!r.body.empty()) FCGX_PutStr(r.body.data(), static_cast<int>(r.body.size()), req.out);
}

}  // namespace

namespace {

// One request thread: its own connections and Api (SQLite connections are not shared between
// threads), the shared committer, and its own busy stamp for the watchdog.
void Serve(const WorkerOptions& options, Database& db, Committer* committer, std::mutex& accept_mu,
           std::atomic<std::int64_t>& busy_since_ms) {
  ApiOptions api_options{options.mount_prefix, options.deadline_ms, options.storage, options.sealed_attempts, committer};
  Api api(db, api_options);
  FCGX_Request req;
  if (FCGX_InitRequest(&req, options.listen_fd, FCGI_FAIL_ACCEPT_ON_INTR) != 0) return;
  while (!g_stop) {
    int accepted;
    {
      std::lock_guard<std::mutex> lock(accept_mu);  // one accept at a time, as fcgi2's threaded.c
      accepted = g_stop ? -1 : FCGX_Accept_r(&req);
    }
    if (accepted < 0) {
      if (g_stop) break;
      if (errno == EINTR) continue;
      std::fprintf(stderr, "scribe-fcgi[%d]: accept failed: %s\n", static_cast<int>(getpid()), std::strerror(errno));
      // The worker cannot serve: end it (status 1) and let the supervisor start another.
      g_failed = 1;
      g_stop = 1;
      kill(getpid(), SIGTERM);
      break;
    }
    busy_since_ms = MonotonicMs();
    Response response;
    try {
      Request request;
      request.method = Param(req, "REQUEST_METHOD");
      request.path = Param(req, "DOCUMENT_URI");
      request.content_type = Param(req, "CONTENT_TYPE");
      request.if_none_match = Param(req, "HTTP_IF_NONE_MATCH");
      request.authorization = Param(req, "HTTP_AUTHORIZATION");
      request.query = Param(req, "QUERY_STRING");
      request.remote_addr = Param(req, "REMOTE_ADDR");
      request.content_length = ParseContentLength(FCGX_GetParam("CONTENT_LENGTH", req.envp));
      request.read_body = [&req, &request](std::string& out) {
        return request.content_length && *request.content_length <= kMaxBodyBytes &&
               ReadExactly(req, *request.content_length, out);
      };
      request.start_ms = ParseMsec(FCGX_GetParam("SCRIBE_REQUEST_START", req.envp));
      request.client_gone = [fd = req.ipcFd] { return PeerClosed(fd); };
      response = request.path.empty() ? JsonError(400, "bad_request", "DOCUMENT_URI is missing")
                                      : api.Handle(request);
    } catch (...) {
      response = ErrorResponse(std::current_exception());
    }
    try {
      Write(req, response);
    } catch (...) {
      // Nothing sensible left to send; FCGX_Finish_r closes the request either way.
    }
    if (InputDrained(req)) FCGX_Detach(&req);  // detached: FCGX_Finish_r closes without lingering
    FCGX_Finish_r(&req);
    busy_since_ms = 0;
  }
  FCGX_Free(&req, 1);
}

void OnWake(int) {}

}  // namespace

int RunWorker(const WorkerOptions& options, WorkerSlot& slot) {
  // SIGTERM and SIGINT are taken by this (main) thread with sigwait; the request threads only
  // get SIGUSR1, which interrupts a blocked accept (no SA_RESTART) once stopping.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  struct sigaction wake {};
  wake.sa_handler = OnWake;
  sigemptyset(&wake.sa_mask);
  sigaction(SIGUSR1, &wake, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);

  const int threads = std::clamp(options.threads, 1, kMaxWorkerThreads);
  // glibc gives each new thread an arena of its own, reserving 64 MB of address space each:
  // under the worker's address-space limit (--memory-limit) sixteen threads exhaust it, and every
  // allocation falls back to its own mmap/munmap (87 % of a submit's time in the kernel, measured
  // with perf). Two arenas serve the request threads; the thread caches keep them uncontended.
  mallopt(M_ARENA_MAX, 2);
  std::unique_ptr<Committer> committer;
  std::vector<std::unique_ptr<Database>> dbs;
  try {
    if (options.submits) committer = std::make_unique<Committer>(options.db_path, options.synchronous, 256, options.store_urls);
    // The first thread's connections prepare every endpoint (a broken file stops the worker
    // here); the others prepare what their requests use, when they first use it.
    for (int i = 0; i < threads; ++i)
      dbs.push_back(std::make_unique<Database>(options.db_path, options.synchronous, /*prepare_all=*/i == 0, options.store_urls));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scribe-fcgi[%d]: %s\n", static_cast<int>(getpid()), e.what());
    return 2;
  }

  std::mutex accept_mu;
  std::vector<std::thread> serving;
  std::vector<std::atomic<bool>> exited(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i)
    serving.emplace_back([&, i] {
      Serve(options, *dbs[static_cast<std::size_t>(i)], committer.get(), accept_mu, slot.busy_since_ms[i]);
      exited[static_cast<std::size_t>(i)] = true;
    });

  int sig = 0;
  sigwait(&stop_signals, &sig);
  g_stop = 1;
  FCGX_ShutdownPending();
  // Each thread finishes its current request; one blocked in accept() is woken by SIGUSR1
  // (again every 50 ms, in case it was between its check and the accept).
  for (bool all = false; !all;) {
    all = true;
    for (int i = 0; i < threads; ++i)
      if (!exited[static_cast<std::size_t>(i)]) {
        all = false;
        pthread_kill(serving[static_cast<std::size_t>(i)].native_handle(), SIGUSR1);
      }
    if (!all) usleep(50 * 1000);
  }
  for (std::thread& t : serving) t.join();
  if (committer && committer->Stored() > 0) {
    // the COMMITs' times as bucket bounds (committer.h): where the slowest acknowledgements wait
    const MillisHistogram commits = committer->CommitTimes();
    std::fprintf(stderr,
                 "scribe-fcgi[%d]: stored %llu submissions in %llu transactions; COMMIT p50 <= %.3g ms, "
                 "p99 <= %.3g ms, slowest %.1f ms\n",
                 static_cast<int>(getpid()), static_cast<unsigned long long>(committer->Stored()),
                 static_cast<unsigned long long>(committer->Commits()), commits.Quantile(0.5), commits.Quantile(0.99),
                 commits.Slowest());
    // the WAL's fdatasyncs, when the syncer makes them (committer.h): an acknowledgement waits for one
    if (const MillisHistogram syncs = committer->SyncTimes(); syncs.Count() > 0)
      std::fprintf(stderr, "scribe-fcgi[%d]: %llu fdatasyncs of the WAL; p50 <= %.3g ms, p99 <= %.3g ms, slowest %.1f ms\n",
                   static_cast<int>(getpid()), static_cast<unsigned long long>(syncs.Count()), syncs.Quantile(0.5),
                   syncs.Quantile(0.99), syncs.Slowest());
    // what the writer adds to an acknowledged submit, and how much of that was the disk's: a
    // request's latency is at least its wait from COMMIT to fdatasync, so when more than 1 % of
    // them waited over 64 ms on the disk alone, no p99 under 64 ms was possible in this run
    const MillisHistogram acks = committer->AckWaits(), disk = committer->DiskWaits();
    std::fprintf(stderr, "scribe-fcgi[%d]: %llu acknowledgements; waited in the writer p99 <= %.3g ms, %llu over 64 ms",
                 static_cast<int>(getpid()), static_cast<unsigned long long>(acks.Count()), acks.Quantile(0.99),
                 static_cast<unsigned long long>(acks.Over(64)));
    if (disk.Count() > 0)
      std::fprintf(stderr, "; from COMMIT to fdatasync p99 <= %.3g ms, %llu over 64 ms", disk.Quantile(0.99),
                   static_cast<unsigned long long>(disk.Over(64)));
    std::fputc('\n', stderr);
  }
  committer.reset();  // stores what is queued (nothing: every waiter has returned)
  dbs.clear();
  return g_failed ? 1 : 0;
}

}  // namespace scribe::http
