// supervisor.cpp — forking, reaping, replacing and stopping workers (supervisor.h).
#include "supervisor.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace scribe::http {

std::int64_t MonotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

namespace {

struct Worker {
  pid_t pid = 0;               // 0 when the slot has no live process
  std::int64_t started_ms = 0;
  std::int64_t respawn_at_ms = 0;  // when an empty slot may be refilled
};

__attribute__((format(printf, 1, 2))) void Log(const char* fmt, ...) {
  char line[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  std::fprintf(stderr, "scribe-fcgi[%d]: %s\n", static_cast<int>(getpid()), line);
}

// The child side of fork: restore signals, limit memory, run the worker, never return.
[[noreturn]] void RunChild(const SupervisorOptions& options, pid_t supervisor, WorkerSlot& slot, int index,
                           const std::function<int(WorkerSlot&, int)>& worker_main) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != supervisor) _exit(0);  // the supervisor died before prctl took effect
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (options.memory_limit_mb > 0) {
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(options.memory_limit_mb) * 1024 * 1024;
    setrlimit(RLIMIT_AS, &limit);
  }
  slot.Clear();
  int status = 1;
  try {
    status = worker_main(slot, index);
  } catch (const std::exception& e) {
    Log("worker failed: %s", e.what());
  } catch (...) {
    Log("worker failed");
  }
  std::fflush(stderr);
  _exit(status);
}

}  // namespace

int Supervise(const SupervisorOptions& options, const std::function<int(WorkerSlot&, int)>& worker_main) {
  const int n = options.workers;
  void* shared = mmap(nullptr, sizeof(WorkerSlot) * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    Log("mmap failed: %s", std::strerror(errno));
    return 1;
  }
  auto* slots = static_cast<WorkerSlot*>(shared);
  for (int i = 0; i < n; ++i) new (&slots[i]) WorkerSlot();

  // The signals are taken synchronously with sigtimedwait. A no-op handler first, because a
  // shell starts background jobs with SIGINT ignored.
  sigset_t watched;
  sigemptyset(&watched);
  struct sigaction noop {};
  noop.sa_handler = [](int) {};
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) {
    sigaddset(&watched, sig);
    sigaction(sig, &noop, nullptr);
  }
  sigprocmask(SIG_BLOCK, &watched, nullptr);
  const pid_t self = getpid();

  std::vector<Worker> workers(n);
  auto spawn = [&](int i) {
    pid_t pid = fork();
    if (pid < 0) {
      Log("fork failed: %s; retrying in 1 s", std::strerror(errno));
      workers[i].respawn_at_ms = MonotonicMs() + 1000;
      return;
    }
    if (pid == 0) RunChild(options, self, slots[i], i, worker_main);
    workers[i] = Worker{pid, MonotonicMs(), 0};
  };
  for (int i = 0; i < n; ++i) spawn(i);
  Log("supervising %d workers", n);

  auto reap = [&](bool stopping) {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int i = 0; i < n; ++i) {
        if (workers[i].pid != pid) continue;
        workers[i].pid = 0;
        slots[i].Clear();
        if (stopping) break;
        if (WIFSIGNALED(status))
          Log("worker %d killed by signal %d; replacing it", static_cast<int>(pid), WTERMSIG(status));
        else
          Log("worker %d exited with status %d; replacing it", static_cast<int>(pid), WEXITSTATUS(status));
        bool crash_loop = MonotonicMs() - workers[i].started_ms < 1000;
        workers[i].respawn_at_ms = MonotonicMs() + (crash_loop ? 1000 : 0);
      }
    }
  };

  for (;;) {
    timespec tick{0, 250 * 1000 * 1000};
    siginfo_t info{};
    int sig = sigtimedwait(&watched, &info, &tick);
    if (sig == SIGTERM || sig == SIGINT) break;
    if (sig == SIGCHLD) reap(false);
    std::int64_t now = MonotonicMs();
    for (int i = 0; i < n; ++i) {
      if (workers[i].pid == 0 && now >= workers[i].respawn_at_ms) {
        spawn(i);
        continue;
      }
      std::int64_t busy_since = slots[i].OldestBusy();
      if (workers[i].pid > 0 && busy_since > 0 && now - busy_since > options.request_timeout.count()) {
        Log("worker %d has been on one request for %lld ms; killing it", static_cast<int>(workers[i].pid),
            static_cast<long long>(now - busy_since));
        kill(workers[i].pid, SIGKILL);
        slots[i].Clear();
      }
    }
  }

  Log("stopping %d workers", n);
  for (const Worker& w : workers)
    if (w.pid > 0) kill(w.pid, SIGTERM);
  const std::int64_t deadline = MonotonicMs() + options.grace.count();
  auto alive = [&] {
    for (const Worker& w : workers)
      if (w.pid > 0) return true;
    return false;
  };
  reap(true);
  while (alive() && MonotonicMs() < deadline) {
    timespec tick{0, 50 * 1000 * 1000};
    sigtimedwait(&watched, nullptr, &tick);
    reap(true);
  }
  for (const Worker& w : workers) {
    if (w.pid <= 0) continue;
    Log("worker %d did not stop in time; killing it", static_cast<int>(w.pid));
    kill(w.pid, SIGKILL);
    waitpid(w.pid, nullptr, 0);
  }
  munmap(shared, sizeof(WorkerSlot) * n);
  Log("stopped");
  return 0;
}

}  // namespace scribe::http
