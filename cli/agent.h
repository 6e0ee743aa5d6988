// agent.h — running the scribe under test: any command, one process group per case, bounded.
//
//   std::vector<AgentJob> jobs = {{"my-scribe --json", prompt, {"SCRIBE_TRIAL_ID=03-…"}, 60000}};
//   RunAgents(jobs, /*parallel=*/4, [&](size_t i, AgentOutcome o) { … }, [&] { ShowProgress(); }, &stop);
//
// Each job runs `/bin/sh -c COMMAND` in a process group of its own (posix_spawn with
// POSIX_SPAWN_SETPGROUP), with the prompt written to its stdin (then closed), its stdout
// collected (at most kMaxOutputBytes) and the tail of its stderr kept. One thread multiplexes
// every running agent with poll(): a job past its timeout has its whole process group killed
// (SIGKILL), and when an agent exits whatever it left running in its group is killed too, so
// nothing an agent started outlives its case. Jobs start in index order, at most `parallel` at
// a time; completions are reported as they happen. While it runs, SIGPIPE is ignored (a write
// to an agent that closed its stdin is an error, not a signal).
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace scribe::run {

// The most an agent may write to stdout; past it the case fails (the server grades at most
// 200 000 characters anyway).
constexpr std::size_t kMaxOutputBytes = 4u << 20;
// How much of an agent's stderr a failed case keeps (its end, where the error usually is).
constexpr std::size_t kStderrTailBytes = 2048;

struct AgentJob {
  std::string command;           // run as /bin/sh -c COMMAND
  std::string input;             // written to stdin, which is then closed
  std::vector<std::string> env;  // the whole environment, NAME=VALUE
  std::int64_t timeout_ms = 0;   // 0: none
};

struct AgentOutcome {
  std::string output;             // stdout as written (at most kMaxOutputBytes)
  std::string stderr_tail;        // the last kStderrTailBytes of stderr
  int exit_status = -1;           // exit code when the agent exited, else -1
  int signal = 0;                 // the signal that ended it, when one did
  bool timed_out = false;         // killed at its timeout
  bool output_too_large = false;  // killed for writing more than kMaxOutputBytes
  std::string spawn_error;        // the agent could not be started (posix_spawn's error)
  std::int64_t duration_ms = 0;   // from start to exit
  // Why the case failed in words ("timed out after 2 s; its process group was killed",
  // "exited with status 3"), or "" when the agent exited 0 within its time.
  std::string Failure(std::int64_t timeout_ms) const;
};

// Runs `jobs`, at most `parallel` at once; on_done(index, outcome) as each finishes, on_tick()
// at least every 100 ms. When *stop becomes non-zero (a signal handler), every running group
// is killed and RunAgents returns false without starting more; true when all jobs finished.
bool RunAgents(const std::vector<AgentJob>& jobs, int parallel,
               const std::function<void(std::size_t, AgentOutcome)>& on_done, const std::function<void()>& on_tick,
               volatile std::sig_atomic_t* stop);

}  // namespace scribe::run
