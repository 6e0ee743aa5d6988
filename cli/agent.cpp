// agent.cpp — process groups, pipes and the poll loop of agent.h.
#include "agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "http_client.h"  // FormatSeconds

namespace scribe::run {
namespace {

std::int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// A file descriptor closed with its owner.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Close();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  ~Fd() { Close(); }
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A pipe whose parent end is non-blocking; both ends close-on-exec (posix_spawn's dup2 clears
// it on the child's 0, 1 and 2).
void MakePipe(Fd& read_end, Fd& write_end) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  read_end = Fd(p[0]);
  write_end = Fd(p[1]);
}

void NonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;  // also the process group id
  Fd in, out, err;
  std::size_t written = 0;
  std::int64_t started_ms = 0, deadline_ms = 0;
  bool exited = false;
  AgentOutcome outcome;
};

// Starts one agent in a new process group; on failure the outcome says why and pid stays -1.
std::unique_ptr<Running> Start(const AgentJob& job, std::size_t index) {
  auto r = std::make_unique<Running>();
  r->index = index;
  r->started_ms = NowMs();
  r->deadline_ms = job.timeout_ms > 0 ? r->started_ms + job.timeout_ms : 0;
  Fd in_read, out_write, err_write;
  MakePipe(in_read, r->in);
  MakePipe(r->out, out_write);
  MakePipe(r->err, err_write);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                             const_cast<char*>(job.command.c_str()), nullptr};
  std::vector<char*> envp;
  for (const std::string& e : job.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    r->outcome.spawn_error = std::string("cannot start /bin/sh: ") + std::strerror(rc);
    r->exited = true;
    r->in.Close();
    r->out.Close();
    r->err.Close();
    return r;
  }
  r->pid = pid;
  NonBlocking(r->in.get());
  NonBlocking(r->out.get());
  NonBlocking(r->err.get());
  if (job.input.empty()) r->in.Close();
  return r;
}

void KillGroup(const Running& r) {
  if (r.pid > 0) kill(-r.pid, SIGKILL);
}

// Reads what is available; closes the end at EOF. Returns the bytes read.
void Drain(Fd& fd, std::string& into, std::size_t cap, bool keep_tail, bool& over_cap) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
      if (into.size() > cap) {
        if (keep_tail) {
          into.erase(0, into.size() - cap);
        } else {
          into.resize(cap);
          over_cap = true;
          return;
        }
      }
      continue;
    }
    if (n == 0) fd.Close();
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) fd.Close();
    return;
  }
}

}  // namespace

std::string AgentOutcome::Failure(std::int64_t timeout_ms) const {
  if (!spawn_error.empty()) return spawn_error;
  if (timed_out) return "timed out after " + FormatSeconds(timeout_ms) + "; its process group was killed";
  if (output_too_large)
    return "wrote more than " + FormatBytes(kMaxOutputBytes) + " to stdout; its process group was killed";
  if (signal != 0) return std::string("killed by signal ") + std::to_string(signal) + " (" + sigabbrev_np(signal) + ")";
  if (exit_status != 0) return "exited with status " + std::to_string(exit_status);
  return {};
}

bool RunAgents(const std::vector<AgentJob>& jobs, int parallel,
               const std::function<void(std::size_t, AgentOutcome)>& on_done, const std::function<void()>& on_tick,
               volatile std::sig_atomic_t* stop) {
  // A write to an agent that closed its stdin is EPIPE here, not a SIGPIPE for this process
  // (the agents themselves get the default disposition back).
  struct IgnorePipe {
    struct sigaction old {};
    IgnorePipe() {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      sigaction(SIGPIPE, &ignore, &old);
    }
    ~IgnorePipe() { sigaction(SIGPIPE, &old, nullptr); }
  } ignore_pipe;
  std::vector<std::unique_ptr<Running>> running;
  std::size_t next = 0;
  auto finish = [&](std::unique_ptr<Running>& r) {
    r->outcome.stderr_tail = r->outcome.stderr_tail.substr(
        r->outcome.stderr_tail.size() > kStderrTailBytes ? r->outcome.stderr_tail.size() - kStderrTailBytes : 0);
    on_done(r->index, std::move(r->outcome));
    r.reset();
  };
  while (next < jobs.size() || !running.empty()) {
    if (stop && *stop) {
      for (auto& r : running) {
        KillGroup(*r);
        if (r->pid > 0 && !r->exited) waitpid(r->pid, nullptr, 0);
      }
      return false;
    }
    while (static_cast<int>(running.size()) < parallel && next < jobs.size()) {
      running.push_back(Start(jobs[next], next));
      ++next;
    }

    std::vector<pollfd> fds;
    std::vector<std::pair<Running*, int>> owners;  // which job and which stream (0 in, 1 out, 2 err)
    std::int64_t now = NowMs();
    std::int64_t wait_ms = 100;
    for (auto& r : running) {
      if (r->in.open()) fds.push_back({r->in.get(), POLLOUT, 0}), owners.emplace_back(r.get(), 0);
      if (r->out.open()) fds.push_back({r->out.get(), POLLIN, 0}), owners.emplace_back(r.get(), 1);
      if (r->err.open()) fds.push_back({r->err.get(), POLLIN, 0}), owners.emplace_back(r.get(), 2);
      if (r->deadline_ms) wait_ms = std::min(wait_ms, std::max<std::int64_t>(0, r->deadline_ms - now));
    }
    if (poll(fds.data(), fds.size(), static_cast<int>(wait_ms)) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto [r, stream] = owners[i];
      if (stream == 0) {
        const std::string& input = jobs[r->index].input;
        ssize_t n = write(r->in.get(), input.data() + r->written, input.size() - r->written);
        if (n > 0) r->written += static_cast<std::size_t>(n);
        // Written, or the agent closed its stdin (EPIPE: it need not read everything).
        if (r->written == input.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) r->in.Close();
      } else if (stream == 1) {
        Drain(r->out, r->outcome.output, kMaxOutputBytes, false, r->outcome.output_too_large);
        if (r->outcome.output_too_large) KillGroup(*r);
      } else {
        bool unused = false;
        Drain(r->err, r->outcome.stderr_tail, 4 * kStderrTailBytes, true, unused);
      }
    }

    now = NowMs();
    for (auto& r : running) {
      if (!r->exited && r->pid > 0) {
        siginfo_t info{};
        // WNOWAIT: the group is killed before the leader is reaped, so its id is not reused.
        if (waitid(P_PID, static_cast<id_t>(r->pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == r->pid) {
          r->exited = true;
          r->outcome.duration_ms = now - r->started_ms;
          KillGroup(*r);  // whatever it left running
          int status = 0;
          waitpid(r->pid, &status, 0);
          if (WIFEXITED(status)) r->outcome.exit_status = WEXITSTATUS(status);
          if (WIFSIGNALED(status)) r->outcome.signal = WTERMSIG(status);
        } else if (r->deadline_ms && now >= r->deadline_ms) {
          r->outcome.timed_out = true;
          KillGroup(*r);
        }
      }
      // Done once exited and both outputs are at their end — or, if something outside the group
      // still holds them, once the deadline has passed.
      if (r->exited && ((!r->out.open() && !r->err.open()) || (r->deadline_ms && now >= r->deadline_ms) || r->pid < 0 ||
                        r->outcome.output_too_large)) {
        finish(r);
      }
    }
    std::erase_if(running, [](const std::unique_ptr<Running>& r) { return !r; });
    if (on_tick) on_tick();
  }
  return true;
}

}  // namespace scribe::run
