// agent_test.cpp — the agent runner (cli/agent.h): exit status, stderr tail, stdin, timeouts
// killing the process group, the output cap, parallel jobs and stopping.
#include "agent.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

namespace scribe::run {
namespace {

std::map<std::size_t, AgentOutcome> RunAll(const std::vector<AgentJob>& jobs, int parallel,
                                           std::vector<std::size_t>* order = nullptr) {
  std::map<std::size_t, AgentOutcome> out;
  EXPECT_TRUE(RunAgents(
      jobs, parallel,
      [&](std::size_t i, AgentOutcome o) {
        if (order) order->push_back(i);
        out[i] = std::move(o);
      },
      nullptr, nullptr));
  return out;
}

AgentJob Job(std::string command, std::int64_t timeout_ms = 10000, std::string input = "") {
  return {std::move(command), std::move(input), {"PATH=/usr/bin:/bin"}, timeout_ms};
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  return !text.empty() && text[text.rfind(')') + 2] != 'Z';
}

TEST(Agent, ExitStatusOutputAndStderrTail) {
  auto out = RunAll({Job("printf 'a note'; echo one >&2; echo two >&2; exit 4")}, 1);
  EXPECT_EQ(out[0].output, "a note");
  EXPECT_EQ(out[0].stderr_tail, "one\ntwo\n");
  EXPECT_EQ(out[0].exit_status, 4);
  EXPECT_EQ(out[0].signal, 0);
  EXPECT_FALSE(out[0].timed_out);
  EXPECT_EQ(out[0].Failure(10000), "exited with status 4");
}

TEST(Agent, ASuccessIsNoFailure) {
  auto out = RunAll({Job("printf ok")}, 1);
  EXPECT_EQ(out[0].exit_status, 0);
  EXPECT_EQ(out[0].Failure(10000), "");
}

TEST(Agent, StdinCarriesTheWholePromptWhileStdoutIsRead) {
  std::string prompt(3u << 20, 'x');  // far more than a pipe holds: written and read concurrently
  for (std::size_t i = 0; i < prompt.size(); i += 4096) prompt[i] = '\n';
  auto out = RunAll({Job("cat", 10000, prompt)}, 1);
  EXPECT_EQ(out[0].exit_status, 0);
  EXPECT_EQ(out[0].output, prompt);
}

TEST(Agent, AnAgentThatClosesItsStdinEarlyStillSucceeds) {
  auto out = RunAll({Job("exec 0<&-; printf done", 10000, std::string(1u << 20, 'p'))}, 1);
  EXPECT_EQ(out[0].output, "done");
  EXPECT_EQ(out[0].Failure(10000), "");
}

TEST(Agent, EnvironmentIsTheJobs) {
  AgentJob job = Job("printf '%s,%s' \"$SCRIBE_TRIAL_ID\" \"${HOME:-unset}\"");
  job.env.push_back("SCRIBE_TRIAL_ID=03-x");
  auto out = RunAll({job}, 1);
  EXPECT_EQ(out[0].output, "03-x,unset");
}

TEST(Agent, TimeoutKillsTheWholeProcessGroup) {
  char path[] = "/tmp/scribe-agent-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  auto start = std::chrono::steady_clock::now();
  auto out = RunAll({Job(std::string("sleep 30 & echo $! > ") + path + "; echo waiting >&2; wait", 300)}, 1);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(out[0].timed_out);
  EXPECT_EQ(out[0].signal, SIGKILL);
  EXPECT_EQ(out[0].exit_status, -1);
  EXPECT_EQ(out[0].stderr_tail, "waiting\n");
  EXPECT_EQ(out[0].Failure(300), "timed out after 0.3 s; its process group was killed");
  EXPECT_GE(out[0].duration_ms, 300);
  EXPECT_LT(took, std::chrono::seconds(5));
  std::ifstream in(path);
  pid_t child = 0;
  in >> child;
  unlink(path);
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100 && Alive(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(Alive(child)) << "the agent's child outlived the timeout";
}

TEST(Agent, OutputOverTheCapFailsTheCase) {
  auto out = RunAll({Job("head -c 5000000 /dev/zero; sleep 30")}, 1);
  EXPECT_TRUE(out[0].output_too_large);
  EXPECT_EQ(out[0].output.size(), kMaxOutputBytes);
  EXPECT_EQ(out[0].Failure(10000), "wrote more than 4 MiB to stdout; its process group was killed");
}

TEST(Agent, StderrKeepsItsTail) {
  auto out = RunAll({Job("head -c 10000 /dev/zero | tr '\\0' a >&2; echo END >&2; exit 1")}, 1);
  ASSERT_EQ(out[0].stderr_tail.size(), kStderrTailBytes);
  EXPECT_EQ(out[0].stderr_tail.substr(kStderrTailBytes - 5), "aEND\n");
}

TEST(Agent, ParallelJobsFinishInTheirOwnTimeUnderTheirIndex) {
  std::vector<std::size_t> order;
  auto start = std::chrono::steady_clock::now();
  auto out = RunAll({Job("sleep 0.6; printf 0"), Job("sleep 0.3; printf 1"), Job("printf 2")}, 3, &order);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 1, 0}));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(out[i].output, std::to_string(i));
  EXPECT_LT(took, std::chrono::milliseconds(1500));  // together, not one after the other (1.5 s)
}

TEST(Agent, AtMostParallelAtOnce) {
  std::vector<std::size_t> order;
  auto out = RunAll({Job("sleep 0.4; printf 0"), Job("printf 1"), Job("printf 2")}, 1, &order);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Agent, StopKillsEveryRunningAgent) {
  volatile std::sig_atomic_t stop = 0;
  int ticks = 0;
  std::size_t done = 0;
  bool finished = RunAgents(
      {Job("sleep 30"), Job("sleep 30")}, 2, [&](std::size_t, AgentOutcome) { ++done; },
      [&] {
        if (++ticks == 3) stop = 1;
      },
      &stop);
  EXPECT_FALSE(finished);
  EXPECT_EQ(done, 0u);
}

}  // namespace
}  // namespace scribe::run
