// guards_test.cpp — the pure pieces of live validation: circuit breaker, token bucket,
// approximateTerm parsing (current and old shapes), name keys, timestamps, configuration.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include "drug_cache_store.h"
#include "rxnav.h"

namespace scribe {
namespace {

using nlohmann::json;

json Fixture(const std::string& path) {
  std::ifstream in("tests/fixtures/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

TEST(CircuitBreaker, OpensAfterThresholdFailuresAndProbesAfterCooldown) {
  CircuitBreaker b({.failure_threshold = 3, .timeout_threshold = 1, .cooldown_ms = 1000});
  EXPECT_TRUE(b.Allow(0));
  b.RecordFailure(0, false, "http 500");
  b.RecordFailure(1, false, "http 500");
  EXPECT_FALSE(b.open());
  EXPECT_TRUE(b.Allow(2));
  b.RecordFailure(2, false, "connection refused");
  EXPECT_TRUE(b.open());
  EXPECT_EQ(b.Describe(), "circuit open after 3 failures (last: connection refused)");
  EXPECT_FALSE(b.Allow(500));
  EXPECT_FALSE(b.Allow(1001));
  EXPECT_TRUE(b.Allow(1002));   // cooled down: one probe
  EXPECT_FALSE(b.Allow(1003));  // ... and only one
  b.RecordFailure(1004, false, "http 503");  // probe failed: open again
  EXPECT_FALSE(b.Allow(1500));
  EXPECT_EQ(b.Describe(), "circuit open after 4 failures (last: http 503)");
  EXPECT_TRUE(b.Allow(2005));
  b.RecordSuccess();  // probe succeeded: closed
  EXPECT_FALSE(b.open());
  EXPECT_TRUE(b.Allow(2006));
  EXPECT_TRUE(b.Allow(2007));
}

TEST(CircuitBreaker, ATimeoutOpensAtOnceBecauseItAlreadyCostTheWholeBudget) {
  CircuitBreaker b({.failure_threshold = 3, .timeout_threshold = 1, .cooldown_ms = 60000});
  b.RecordFailure(0, true, "timeout after 5 s");
  EXPECT_TRUE(b.open());
  EXPECT_EQ(b.Describe(), "circuit open after 1 failure (last: timeout after 5 s)");
  CircuitBreaker patient({.failure_threshold = 3, .timeout_threshold = 2, .cooldown_ms = 60000});
  patient.RecordFailure(0, true, "timeout after 5 s");
  EXPECT_FALSE(patient.open());
  patient.RecordSuccess();
  patient.RecordFailure(1, true, "timeout after 5 s");
  EXPECT_FALSE(patient.open()) << "a success in between resets the count";
  patient.RecordFailure(2, true, "timeout after 5 s");
  EXPECT_TRUE(patient.open());
}

TEST(RateLimiter, SpacesRequestsAtTheRate) {
  int64_t now = 0;
  std::vector<int64_t> starts;
  RateLimiter limiter(20, 1, [&] { return now; }, [&](int64_t us) { now += us; });
  for (int i = 0; i < 41; ++i) {
    limiter.Acquire();
    starts.push_back(now);
  }
  EXPECT_EQ(starts.front(), 0);
  for (size_t i = 1; i < starts.size(); ++i) EXPECT_GE(starts[i] - starts[i - 1], 50'000) << i;
  // no window of one second holds more than 20 request starts
  for (size_t i = 0; i + 20 < starts.size(); ++i) EXPECT_GE(starts[i + 20] - starts[i], 1'000'000) << i;
}

TEST(RateLimiter, BurstIsSpentThenRefilled) {
  int64_t now = 0;
  RateLimiter limiter(4, 10, [&] { return now; }, [&](int64_t us) { now += us; });
  for (int i = 0; i < 10; ++i) EXPECT_EQ(limiter.Acquire(), 0) << i;
  EXPECT_EQ(limiter.Acquire(), 250'000);
  now += 10'000'000;  // idle: the bucket refills to its burst, not beyond
  for (int i = 0; i < 10; ++i) EXPECT_EQ(limiter.Acquire(), 0) << i;
  EXPECT_GT(limiter.Acquire(), 0);
}

TEST(RateLimiter, ProcessesSharingAStateFileShareOneBudget) {
  // two limiters (as two FastCGI workers would hold) over one file, each in its own thread
  std::string file = ::testing::TempDir() + "scribe-rate-test-" + std::to_string(getpid());
  std::remove(file.c_str());
  RateLimiter a(20, 1, {}, {}, file), b(20, 1, {}, {}, file);
  std::mutex mu;
  std::vector<int64_t> starts;
  auto run = [&](RateLimiter& limiter) {
    for (int i = 0; i < 10; ++i) {
      limiter.Acquire();
      auto t = std::chrono::steady_clock::now().time_since_epoch();
      std::lock_guard<std::mutex> lock(mu);
      starts.push_back(std::chrono::duration_cast<std::chrono::microseconds>(t).count());
    }
  };
  std::thread ta(run, std::ref(a)), tb(run, std::ref(b));
  ta.join();
  tb.join();
  std::sort(starts.begin(), starts.end());
  ASSERT_EQ(starts.size(), 20u);
  EXPECT_GE(starts.back() - starts.front(), 19 * 50'000 - 5'000) << "20 requests at 20/s take 0.95 s, not half";
  std::remove(file.c_str());
}

TEST(RateLimiter, TryAcquireRefusesAWaitOverItsLimitAndReservesNothing) {
  int64_t now = 0;
  RateLimiter limiter(20, 1, [&] { return now; }, [&](int64_t us) { now += us; });
  EXPECT_EQ(limiter.TryAcquire(0), 0);
  EXPECT_EQ(limiter.TryAcquire(49'999), std::nullopt) << "the next slot is 50 ms away";
  EXPECT_EQ(limiter.TryAcquire(49'999), std::nullopt) << "a refusal reserved nothing";
  EXPECT_EQ(limiter.TryAcquire(50'000), 50'000);
  EXPECT_EQ(now, 50'000);
}

// A state file in a fresh private directory, removed afterwards.
class StateFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/scribe-rate-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/scribe-rate-0123456789abcdef";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes the raw bytes of a state (magic, tokens, time) as a damaged or hostile file would.
  void Plant(const char* magic, double tokens, int64_t last_us) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(magic, 8);
    out.write(reinterpret_cast<const char*>(&tokens), sizeof tokens);
    out.write(reinterpret_cast<const char*>(&last_us), sizeof last_us);
  }
  std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir_, path_;
};

TEST_F(StateFile, GarbageContentsAreNeverTrusted) {
  // tokens = -1e9 once meant a 1.6-year sleep, -1e300 an out-of-range conversion (UB)
  const int64_t t = 1'000'000'000;
  struct Case {
    const char* magic;
    double tokens;
    int64_t last;
  } cases[] = {
      {"scrbrat1", -1e9, t},
      {"scrbrat1", -1e300, t},
      {"scrbrat1", std::nan(""), t},
      {"scrbrat1", std::numeric_limits<double>::infinity(), t},
      {"scrbrat1", -std::numeric_limits<double>::infinity(), t},
      {"scrbrat1", 1e300, t},
      {"scrbrat1", 0, t + 3'600'000'000LL},  // an hour ahead: damaged, not a queue
      {"scrbrat1", 0, std::numeric_limits<int64_t>::max()},
      {"scrbrat1", 0, std::numeric_limits<int64_t>::min()},
      {"scrbrat1", 0, -1},
      {"notours!", 1, t},
  };
  for (const Case& c : cases) {
    Plant(c.magic, c.tokens, c.last);
    int64_t now = t;
    std::vector<int64_t> slept;
    RateLimiter limiter(20, 1, [&] { return now; }, [&](int64_t us) { slept.push_back(us); now += us; }, path_);
    EXPECT_EQ(limiter.Acquire(), 0) << c.tokens << " " << c.last << ": a bad state starts the bucket full";
    EXPECT_EQ(limiter.Acquire(), 50'000) << c.tokens << " " << c.last << ": and then limits as usual";
    EXPECT_EQ(slept, std::vector<int64_t>{50'000});
    EXPECT_EQ(limiter.shared_problem(), "") << "the file itself was usable";
  }
  // a short file, and an empty one
  for (const char* bytes : {"scrbrat1\x01", ""}) {
    { std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes; }
    int64_t now = t;
    RateLimiter limiter(20, 1, [&] { return now; }, [&](int64_t us) { now += us; }, path_);
    EXPECT_EQ(limiter.Acquire(), 0);
    EXPECT_EQ(Read(path_).size(), 24u) << "rewritten whole";
  }
}

TEST_F(StateFile, AValidStateIsShared) {
  int64_t now = 5'000'000;
  RateLimiter a(20, 1, [&] { return now; }, [&](int64_t) {}, path_);
  RateLimiter b(20, 1, [&] { return now; }, [&](int64_t) {}, path_);
  EXPECT_EQ(a.Acquire(), 0);
  EXPECT_EQ(b.Acquire(), 50'000) << "b sees a's request through the file";
  EXPECT_EQ(a.Acquire(), 100'000) << "and a sees b's reservation";
  std::string bytes = Read(path_);
  ASSERT_EQ(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), "scrbrat1");
}

TEST_F(StateFile, APlantedSymlinkIsNotFollowed) {
  const std::string victim = dir_ + "/victim.db";
  { std::ofstream(victim) << "SQLite format 3"; }
  std::filesystem::create_symlink(victim, path_);
  int64_t now = 0;
  RateLimiter limiter(20, 1, [&] { return now; }, [&](int64_t us) { now += us; }, path_);
  EXPECT_EQ(limiter.Acquire(), 0);
  EXPECT_EQ(limiter.shared_problem(), path_ + " is a symbolic link");
  EXPECT_EQ(limiter.Acquire(), 50'000) << "the bucket still limits, in-process";
  EXPECT_EQ(Read(victim), "SQLite format 3") << "the link's target is untouched";
  // a dangling link is not followed to create its target either
  std::filesystem::remove(path_);
  std::filesystem::create_symlink(dir_ + "/created-through-link", path_);
  limiter.Acquire();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/created-through-link"));
}

TEST_F(StateFile, OnlyARegularFileOfOursWithOneLinkIsUsed) {
  int64_t now = 0;
  auto limiter = [&] { return RateLimiter(20, 1, [&] { return now; }, [&](int64_t us) { now += us; }, path_); };
  std::filesystem::create_directory(path_);
  {
    RateLimiter l = limiter();
    l.Acquire();
    EXPECT_EQ(l.shared_problem(), path_ + ": Is a directory");
  }
  std::filesystem::remove(path_);
  ASSERT_EQ(mkfifo(path_.c_str(), 0600), 0);
  {
    RateLimiter l = limiter();
    l.Acquire();  // O_NONBLOCK: a FIFO never blocks the open
    EXPECT_EQ(l.shared_problem(), path_ + " is not a regular file");
  }
  std::filesystem::remove(path_);
  const std::string other = dir_ + "/other";
  { std::ofstream(other) << "keep me"; }
  std::filesystem::create_hard_link(other, path_);
  {
    RateLimiter l = limiter();
    l.Acquire();
    EXPECT_EQ(l.shared_problem(), path_ + " has 2 links");
    EXPECT_EQ(Read(other), "keep me");
  }
  std::filesystem::remove(path_);
  if (geteuid() == 0) {  // root can plant a file that belongs to someone else
    { std::ofstream(path_) << ""; }
    ASSERT_EQ(chown(path_.c_str(), 65534, 65534), 0);
    RateLimiter l = limiter();
    l.Acquire();
    EXPECT_EQ(l.shared_problem(), path_ + " belongs to another user");
  }
}

TEST(ApproximateTerm, CurrentShapeOneCandidatePerRxcuiRankThenScore) {
  auto c = ParseApproximateTerm(Fixture("rxnav/approximateTerm/sertaline.json"));
  ASSERT_TRUE(c);
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].rxcui, "36437");
  EXPECT_EQ((*c)[0].rank, 1);
  EXPECT_EQ((*c)[0].name, "sertraline") << "the name comes from whichever atom carries one";
  EXPECT_EQ((*c)[1].rxcui, "312941");
  EXPECT_EQ((*c)[1].name, "");
  json shuffled = json::parse(R"({"approximateGroup":{"inputTerm":null,"candidate":[
      {"rxcui":"2","score":"3.5","rank":"2"},{"rxcui":"1","score":"9","rank":"1"},
      {"rxcui":"3","score":"12.5","rank":"2"},{"rxcui":"4","score":10,"rank":1}]}})");
  c = ParseApproximateTerm(shuffled);
  ASSERT_TRUE(c);
  std::vector<std::string> order;
  for (const auto& x : *c) order.push_back(x.rxcui);
  EXPECT_EQ(order, (std::vector<std::string>{"4", "1", "3", "2"}));
}

TEST(ApproximateTerm, OldShapeAndNoHit) {
  auto c = ParseApproximateTerm(Fixture("rxnav/approximateTerm/zocor_10_mg.json"));
  ASSERT_TRUE(c);
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].rxcui, "104490");
  EXPECT_EQ((*c)[1].rxcui, "563653");
  EXPECT_EQ((*c)[0].name, "");
  c = ParseApproximateTerm(json::parse(R"({"approximateGroup":{"inputTerm":null}})"));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
  c = ParseApproximateTerm(json::parse(R"({"approximateGroup":{"candidate":{"rxcui":"7","rank":"1","score":"1"}}})"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->size(), 1u);
}

TEST(ApproximateTerm, WrongShapesAreNotAnswers) {
  EXPECT_FALSE(ParseApproximateTerm(json::parse("{}")));
  EXPECT_FALSE(ParseApproximateTerm(json::parse("[]")));
  EXPECT_FALSE(ParseApproximateTerm(json::parse(R"({"approximateGroup":"x"})")));
  EXPECT_FALSE(ParseApproximateTerm(json::parse(R"({"approximateGroup":{"candidate":7}})")));
  auto c = ParseApproximateTerm(json::parse(R"({"approximateGroup":{"candidate":[{"score":"1"},{"rxcui":5,"rank":"x"}]}})"));
  ASSERT_TRUE(c);
  ASSERT_EQ(c->size(), 1u) << "atoms without an rxcui are skipped";
  EXPECT_EQ((*c)[0].rxcui, "5");
}

TEST(DrugNameKey, NormalisesLikeTheOfflineTerminology) {
  EXPECT_EQ(DrugNameKey("Sertraline HCl 50 mg tablet"), "sertraline");
  EXPECT_EQ(DrugNameKey("metformin hydrochloride"), "metformin");
  EXPECT_EQ(DrugNameKey("Alka-Seltzer"), "alka seltzer");
  EXPECT_EQ(DrugNameKey("sodium chloride"), "sodium chloride") << "nothing left: the name itself";
}

TEST(Timestamps, FormatAndParse) {
  const int64_t t = 1795946400000;  // 2026-11-29T10:00:00Z
  EXPECT_EQ(FormatUtcMillis(t), "2026-11-29T10:00:00.000Z");
  EXPECT_EQ(FormatUtcSeconds(t + 999), "2026-11-29T10:00:00Z");
  EXPECT_EQ(ParseUtcMillis("2026-11-29T10:00:00.250Z"), t + 250);
  EXPECT_EQ(ParseUtcMillis("2026-11-29 10:00:00"), t);
  EXPECT_FALSE(ParseUtcMillis("yesterday"));
  EXPECT_FALSE(ParseUtcMillis("2026-11-29T10:00:00Zjunk"));
}

class EnvGuard {
 public:
  using Vars = std::vector<std::pair<std::string, std::string>>;
  explicit EnvGuard(Vars vars) : vars_(std::move(vars)) {
    for (auto& [k, v] : vars_) setenv(k.c_str(), v.c_str(), 1);
  }
  ~EnvGuard() {
    for (auto& [k, v] : vars_) unsetenv(k.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

TEST(LiveConfig, DefaultsAndEnvironment) {
  {
    LiveConfig c = LiveConfigFromEnv();
    EXPECT_FALSE(c.offline);
    EXPECT_EQ(c.rxnav_base, "https://rxnav.nlm.nih.gov/REST");
    EXPECT_EQ(c.openfda_base, "https://api.fda.gov");
    EXPECT_EQ(c.http.connect_timeout_ms, 2000);
    EXPECT_EQ(c.http.total_timeout_ms, 5000);
    EXPECT_EQ(c.ttl_ok_s, 7 * 86400);
    EXPECT_LT(c.ttl_negative_s, c.ttl_ok_s);
    EXPECT_LT(c.ttl_error_s, c.ttl_negative_s);
    EXPECT_EQ(c.rxnav_rate, 20);
    EXPECT_EQ(c.rate_state_dir, std::nullopt) << "beside the database, filled in by the SQL shell";
    EXPECT_EQ(c.note_budget_ms, 5000);
    EXPECT_EQ(c.note_budget_requests, 40);
  }
  {
    EnvGuard env(
        {{"SCRIBE_RATE_DIR", "off"}, {"SCRIBE_LIVE_BUDGET_MS", "90000"}, {"SCRIBE_LIVE_BUDGET_REQUESTS", "0"}});
    LiveConfig c = LiveConfigFromEnv();
    EXPECT_EQ(c.rate_state_dir, "") << "off: per process";
    EXPECT_EQ(c.note_budget_ms, 30000) << "clamped to 30 s";
    EXPECT_EQ(c.note_budget_requests, 0) << "cache and offline only";
  }
  {
    EnvGuard env(EnvGuard::Vars{{"SCRIBE_RATE_DIR", "/var/lib/scribe"}});
    EXPECT_EQ(LiveConfigFromEnv().rate_state_dir, "/var/lib/scribe");
  }
  {
    EnvGuard env(EnvGuard::Vars{{"SCRIBE_LIVE_BUDGET_MS", "0"}});
    EXPECT_THROW(LiveConfigFromEnv(), std::invalid_argument);
  }
  {
    EnvGuard env({{"SCRIBE_OFFLINE", "1"}, {"SCRIBE_RXNAV_URL", "http://127.0.0.1:4000/REST/"},
                  {"SCRIBE_OPENFDA_URL", "off"}, {"SCRIBE_HTTP_TIMEOUT_MS", "60000"},
                  {"SCRIBE_HTTP_CONNECT_TIMEOUT_MS", "300"}, {"SCRIBE_CACHE_NEGATIVE_TTL_S", "60"},
                  {"SCRIBE_BREAKER_FAILURES", "5"}, {"SCRIBE_RXNAV_RATE", "100"}});
    LiveConfig c = LiveConfigFromEnv();
    EXPECT_TRUE(c.offline);
    EXPECT_EQ(c.rxnav_base, "http://127.0.0.1:4000/REST");
    EXPECT_EQ(c.openfda_base, "");
    EXPECT_EQ(c.http.total_timeout_ms, 5000) << "clamped to the 5 s ceiling";
    EXPECT_EQ(c.http.connect_timeout_ms, 300);
    EXPECT_EQ(c.ttl_negative_s, 60);
    EXPECT_EQ(c.breaker.failure_threshold, 5);
    EXPECT_EQ(c.rxnav_rate, 20) << "never above RxNav's 20 requests/s";
  }
  {
    EnvGuard env(EnvGuard::Vars{{"SCRIBE_HTTP_TIMEOUT_MS", "soon"}});
    EXPECT_THROW(
        {
          try {
            LiveConfigFromEnv();
          } catch (const std::invalid_argument& e) {
            EXPECT_STREQ(e.what(), "SCRIBE_HTTP_TIMEOUT_MS: expected an integer >= 1, got \"soon\"");
            throw;
          }
        },
        std::invalid_argument);
  }
  {
    EnvGuard env(EnvGuard::Vars{{"SCRIBE_RXNAV_URL", "ftp://example"}});
    EXPECT_THROW(LiveConfigFromEnv(), std::invalid_argument);
  }
}

}  // namespace
}  // namespace scribe
