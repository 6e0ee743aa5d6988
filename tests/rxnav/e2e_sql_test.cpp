// e2e_sql_test.cpp — the loadable module in a plain SQLite connection, pointed at the fake
// upstream through the environment, grading the seed smoke note:
//
//   export SCRIBE_RXNAV_URL=http://127.0.0.1:N/REST SCRIBE_OPENFDA_URL=http://127.0.0.1:N
//   sqlite3 data.db ".load build/scribe" "SELECT scribe_load_corpus('corpus/scripts')"
//     "SELECT grade_submission('03-depression-suicidal-ideation', 'Patient on sertaline 50mg daily. ...')"
//     "SELECT source, count(*) FROM drug_cache GROUP BY source"
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fake_upstream.h"

namespace {

// Trial files of the committed corpus (every one loads): what scribe_load_corpus must report.
size_t CorpusTrialFiles() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("corpus/scripts"))
    n += entry.is_regular_file() && entry.path().extension() == ".yaml";
  return n;
}

using nlohmann::json;
using scribe::testing::FakeUpstream;

const char* kSeedNote = "Patient on sertaline 50mg daily. Reports insomnia. No SI.";

class Extension {
 public:
  // Sets the environment, then opens a database and loads the module (the validator is chosen
  // when the module is loaded).
  using Env = std::vector<std::pair<std::string, std::string>>;
  explicit Extension(const Env& env, const std::string& db_path = ":memory:") {
    for (const char* k : {"SCRIBE_OFFLINE", "SCRIBE_RXNAV_URL", "SCRIBE_OPENFDA_URL", "SCRIBE_HTTP_TIMEOUT_MS",
                          "SCRIBE_LIVE_BUDGET_MS", "SCRIBE_LIVE_BUDGET_REQUESTS"})
      unsetenv(k);
    setenv("SCRIBE_RATE_DIR", "off", 1);  // per-process limiter: no state file left behind
    for (const auto& [k, v] : env) {
      if (v.empty()) unsetenv(k.c_str());  // "" unsets (SCRIBE_RATE_DIR: the default)
      else setenv(k.c_str(), v.c_str(), 1);
    }
    EXPECT_EQ(sqlite3_open(db_path.c_str(), &db_), SQLITE_OK);
    sqlite3_enable_load_extension(db_, 1);
    char* err = nullptr;
    int rc = sqlite3_load_extension(db_, SCRIBE_MODULE, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    EXPECT_EQ(Text("SELECT scribe_load_corpus('corpus/scripts')"), std::to_string(CorpusTrialFiles()));
  }
  ~Extension() { sqlite3_close(db_); }

  std::string Text(const std::string& sql) {
    std::string out;
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    while (sqlite3_step(s) == SQLITE_ROW) {
      if (!out.empty()) out += "\n";
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const unsigned char* t = sqlite3_column_text(s, i);
        out += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
    }
    sqlite3_finalize(s);
    return out;
  }
  json GradeSeed() {
    return json::parse(Text(std::string("SELECT grade_submission('03-depression-suicidal-ideation', '") + kSeedNote + "')"));
  }

 private:
  sqlite3* db_ = nullptr;
};

double OfflineScore() {
  Extension ext(Extension::Env{{"SCRIBE_OFFLINE", "1"}});
  return ext.GradeSeed()["score_total"].get<double>();
}

TEST(RxnavEndToEnd, SeedSmokeNoteIsValidatedByRxnavAndCached) {
  FakeUpstream server;
  double offline_score = OfflineScore();
  Extension ext({{"SCRIBE_RXNAV_URL", server.rxnav_url()}, {"SCRIBE_OPENFDA_URL", server.openfda_url()}});
  json result = ext.GradeSeed();
  EXPECT_EQ(result["score_total"].get<double>(), offline_score) << "validation reports; it does not move this score";
  ASSERT_EQ(result["meds"].size(), 1u);
  json v = result["meds"][0]["validation"];
  EXPECT_EQ(v["source"], "rxnav");
  EXPECT_EQ(v["rxcui"], "36437");
  EXPECT_EQ(v["ingredient_rxcuis"], json::array({"36437"}));
  EXPECT_EQ(v["reason"], "rxnav: rank-1 match sertraline (36437) for \"sertaline\", edit distance 1; "
                         "openfda: 2 NDC products for sertraline (2 dosage forms; routes: ORAL)");
  EXPECT_EQ(result["terminology"]["rxnav"], "03-Dec-2018");
  EXPECT_EQ(result["terminology"]["openfda"], "2020-05-01");
  EXPECT_EQ(result["terminology"]["offline_release"], "2025-10-06");
  // the seed smoke's last step
  EXPECT_EQ(ext.Text("SELECT source, count(*) FROM drug_cache GROUP BY source"), "openfda|1\nrxnav|3");
  EXPECT_EQ(ext.Text("SELECT endpoint, term, status FROM drug_cache_status ORDER BY key"),
            "ndc|sertraline|ok\napproximateTerm|sertaline|ok\nproperties|36437|ok\nversion|current|ok");

  // graded again: every answer from the cache, nothing sent
  json before = server.Stats();
  json again = ext.GradeSeed();
  json after = server.Stats();
  EXPECT_EQ(after["rxnav"], before["rxnav"]);
  EXPECT_EQ(after["openfda"], before["openfda"]);
  EXPECT_EQ(again["meds"][0]["validation"]["source"], "cache");
  EXPECT_EQ(again["score_total"], result["score_total"]);
  EXPECT_EQ(ext.Text("SELECT count(*) FROM drug_cache"), "4");
}

// 300 distinct drug-shaped unknown words, each followed by a dose, in about 3 KB: every one is
// a phantom drug the grader asks the validator about.
std::string PhantomNote(int n) {
  std::string note;
  for (int i = 0; i < n; ++i) {
    std::string word = "Zq";
    word += static_cast<char>('a' + i / 26 % 26);
    word += static_cast<char>('a' + i % 26);
    note += word + " 5mg. ";
  }
  return note;
}

TEST(RxnavEndToEnd, ThreeHundredPhantomDrugsStopAtTheNoteBudget) {
  FakeUpstream server;
  Extension ext({{"SCRIBE_RXNAV_URL", server.rxnav_url()}, {"SCRIBE_OPENFDA_URL", server.openfda_url()}});
  std::string note = PhantomNote(300);
  ASSERT_EQ(note.size(), 3000u);
  auto start = std::chrono::steady_clock::now();
  json result = json::parse(ext.Text("SELECT grade_submission('03-depression-suicidal-ideation', '" + note + "')"));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // 40 requests at RxNav's 20/s take 2 s; 300 took 15 s before the budget
  EXPECT_LT(seconds, 6.0);
  // The default budget, 40 upstream requests per note: the missing expected medication
  // (sertraline) is validated first with 4 (approximateTerm, version.json, properties, openFDA
  // NDC), then 36 phantoms are asked about (approximateTerm each) and 264 are not.
  json stats = server.Stats();
  EXPECT_EQ(stats["rxnav"], 39);
  EXPECT_EQ(stats["openfda"], 1);
  EXPECT_EQ(result["meds"][0]["validation"]["source"], "rxnav");
  const json& unsupported = result["unsupported_drugs"];
  ASSERT_EQ(unsupported.size(), 300u);
  int asked = 0, over_budget = 0;
  for (const json& u : unsupported) {
    std::string mention = u["mention"], reason = u["validation"]["reason"];
    std::string offline = "no match for \"" + mention + "\" in offline RxNorm 2025-10-06";
    if (reason == "rxnav: no candidate for \"" + mention + "\"; " + offline) ++asked;
    else if (reason == "rxnav not asked: live-validation budget spent (40 upstream requests per note); " + offline)
      ++over_budget;
    else ADD_FAILURE() << reason;
  }
  EXPECT_EQ(asked, 36);
  EXPECT_EQ(over_budget, 264);
  // the next note has its own budget
  json again = json::parse(ext.Text("SELECT grade_submission('03-depression-suicidal-ideation', 'Zqzz 5mg.')"));
  EXPECT_EQ(again["unsupported_drugs"][0]["validation"]["reason"],
            "rxnav: no candidate for \"Zqzz\"; no match for \"Zqzz\" in offline RxNorm 2025-10-06");
}

TEST(RxnavEndToEnd, SlowUpstreamHoldsANoteNoLongerThanTheTimeBudget) {
  FakeUpstream server({.mode = "rxnav=slow,openfda=ok"});
  Extension ext({{"SCRIBE_RXNAV_URL", server.rxnav_url()}, {"SCRIBE_OPENFDA_URL", server.openfda_url()},
                 {"SCRIBE_LIVE_BUDGET_MS", "1500"}});
  auto start = std::chrono::steady_clock::now();
  json result = json::parse(
      ext.Text("SELECT grade_submission('03-depression-suicidal-ideation', '" + PhantomNote(300) + "')"));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.5) << "one request cut at 1.5 s, the rest offline at once";
  EXPECT_EQ(server.Stats()["rxnav"], 1);
  const json& unsupported = result["unsupported_drugs"];
  ASSERT_EQ(unsupported.size(), 300u);
  // the first lookup (the missing sertraline) is the request cut at the budget; no phantom is asked
  EXPECT_EQ(result["meds"][0]["validation"]["reason"],
            "rxnav unreachable (no answer before the live-validation budget of 1.5 s per note ran out); "
            "local: exact match sertraline (36437) in offline RxNorm 2025-10-06");
  EXPECT_EQ(unsupported[0]["validation"]["reason"],
            "rxnav not asked: live-validation budget spent (1.5 s per note); "
            "no match for \"Zqaa\" in offline RxNorm 2025-10-06");
  EXPECT_EQ(unsupported[299]["validation"]["reason"],
            "rxnav not asked: live-validation budget spent (1.5 s per note); "
            "no match for \"Zqln\" in offline RxNorm 2025-10-06");
}

TEST(RxnavEndToEnd, RateLimiterStateLivesBesideTheDatabase) {
  FakeUpstream server;
  char tmpl[] = "/tmp/scribe-e2e-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  {
    Extension ext({{"SCRIBE_RXNAV_URL", server.rxnav_url()}, {"SCRIBE_OPENFDA_URL", "off"}, {"SCRIBE_RATE_DIR", ""}},
                  dir + "/data.db");
    ext.GradeSeed();
  }
  std::vector<std::string> rate_files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename();
    if (name.rfind("scribe-rate-", 0) == 0) {
      rate_files.push_back(name);
      EXPECT_EQ(std::filesystem::file_size(entry.path()), 24u);
      EXPECT_EQ(std::filesystem::status(entry.path()).permissions() & std::filesystem::perms::all,
                std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    }
  }
  EXPECT_EQ(rate_files.size(), 1u) << "one upstream (RxNav) asked, one state file";
  std::filesystem::remove_all(dir);
}

TEST(RxnavEndToEnd, RefusedUpstreamStillGradesAndSaysWhy) {
  std::string refused = "http://127.0.0.1:" + std::to_string(scribe::testing::RefusedPort());
  double offline_score = OfflineScore();
  Extension ext({{"SCRIBE_RXNAV_URL", refused + "/REST"}, {"SCRIBE_OPENFDA_URL", refused}});
  json result = ext.GradeSeed();
  EXPECT_EQ(result["score_total"].get<double>(), offline_score);
  json v = result["meds"][0]["validation"];
  EXPECT_EQ(v["source"], "local");
  EXPECT_EQ(v["reason"], "rxnav unreachable (connection refused); local: approximate match \"sertaline\" -> "
                         "sertraline (36437), edit distance 1, in offline RxNorm 2025-10-06");
  EXPECT_EQ(result["terminology"]["rxnav"], nullptr);
  EXPECT_EQ(ext.Text("SELECT count(*) FROM drug_cache"), "0") << "transport failures are not cached";
}

TEST(RxnavEndToEnd, OfflineSwitchTouchesNothing) {
  FakeUpstream server;
  Extension ext({{"SCRIBE_OFFLINE", "1"}, {"SCRIBE_RXNAV_URL", server.rxnav_url()},
                 {"SCRIBE_OPENFDA_URL", server.openfda_url()}});
  json v = ext.GradeSeed()["meds"][0]["validation"];
  EXPECT_EQ(v["source"], "local");
  EXPECT_EQ(ext.Text("SELECT count(*) FROM drug_cache"), "0");
  json stats = server.Stats();
  EXPECT_EQ(stats["rxnav"], 0);
  EXPECT_EQ(stats["openfda"], 0);
}

TEST(RxnavEndToEnd, BadEnvironmentFailsTheLoadWithItsName) {
  setenv("SCRIBE_HTTP_TIMEOUT_MS", "soon", 1);
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  char* err = nullptr;
  EXPECT_NE(sqlite3_load_extension(db, SCRIBE_MODULE, nullptr, &err), SQLITE_OK);
  EXPECT_STREQ(err, "error during initialization: scribe: drug validator failed to initialise: SCRIBE_HTTP_TIMEOUT_MS: expected an integer >= 1, got \"soon\"");
  sqlite3_free(err);
  sqlite3_close(db);
  unsetenv("SCRIBE_HTTP_TIMEOUT_MS");
}

}  // namespace
