// main.cpp — scribe-fcgi: the FastCGI program behind nginx for /scribe-trials.
//
//   scribe-fcgi --socket run/fcgi.sock --db data.db --corpus corpus/scripts --workers 4
//
// Before forking, the supervisor opens the database once: the extension migrates the schema,
// WAL is switched on and, with --corpus, the trials are (re)loaded; a bad corpus or database
// stops the program here with a message. It then creates the Unix socket (mode 0600: only this
// user, which nginx also runs as, may connect) and supervises the workers (supervisor.h).
// SIGTERM or SIGINT stops every worker and removes the socket.
//
// Options (environment in brackets):
//   --socket PATH            FastCGI Unix socket to create (required): submissions, and every
//                            route when there is no --read-socket
//   --read-socket PATH       a second socket for everything but submissions (health, listings,
//                            badges), served by its own workers: no grade can make them wait
//   --db PATH                SQLite database [SCRIBE_DB, default ./data.db]
//   --corpus DIR             load this corpus before serving [SCRIBE_CORPUS when set]
//   --sealed-corpus DIR      and the sealed trials kept outside the repository in DIR
//                            [SCRIBE_SEALED_CORPUS when set]
//   --sealed-attempts N      gradings of a sealed trial version per vendor and per client
//                            address, dry runs included; then 429 [SCRIBE_SEALED_ATTEMPTS, 3]
//   --workers N              worker processes on --socket [SCRIBE_WORKERS, default 1: one
//                            writer per database batches best; more isolate crashes]
//   --read-workers N         worker processes on --read-socket [SCRIBE_READ_WORKERS, default 2]
//   --submit-threads N       request threads in each worker on --socket [SCRIBE_SUBMIT_THREADS,
//                            default 32]: they grade in parallel and share the process's one
//                            writer, which commits what they queued in one transaction (group
//                            commit, committer.h); read workers have one thread
//   --prefix PATH            mount point of the routes (default /scribe-trials)
//   --request-timeout SECS   kill a worker stuck on one request this long (default 30)
//   --request-deadline SECS  a submission older than this (from nginx's SCRIBE_REQUEST_START)
//                            is neither graded nor stored [SCRIBE_REQUEST_DEADLINE_S, default 30;
//                            0 = none]
//   --memory-limit MB        address-space limit per worker, 0 = none (default 1024; 0 in an
//                            AddressSanitizer build)
//   --synchronous MODE       full: an acknowledged submission is on disk (default); normal:
//                            WAL's lighter fsync, survives a killed process, not power loss
//                            [SCRIBE_SYNCHRONOUS]
//   --pid-file PATH          write the supervisor's pid here
//   --store URL,URL,…        cluster mode (docs/scale-out.md): the replicated store's nodes
//                            (http://HOST:PORT of each `scribe-store serve -http`); submissions,
//                            grades, vendors and standings live there, and --db holds the corpus
//                            this grader grades against [SCRIBE_STORE]
//   --allow ADDRS            with a HOST:PORT socket: the addresses whose connections are
//                            accepted, comma-separated (libfcgi's FCGI_WEB_SERVER_ADDRS;
//                            default 127.0.0.1) [SCRIBE_FCGI_ALLOW]
//   --regrade                with --store, instead of serving: grade every note on the store
//                            that has no grade of this grader's version and corpus (loaded
//                            into --db), write the grades and refresh the standings there,
//                            print the report as JSON and exit (0 done, 1 failed; run again
//                            to go on). store_regrade.h; docs/scale-out.md, "Upgrading".
//
// A --socket or --read-socket of the form HOST:PORT listens on TCP instead of a Unix socket (a
// grader behind nginx on another machine); every other connection is refused by --allow.
#include <fcgiapp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

#include "database.h"
#include "store_regrade.h"
#include "supervisor.h"
#include "worker.h"

namespace {

struct Options {
  std::string socket_path;
  std::string read_socket_path;
  int read_workers = 2;
  int submit_threads = 32;
  std::string db_path;
  std::string corpus_dir;
  std::string sealed_dir;
  std::string pid_file;
  std::string allow;
  bool regrade = false;
  scribe::http::WorkerOptions worker;
  scribe::http::SupervisorOptions supervisor;
};

// An AddressSanitizer build (build-asan) reserves terabytes of address space for its shadow
// memory, which no RLIMIT_AS allows: its workers run without the address-space cap.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

const char* EnvOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

[[noreturn]] void Usage(const char* problem) {
  std::fprintf(stderr,
               "scribe-fcgi: %s\n"
               "usage: scribe-fcgi --socket PATH [--read-socket PATH] [--db PATH] [--corpus DIR] [--workers N]\n"
               "                   [--read-workers N] [--submit-threads N] [--prefix PATH] [--request-timeout SECS]\n"
               "                   [--request-deadline SECS] [--memory-limit MB] [--synchronous full|normal]\n"
               "                   [--pid-file PATH] [--store URL,URL,...] [--allow ADDRS]\n"
               "       scribe-fcgi --store URL,URL,... --regrade [--db PATH] [--corpus DIR] [--sealed-corpus DIR]\n",
               problem);
  std::exit(64);
}

long Number(const char* flag, const char* text, long min, long max) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || !*text || *end || v < min || v > max)
    Usage((std::string(flag) + " needs a number from " + std::to_string(min) + " to " + std::to_string(max)).c_str());
  return v;
}

// "127.0.0.1:9301": a TCP address (libfcgi's form), not a socket path.
bool IsTcp(const std::string& path) {
  std::size_t colon = path.rfind(':');
  if (colon == std::string::npos || colon + 1 == path.size() || path.find('/') != std::string::npos) return false;
  for (std::size_t i = colon + 1; i < path.size(); ++i)
    if (path[i] < '0' || path[i] > '9') return false;
  return true;
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  o.db_path = EnvOr("SCRIBE_DB", "./data.db");
  o.corpus_dir = EnvOr("SCRIBE_CORPUS", "");
  o.sealed_dir = EnvOr("SCRIBE_SEALED_CORPUS", "");
  o.worker.sealed_attempts = static_cast<int>(Number("SCRIBE_SEALED_ATTEMPTS", EnvOr("SCRIBE_SEALED_ATTEMPTS", "3"), 1, 1000));
  o.supervisor.workers = static_cast<int>(Number("SCRIBE_WORKERS", EnvOr("SCRIBE_WORKERS", "1"), 1, 256));
  o.supervisor.memory_limit_mb = kSanitized ? 0 : 1024;
  o.worker.synchronous = EnvOr("SCRIBE_SYNCHRONOUS", "full");
  o.read_workers = static_cast<int>(Number("SCRIBE_READ_WORKERS", EnvOr("SCRIBE_READ_WORKERS", "2"), 1, 256));
  o.submit_threads = static_cast<int>(
      Number("SCRIBE_SUBMIT_THREADS", EnvOr("SCRIBE_SUBMIT_THREADS", "32"), 1, scribe::http::kMaxWorkerThreads));
  o.worker.deadline_ms = Number("SCRIBE_REQUEST_DEADLINE_S", EnvOr("SCRIBE_REQUEST_DEADLINE_S", "30"), 0, 86400) * 1000;
  std::string store = EnvOr("SCRIBE_STORE", "");
  o.allow = EnvOr("SCRIBE_FCGI_ALLOW", "127.0.0.1");
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") Usage("the FastCGI program of scribe-trials");
    if (flag == "--regrade") {
      o.regrade = true;
      continue;
    }
    if (i + 1 >= argc) Usage((flag + " needs a value").c_str());
    const char* value = argv[++i];
    if (flag == "--socket") o.socket_path = value;
    else if (flag == "--read-socket") o.read_socket_path = value;
    else if (flag == "--read-workers") o.read_workers = static_cast<int>(Number("--read-workers", value, 1, 256));
    else if (flag == "--submit-threads")
      o.submit_threads = static_cast<int>(Number("--submit-threads", value, 1, scribe::http::kMaxWorkerThreads));
    else if (flag == "--request-deadline") o.worker.deadline_ms = Number("--request-deadline", value, 0, 86400) * 1000;
    else if (flag == "--db") o.db_path = value;
    else if (flag == "--corpus") o.corpus_dir = value;
    else if (flag == "--sealed-corpus") o.sealed_dir = value;
    else if (flag == "--sealed-attempts") o.worker.sealed_attempts = static_cast<int>(Number("--sealed-attempts", value, 1, 1000));
    else if (flag == "--workers") o.supervisor.workers = static_cast<int>(Number("--workers", value, 1, 256));
    else if (flag == "--prefix") o.worker.mount_prefix = value;
    else if (flag == "--request-timeout")
      o.supervisor.request_timeout = std::chrono::seconds(Number("--request-timeout", value, 1, 86400));
    else if (flag == "--memory-limit") o.supervisor.memory_limit_mb = static_cast<std::size_t>(Number("--memory-limit", value, 0, 1 << 20));
    else if (flag == "--pid-file") o.pid_file = value;
    else if (flag == "--synchronous") o.worker.synchronous = value;
    else if (flag == "--store") store = value;
    else if (flag == "--allow") o.allow = value;
    else Usage(("unknown option " + flag).c_str());
  }
  if (o.regrade && store.empty()) Usage("--regrade needs --store (one machine regrades at every start)");
  if (o.socket_path.empty() && !o.regrade) Usage("--socket is required");
  if (o.worker.synchronous != "full" && o.worker.synchronous != "normal") Usage("--synchronous is full or normal");
  if ((!IsTcp(o.socket_path) && o.socket_path.size() >= 100) || (!IsTcp(o.read_socket_path) && o.read_socket_path.size() >= 100))
    Usage("socket path is too long for a Unix socket");
  if (!store.empty()) {
    try {
      o.worker.store_urls = scribe::http::ParseStoreUrls(store);
    } catch (const std::invalid_argument& e) {
      Usage(e.what());
    }
  }
  if (!o.read_socket_path.empty() && o.read_socket_path == o.socket_path)
    Usage("--read-socket must differ from --socket");
  o.worker.db_path = o.db_path;
  return o;
}

// Creates the Unix socket at `path` (mode 0600: only this user, which nginx runs as, may
// connect), replacing a stale one; -1 with a message when it cannot.
// A HOST:PORT path listens on TCP, accepting only the --allow addresses.
int Listen(const std::string& path) {
  const bool tcp = IsTcp(path);
  if (!tcp) unlink(path.c_str());  // a stale socket from a killed run
  mode_t old_mask = umask(0077);
  int fd = FCGX_OpenSocket(path.c_str(), 1024);
  umask(old_mask);
  if (fd < 0) {
    std::fprintf(stderr, "scribe-fcgi: cannot listen on %s: %s\n", path.c_str(), std::strerror(errno));
    return -1;
  }
  std::fprintf(stderr, "scribe-fcgi: listening on %s\n", path.c_str());
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  try {
    int trials = scribe::http::PrepareDatabase(o.db_path, o.corpus_dir, o.sealed_dir);
    std::fprintf(stderr, "scribe-fcgi: %s ready with %d trials%s%s%s%s\n", o.db_path.c_str(), trials,
                 o.corpus_dir.empty() ? "" : " loaded from ", o.corpus_dir.c_str(),
                 o.sealed_dir.empty() ? "" : " and sealed ones from ", o.sealed_dir.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scribe-fcgi: %s\n", e.what());
    return 1;
  }

  if (o.regrade) {
    try {
      scribe::http::StoreClient store(o.worker.store_urls);
      nlohmann::json report = scribe::http::RegradeOnStore(o.db_path, store, {});
      std::printf("%s\n", report.dump().c_str());
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scribe-fcgi: regrade on the store: %s\n", e.what());
      return 1;
    }
  }

  // libfcgi checks a TCP connection's peer against this list (read by FCGX_Init)
  setenv("FCGI_WEB_SERVER_ADDRS", o.allow.c_str(), 1);
  if (!o.worker.store_urls.empty()) {
    std::string list;
    for (const std::string& u : o.worker.store_urls) list += (list.empty() ? "" : ", ") + u;
    std::fprintf(stderr, "scribe-fcgi: cluster mode: the record is on the store at %s\n", list.c_str());
    // At start, two reads of the store (2 s each; a store that does not answer does not stop the
    // start: /health reports it): whether the store's standings count what this grader grades
    // (store_regrade.h), and the sealed commitments' lock times, so that every grader's trial
    // cards show the store's (database.h, AdoptStoreCommitments).
    scribe::http::StoreClient store(o.worker.store_urls);
    try {
      scribe::http::Database db(o.db_path, "full", /*prepare_all=*/false);
      std::string line = scribe::http::CompareVersions(scribe::http::GraderVersions(db),
                                                       scribe::http::StoreVersions(store, 2000));
      std::fprintf(stderr, "scribe-fcgi: %s\n", line.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scribe-fcgi: warning: versions not compared with the store's: %s\n", e.what());
    }
    try {
      scribe::http::AdoptStoreCommitments(o.db_path, store, 2000);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scribe-fcgi: warning: the trial cards show this grader's own lock times: %s\n", e.what());
    }
  }
  if (FCGX_Init() != 0) {
    std::fprintf(stderr, "scribe-fcgi: FCGX_Init failed\n");
    return 1;
  }
  int fd = Listen(o.socket_path);
  int read_fd = o.read_socket_path.empty() ? -1 : Listen(o.read_socket_path);
  if (fd < 0 || (!o.read_socket_path.empty() && read_fd < 0)) return 1;
  // Shared by every worker: the latest commit outcomes, for /health (api.h).
  void* shared =
      mmap(nullptr, sizeof(scribe::http::StorageHealth), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::fprintf(stderr, "scribe-fcgi: mmap failed: %s\n", std::strerror(errno));
    return 1;
  }
  o.worker.storage = new (shared) scribe::http::StorageHealth();
  if (!o.pid_file.empty()) std::ofstream(o.pid_file) << getpid() << '\n';
  const int submit_workers = o.supervisor.workers;
  if (read_fd >= 0) o.supervisor.workers += o.read_workers;

  int status = scribe::http::Supervise(o.supervisor, [&](scribe::http::WorkerSlot& slot, int index) {
    scribe::http::WorkerOptions w = o.worker;
    w.listen_fd = index < submit_workers ? fd : read_fd;
    w.threads = index < submit_workers ? o.submit_threads : 1;
    w.submits = index < submit_workers;
    if (read_fd >= 0) close(index < submit_workers ? read_fd : fd);  // each worker keeps only its own socket
    return scribe::http::RunWorker(w, slot);
  });
  close(fd);
  if (!IsTcp(o.socket_path)) unlink(o.socket_path.c_str());
  if (read_fd >= 0) {
    close(read_fd);
    if (!IsTcp(o.read_socket_path)) unlink(o.read_socket_path.c_str());
  }
  if (!o.pid_file.empty()) unlink(o.pid_file.c_str());
  return status;
}
