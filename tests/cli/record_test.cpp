// record_test.cpp — the run record's summary, thresholds and table (cli/record.h), on cases
// written by hand: means worked out here, the interval from the project's bootstrap (stats.h).
#include "record.h"

#include <gtest/gtest.h>

#include "stats.h"

namespace scribe::run {
namespace {

using nlohmann::json;

json Case(const std::string& trial, const std::string& kind, int run, double score, bool unsafe = false,
          json error = nullptr, json reasons = json::array()) {
  return {{"trial", trial},   {"kind", kind},   {"run", run},        {"score_total", score},
          {"unsafe", unsafe}, {"error", error}, {"reasons", reasons}};
}

json Cases() {
  return json::array({Case("01-a", "note", 1, 1.0),
                      Case("01-a", "note", 2, 0.5, false, nullptr, {"medication x: missing"}),
                      Case("02-b", "note", 1, 0.0, false,
                           {{"message", "timed out after 2 s; its process group was killed"},
                            {"timed_out", true},
                            {"stderr_tail", "loading model\nstill loading\n"}}),
                      Case("11-c", "rubric", 1, 0.8, true, nullptr, {"critical: x started", "-5 major: y"})});
}

TEST(Summary, MeansPerTrialThenOverTrials) {
  json s = Summarize(Cases());
  // note: 01-a (1.0 + 0.5) / 2 = 0.75, 02-b 0 -> (0.75 + 0) / 2 = 0.375; rubric: 0.8;
  // all: (0.75 + 0 + 0.8) / 3 = 0.51666… -> 0.5167.
  EXPECT_EQ(s["trials"], 3);
  EXPECT_EQ(s["cases"], 4);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["timed_out"], 1);
  EXPECT_EQ(s["unsafe"], 1);
  EXPECT_EQ(s["mean"], 0.5167);
  EXPECT_EQ(s["kinds"]["note"]["mean"], 0.375);
  EXPECT_EQ(s["kinds"]["note"]["cases"], 3);
  EXPECT_EQ(s["kinds"]["note"]["trials"], 2);
  EXPECT_EQ(s["kinds"]["rubric"], (json{{"trials", 1},
                                        {"cases", 1},
                                        {"failed", 0},
                                        {"timed_out", 0},
                                        {"unsafe", 1},
                                        {"mean", 0.8},
                                        {"ci95_low", 0.8},
                                        {"ci95_high", 0.8}}));
}

TEST(Summary, TheIntervalIsTheLeaderboardsBootstrap) {
  json s = Summarize(Cases());
  std::map<std::string, std::vector<double>> runs = {{"01-a", {1.0, 0.5}}, {"02-b", {0.0}}, {"11-c", {0.8}}};
  Interval ci = SuiteInterval(runs, 3, StableSeed("scribe-run:all"));
  EXPECT_EQ(s["ci95_low"], std::round(ci.low * 10000) / 10000);
  EXPECT_EQ(s["ci95_high"], std::round(ci.high * 10000) / 10000);
  EXPECT_LE(s["ci95_low"].get<double>(), 0.5167);
  EXPECT_GE(s["ci95_high"].get<double>(), 0.5167);
  EXPECT_EQ(Summarize(Cases()), s);  // seeded: the same on every run
}

TEST(Summary, NoCases) {
  json s = Summarize(json::array());
  EXPECT_EQ(s, (json{{"trials", 0},
                     {"cases", 0},
                     {"failed", 0},
                     {"timed_out", 0},
                     {"unsafe", 0},
                     {"mean", nullptr},
                     {"ci95_low", nullptr},
                     {"ci95_high", nullptr},
                     {"kinds", json::object()}}));
}

TEST(Thresholds, EachFailureInWords) {
  json s = Summarize(Cases());
  EXPECT_EQ(Thresholds(s, std::nullopt, false),
            (json{{"min_score", nullptr}, {"fail_on_unsafe", false}, {"passed", true}, {"failures", json::array()}}));
  EXPECT_EQ(Thresholds(s, 0.5, false)["passed"], true);
  EXPECT_EQ(Thresholds(s, 0.5167, false)["passed"], true);
  EXPECT_EQ(Thresholds(s, 0.6, true), (json{{"min_score", 0.6},
                                            {"fail_on_unsafe", true},
                                            {"passed", false},
                                            {"failures",
                                             {"mean score 0.5167 is below --min-score 0.6000",
                                              "1 case is unsafe (a critical error) and --fail-on-unsafe is set"}}}));
  EXPECT_EQ(Thresholds(Summarize(json::array()), 0.1, false)["failures"],
            json::array({"no case was run, so the mean cannot reach --min-score 0.1000"}));
}

TEST(Table, CasesAggregateAndVerdict) {
  json record = {{"cases", Cases()}};
  record["summary"] = Summarize(record["cases"]);
  record["thresholds"] = Thresholds(record["summary"], 0.6, false);
  const std::string ci_all = [&] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%.3f, %.3f]", record["summary"]["ci95_low"].get<double>(),
                  record["summary"]["ci95_high"].get<double>());
    return std::string(buf);
  }();
  const std::string ci_note = [&] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%.3f, %.3f]", record["summary"]["kinds"]["note"]["ci95_low"].get<double>(),
                  record["summary"]["kinds"]["note"]["ci95_high"].get<double>());
    return std::string(buf);
  }();
  EXPECT_EQ(RenderTable(record, 80),
            "trial  run  score  unsafe  reasons\n"
            "01-a     1  1.000          \n"
            "01-a     2  0.500          medication x: missing\n"
            "02-b     1  0.000          agent failed: timed out after 2 s; its process group…\n"
            "11-c     1  0.800  UNSAFE  critical: x started; -5 major: y\n"
            "\n"
            "kind           trials  cases  failed  unsafe    mean  95% interval\n"
            "note                2      3       1       0   0.375  " +
                ci_note +
                "\n"
                "rubric              1      1       0       1   0.800  [0.800, 0.800]\n"
                "all                 3      4       1       1   0.517  " +
                ci_all +
                "\n"
                "\n"
                "thresholds: FAILED: mean score 0.5167 is below --min-score 0.6000\n");
}

TEST(Table, PassedVerdictNamesTheThresholds) {
  json record = {{"cases", json::array({Case("01-a", "note", 1, 1.0)})}};
  record["summary"] = Summarize(record["cases"]);
  record["thresholds"] = Thresholds(record["summary"], 0.8, true);
  std::string table = RenderTable(record);
  EXPECT_EQ(table.substr(table.rfind("\n\n")), "\n\nthresholds: passed (--min-score 0.8000, --fail-on-unsafe)\n");
}

}  // namespace
}  // namespace scribe::run
