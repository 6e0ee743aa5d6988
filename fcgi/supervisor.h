// supervisor.h — prefork process supervision for scribe-fcgi.
//
// The supervisor forks `workers` processes that share the listening socket, each running
// `worker_main` with its own slot in a small shared table. It then waits for signals:
//
//   SIGCHLD          a worker died: log how, and fork a replacement (after 1 s if the dead one
//                    lived less than a second, so a crash loop does not spin)
//   SIGTERM, SIGINT  stop: SIGTERM to every worker (each finishes its current request), SIGKILL
//                    after the grace period, then return 0
//   (every 250 ms)   the watchdog: a worker busy with one request for longer than
//                    request_timeout is killed with SIGKILL, and so replaced
//
// Workers get PR_SET_PDEATHSIG, so they also go away if the supervisor is killed outright.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace scribe::http {

// Request threads of one worker process at most.
constexpr int kMaxWorkerThreads = 64;

// One worker's entry in the table shared with the supervisor (anonymous shared memory): per
// request thread, CLOCK_MONOTONIC ms when its current request began, 0 when idle.
struct WorkerSlot {
  std::atomic<std::int64_t> busy_since_ms[kMaxWorkerThreads] = {};
  // The start of the oldest request in progress; 0 when every thread is idle.
  std::int64_t OldestBusy() const {
    std::int64_t oldest = 0;
    for (const auto& b : busy_since_ms)
      if (std::int64_t t = b.load(); t > 0 && (oldest == 0 || t < oldest)) oldest = t;
    return oldest;
  }
  void Clear() {
    for (auto& b : busy_since_ms) b = 0;
  }
};

struct SupervisorOptions {
  int workers = 4;
  std::chrono::milliseconds request_timeout{std::chrono::seconds(30)};
  std::chrono::milliseconds grace{std::chrono::seconds(5)};
  std::size_t memory_limit_mb = 0;  // RLIMIT_AS per worker; 0 leaves it unlimited
};

// CLOCK_MONOTONIC in milliseconds (comparable across processes).
std::int64_t MonotonicMs();

// Runs the supervisor until SIGTERM or SIGINT. worker_main runs in each child with its slot and
// its index (0 … workers-1, the same for a replacement); its return value is the child's exit
// status. Returns the supervisor's exit status.
int Supervise(const SupervisorOptions& options, const std::function<int(WorkerSlot&, int index)>& worker_main);

}  // namespace scribe::http
