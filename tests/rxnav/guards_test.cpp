// guards_test.cpp — the pure pieces of live validation: circuit breaker, token bucket,
// approximateTerm parsing (current and old shapes), name keys, timestamps, configuration.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
