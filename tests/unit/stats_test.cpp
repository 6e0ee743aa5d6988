// Unit tests for stats.h: suite score, the seeded bootstrap interval, Cohen's kappa and vendor
// keys. Interval values come from tests/tools/bootstrap_reference.py, an independent Python
// implementation of the algorithm documented in docs/methodology.md; kappa is worked by hand.
#include <gtest/gtest.h>

#include <atomic>
#include <iterator>
#include <thread>

#include "stats.h"
#include "vendor.h"

namespace scribe {
namespace {

TEST(SuiteScore, AveragesPerTrialFirstAndCountsMissingTrialsAsZero) {
  // trial a: (0.9 + 0.8) / 2 = 0.85; b: 1.0; a third trial not run: 0 → (0.85 + 1 + 0) / 3
  std::map<std::string, std::vector<double>> runs{{"a", {0.9, 0.8}}, {"b", {1.0}}};
  EXPECT_NEAR(SuiteScore(runs, 3), 0.6166666666666667, 1e-15);
  EXPECT_DOUBLE_EQ(SuiteScore(runs, 2), 0.925);
  // fifteen resubmissions of one easy trial do not move the suite score of a 2-trial suite above half
  std::map<std::string, std::vector<double>> cherry{{"a", std::vector<double>(15, 1.0)}};
  EXPECT_DOUBLE_EQ(SuiteScore(cherry, 2), 0.5);
  EXPECT_DOUBLE_EQ(SuiteScore({}, 0), 0);
}

TEST(SuiteInterval, MatchesTheIndependentReference) {
  // tests/tools/bootstrap_reference.py '{"a": [0.2, 0.6, 1.0], "b": [0.5], "c": [0.0, 1.0]}' 4 'unit'
  Interval i = SuiteInterval({{"a", {0.2, 0.6, 1.0}}, {"b", {0.5}}, {"c", {0.0, 1.0}}}, 4, StableSeed("unit"));
  EXPECT_DOUBLE_EQ(i.low, 0.125);
  EXPECT_DOUBLE_EQ(i.high, 0.70833333333333337);
  // tests/tools/bootstrap_reference.py '{"01-sore-throat": [0.9, 0.8], "02-ankle-sprain": [1.0]}' 2 'acme scribe'
  Interval acme = SuiteInterval({{"01-sore-throat", {0.9, 0.8}}, {"02-ankle-sprain", {1.0}}}, 2, StableSeed("acme scribe"));
  EXPECT_DOUBLE_EQ(acme.low, 0.82500000000000007);
  EXPECT_DOUBLE_EQ(acme.high, 1.0);
}

TEST(SuiteInterval, MatchesTheReferenceWithSingleRunTrialsAndAManyRunTrial) {
  // The shape of a leaderboard: 12 trials run once, one run 3 times, one run 250 times, 26 of a
  // 40-trial suite not run. The single-run trials and the draws' rejection test take shortcuts in
  // stats.cpp; the reference takes none.
  // tests/tools/bootstrap_reference.py "$(python3 -c 'import json; r = {f"t{i:02d}": [((i*37) % 101) / 100]
  //   for i in range(12)}; r["t12"] = [0.25, 0.5, 1.0]; r["t13"] = [((k*11) % 101) / 100 for k in range(250)];
  //   print(json.dumps(r))')" 40 'many runs'
  std::map<std::string, std::vector<double>> runs;
  for (int i = 0; i < 12; ++i) {
    std::string id = (i < 10 ? "t0" : "t") + std::to_string(i);
    runs[id] = {static_cast<double>((i * 37) % 101) / 100};
  }
  runs["t12"] = {0.25, 0.5, 1.0};
  for (int k = 0; k < 250; ++k) runs["t13"].push_back(static_cast<double>((k * 11) % 101) / 100);
  Interval i = SuiteInterval(runs, 40, StableSeed("many runs"));
  EXPECT_EQ(i.low, 0.076999999999999999);  // exactly: the same draws in the same order
  EXPECT_EQ(i.high, 0.24686900000000001);
  // tests/tools/bootstrap_reference.py '{"a": [0.75]}' 1 'one run'
  Interval one = SuiteInterval({{"a", {0.75}}}, 1, StableSeed("one run"));
  EXPECT_EQ(one.low, 0.75);
  EXPECT_EQ(one.high, 0.75);
}

TEST(SuiteInterval, IsDeterministicAndDegeneratesToThePoint) {
  std::map<std::string, std::vector<double>> runs{{"a", {0.7, 0.9}}, {"b", {0.4}}};
  Interval a = SuiteInterval(runs, 3, 42), b = SuiteInterval(runs, 3, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  Interval same = SuiteInterval({{"a", {0.8, 0.8}}, {"b", {0.8}}}, 2, 7);
  EXPECT_DOUBLE_EQ(same.low, 0.8);
  EXPECT_DOUBLE_EQ(same.high, 0.8);
  Interval none = SuiteInterval({}, 0, 1);
  EXPECT_DOUBLE_EQ(none.low, 0);
  EXPECT_DOUBLE_EQ(none.high, 0);
}

TEST(RememberedSuiteInterval, GivesWhatSuiteIntervalGivesAndKeepsEachInputOnce) {
  std::map<std::string, std::vector<double>> runs{{"a", {0.2, 0.6, 1.0}}, {"b", {0.5}}, {"c", {0.0, 1.0}}};
  const uint64_t seed = StableSeed("remembered");
  const Interval fresh = SuiteInterval(runs, 4, seed);
  const size_t before = SuiteMemoSize().first;
  Interval first = RememberedSuiteInterval(runs, 4, seed), again = RememberedSuiteInterval(runs, 4, seed);
  EXPECT_EQ(first.low, fresh.low);
  EXPECT_EQ(first.high, fresh.high);
  EXPECT_EQ(again.low, fresh.low);
  EXPECT_EQ(again.high, fresh.high);
  EXPECT_EQ(SuiteMemoSize().first, before + 1);  // the second call was a lookup
  // Any input that differs is its own entry, with its own interval: a run's last bit, the order
  // of a trial's runs (the draws pick runs by position), the suite size, the seed, the replicates.
  std::map<std::string, std::vector<double>> nudged = runs, reordered = runs, renamed;
  nudged["a"][2] = 0.99999999999999989;  // the double just below 1.0
  reordered["a"] = {1.0, 0.6, 0.2};
  for (const auto& [trial, r] : runs) renamed["x" + trial] = r;
  struct Case {
    const std::map<std::string, std::vector<double>>* runs;
    size_t suite;
    uint64_t seed;
    int replicates;
  };
  const Case cases[] = {{&nudged, 4, seed, 2000}, {&reordered, 4, seed, 2000}, {&renamed, 4, seed, 2000},
                        {&runs, 5, seed, 2000},   {&runs, 4, seed + 1, 2000},   {&runs, 4, seed, 1999}};
  for (const Case& c : cases) {
    Interval want = SuiteInterval(*c.runs, c.suite, c.seed, c.replicates);
    Interval got = RememberedSuiteInterval(*c.runs, c.suite, c.seed, c.replicates);
    EXPECT_EQ(got.low, want.low);
    EXPECT_EQ(got.high, want.high);
  }
  EXPECT_EQ(SuiteMemoSize().first, before + 1 + std::size(cases));
  // The reordered runs draw other values: the memo did not answer them with the first interval.
  EXPECT_NE(SuiteInterval(reordered, 4, seed).high, fresh.high);
}

TEST(RememberedSuiteInterval, StaysWithinItsBoundAndKeepsNoLargeInput) {
  // A vendor of 9,000 runs (72 KB of scores) is computed every time, not kept.
  std::map<std::string, std::vector<double>> heavy{{"a", std::vector<double>(9000, 0.5)}};
  heavy["a"][17] = 0.25;
  const auto before = SuiteMemoSize();
  Interval h = RememberedSuiteInterval(heavy, 2, 3);
  Interval want = SuiteInterval(heavy, 2, 3);
  EXPECT_EQ(h.low, want.low);
  EXPECT_EQ(h.high, want.high);
  EXPECT_EQ(SuiteMemoSize(), before);
  // Distinct inputs of about 8 KB each, many times the bound: what it holds never passes it.
  std::map<std::string, std::vector<double>> runs{{"a", std::vector<double>(1000, 0.5)}};
  for (int i = 0; i < 300; ++i) {
    runs["a"][0] = i / 1000.0;
    RememberedSuiteInterval(runs, 1, 5, 10);
    ASSERT_LE(SuiteMemoSize().second, kSuiteMemoBytes);
  }
  EXPECT_GT(SuiteMemoSize().first, 0u);
}

TEST(RememberedSuiteInterval, ConcurrentCallersGetTheComputedIntervals) {
  std::vector<std::map<std::string, std::vector<double>>> inputs;
  for (int i = 0; i < 16; ++i)
    inputs.push_back({{"a", {0.1 * (i % 10), 0.9}}, {"b", {0.05 * i}}, {"c", {0.3, 0.6, 0.9 - 0.01 * i}}});
  std::vector<Interval> want;
  for (const auto& r : inputs) want.push_back(SuiteInterval(r, 5, 11, 500));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        for (size_t i = 0; i < inputs.size(); ++i) {
          size_t k = (i + static_cast<size_t>(t) * 5) % inputs.size();
          Interval got = RememberedSuiteInterval(inputs[k], 5, 11, 500);
          if (got.low != want[k].low || got.high != want[k].high) ++wrong;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(CohensKappa, HandComputedExample) {
  // 10 rubric items, grader vs clinician: po = 7/10; marginals full 5/5, partial 3/3, absent 2/2:
  // pe = .25 + .09 + .04 = .38; kappa = (.7 - .38) / .62 = 0.516129…
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int i = 0; i < 4; ++i) pairs.emplace_back("full", "full");
  for (int i = 0; i < 2; ++i) pairs.emplace_back("partial", "partial");
  pairs.emplace_back("absent", "absent");
  pairs.emplace_back("full", "partial");
  pairs.emplace_back("partial", "absent");
  pairs.emplace_back("absent", "full");
  ASSERT_TRUE(CohensKappa(pairs));
  EXPECT_NEAR(*CohensKappa(pairs), 0.32 / 0.62, 1e-12);
  // Perfect agreement is 1; chance-level agreement is 0; one label everywhere is undefined.
  EXPECT_DOUBLE_EQ(*CohensKappa({{"a", "a"}, {"b", "b"}}), 1.0);
  EXPECT_DOUBLE_EQ(*CohensKappa({{"a", "a"}, {"a", "b"}, {"b", "a"}, {"b", "b"}}), 0.0);
  EXPECT_FALSE(CohensKappa({{"error", "error"}, {"error", "error"}}));
  EXPECT_FALSE(CohensKappa({}));
}

TEST(VendorKey, NfkcCaseFoldingAndWhiteSpace) {
  EXPECT_EQ(VendorKey("Careful Scribe"), "careful scribe");
  EXPECT_EQ(VendorKey("  careful   SCRIBE\t"), "careful scribe");
  EXPECT_EQ(VendorKey("\xEF\xBC\xA3\xEF\xBD\x81reful Scribe"), "careful scribe");  // full-width "Ｃａ"
  EXPECT_EQ(VendorKey("Stra\xC3\x9F" "e"), "strasse");                                // ß folds to ss
  EXPECT_EQ(VendorKey("Caf\x65\xCC\x81"), "caf\xC3\xA9");                             // e + combining acute → é
  EXPECT_EQ(VendorKey("A\xC2\xA0" "B"), "a b");                                     // no-break space
  EXPECT_EQ(VendorKey("   "), "");
  EXPECT_EQ(VendorKey("\xFF\xFE"), "");                                             // not UTF-8
}

}  // namespace
}  // namespace scribe
