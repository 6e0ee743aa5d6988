// live_validator_test.cpp — LiveValidator against the fake RxNav/openFDA: every answer shape,
// every failure, the breaker, the rate limit, cache lifetimes (injected clock) and versions.
// Each case asserts the Validation fields and the exact reason.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <chrono>

#include "drug_cache.h"
#include "fake_upstream.h"
#include "rxnav.h"
#include "store.h"

namespace scribe {
namespace {

using nlohmann::json;
using testing::FakeUpstream;
using Ms = std::chrono::milliseconds;

constexpr int64_t kT0 = 1795946400000;  // 2026-11-29T10:00:00Z
constexpr int64_t kHour = 3'600'000, kDay = 24 * kHour;
const char* kSertralineFda = "openfda: 2 NDC products for sertraline (2 dosage forms; routes: ORAL)";

std::string Offline(std::string_view term) {
  return OfflineValidation(DefaultTerminology(), term, std::nullopt).reason;
}

class LiveValidatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new FakeUpstream(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { server_->SetMode("ok", "ok"); }

  LiveConfig Config() {
    LiveConfig c;
    c.rxnav_base = server_->rxnav_url();
    c.openfda_base = server_->openfda_url();
    c.http.connect_timeout_ms = 300;
    c.http.total_timeout_ms = 700;
    c.shared_guards = false;
    return c;
  }
  std::unique_ptr<LiveValidator> Make(LiveConfig c, std::unique_ptr<DrugCacheStore> cache = nullptr) {
    return std::make_unique<LiveValidator>(DefaultTerminology(), std::move(cache), std::move(c), [this] { return now_; });
  }
  std::unique_ptr<LiveValidator> Make() { return Make(Config()); }
  int RxnavRequests() { return server_->Stats()["rxnav"].get<int>(); }

  static FakeUpstream* server_;
  int64_t now_ = kT0;
};
FakeUpstream* LiveValidatorTest::server_ = nullptr;

TEST_F(LiveValidatorTest, HitIngredient) {
  auto v = Make()->Validate("sertraline", std::nullopt);
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.source, "rxnav");
  EXPECT_EQ(v.rxcui, "36437");
  EXPECT_EQ(v.name, "sertraline");
  EXPECT_EQ(v.tty, "IN");
  EXPECT_EQ(v.ingredients, std::vector<std::string>{"36437"});
  EXPECT_EQ(v.ingredient, "sertraline");
  EXPECT_EQ(v.score, 1.0);
  EXPECT_EQ(v.dose_forms, (std::vector<std::string>{"CONCENTRATE", "TABLET, FILM COATED"}));
  EXPECT_EQ(v.routes, std::vector<std::string>{"ORAL"});
  EXPECT_FALSE(v.strengths.empty()) << "strengths come from the offline terminology";
  EXPECT_EQ(v.reason, std::string("rxnav: rank-1 match sertraline (36437); ") + kSertralineFda);
}

TEST_F(LiveValidatorTest, MissFallsBackToOfflineAndSaysBoth) {
  auto v = Make()->Validate("zzzqqq", std::nullopt);
  EXPECT_FALSE(v.found);
  EXPECT_EQ(v.source, "none");
  EXPECT_EQ(v.reason, "rxnav: no candidate for \"zzzqqq\"; " + Offline("zzzqqq"));
  EXPECT_EQ(v.reason, "rxnav: no candidate for \"zzzqqq\"; no match for \"zzzqqq\" in offline RxNorm 2025-10-06");
}

TEST_F(LiveValidatorTest, Misspelling) {
  auto v = Make()->Validate("sertaline", std::nullopt);
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.source, "rxnav");
  EXPECT_EQ(v.rxcui, "36437");
  EXPECT_EQ(v.score, 0.8889);
  EXPECT_EQ(v.reason, std::string("rxnav: rank-1 match sertraline (36437) for \"sertaline\", edit distance 1; ") + kSertralineFda);
}

TEST_F(LiveValidatorTest, BrandResolvesToItsIngredient) {
  auto v = Make()->Validate("Zoloft", std::nullopt);
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.rxcui, "82728");
  EXPECT_EQ(v.tty, "BN");
  EXPECT_EQ(v.name, "Zoloft");
  EXPECT_EQ(v.ingredients, std::vector<std::string>{"36437"});
  EXPECT_EQ(v.ingredient, "sertraline");
  EXPECT_EQ(v.reason, std::string("rxnav: rank-1 match brand Zoloft (82728) of sertraline (36437); ") + kSertralineFda);
}

TEST_F(LiveValidatorTest, RankIsCheckedByNameAndPreciseIngredientResolves) {
  // rank 1 is an SCD ("metformin hydrochloride 500 MG Oral Tablet"): not a name match
  auto v = Make()->Validate("metformin HCl", std::nullopt);
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.rxcui, "235743");
  EXPECT_EQ(v.tty, "PIN");
  EXPECT_EQ(v.ingredients, std::vector<std::string>{"6809"});
  EXPECT_EQ(v.ingredient, "metformin");
  EXPECT_TRUE(v.routes.empty());
  EXPECT_FALSE(v.dose_forms.empty()) << "from the offline terminology, as the reason says";
  EXPECT_EQ(v.reason,
            "rxnav: rank-2 match metformin hydrochloride (235743), precise ingredient of metformin (6809) for \"metformin HCl\"; "
            "openfda: no NDC product for metformin (dose forms from offline RxNorm 2025-10-06)");
}

TEST_F(LiveValidatorTest, OldShapeWithoutNamesAndUnknownIds) {
  // the recorded 2018 answer: two rank-1 candidates, no names; 563653 is unknown today ({})
  auto v = Make()->Validate("zocor 10 mg", std::nullopt);
  EXPECT_EQ(v.source, "local");
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.reason, "rxnav: 2 candidates for \"zocor 10 mg\", none named like it "
                      "(rank-1 simvastatin 10 MG Oral Tablet [Zocor] (104490)); " + Offline("zocor 10 mg"));
}

TEST_F(LiveValidatorTest, SlowAnswerTimesOutWithinTheBudget) {
  server_->SetMode("slow", "ok");
  auto start = std::chrono::steady_clock::now();
  auto v = Make()->Validate("sertaline", std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, Ms(2500));
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.source, "local");
  EXPECT_EQ(v.rxcui, "36437");
  EXPECT_EQ(v.reason, "rxnav unreachable (timeout after 0.7 s); " + Offline("sertaline"));
}

TEST_F(LiveValidatorTest, ConnectionRefused) {
  LiveConfig c = Config();
  c.rxnav_base = "http://127.0.0.1:" + std::to_string(testing::RefusedPort()) + "/REST";
  auto v = Make(c)->Validate("sertaline", std::nullopt);
  EXPECT_EQ(v.source, "local");
  EXPECT_EQ(v.reason, "rxnav unreachable (connection refused); " + Offline("sertaline"));
}

TEST_F(LiveValidatorTest, HttpErrorsAndBadBodiesFallBack) {
  struct Case {
    const char* mode;
    std::string expected;
  } cases[] = {
      {"500", "rxnav unavailable (http 500); "},
      {"403", "rxnav rate limited (http 403); "},
      {"429", "rxnav rate limited (http 429); "},
      {"malformed", "rxnav answer malformed (not JSON); "},
      {"oversized", "rxnav answer over 1 MiB; "},
      {"oversized-chunked", "rxnav answer over 1 MiB; "},
  };
  for (const Case& c : cases) {
    server_->SetMode(c.mode, "ok");
    auto v = Make()->Validate("Zoloft", std::nullopt);
    EXPECT_TRUE(v.found) << c.mode;
    EXPECT_EQ(v.source, "local") << c.mode;
    EXPECT_EQ(v.rxcui, "82728") << c.mode;
    EXPECT_EQ(v.reason, c.expected + Offline("Zoloft")) << c.mode;
  }
}

TEST_F(LiveValidatorTest, OpenFdaDownKeepsTheRxnavAnswer) {
  server_->SetMode("ok", "500");
  auto v = Make()->Validate("sertraline", std::nullopt);
  EXPECT_EQ(v.source, "rxnav");
  EXPECT_TRUE(v.routes.empty());
  EXPECT_EQ(v.dose_forms, (std::vector<std::string>{"Oral Capsule", "Oral Solution", "Oral Tablet"}));
  EXPECT_EQ(v.reason, "rxnav: rank-1 match sertraline (36437); openfda unavailable (http 500): "
                      "dose forms from offline RxNorm 2025-10-06");
}

const char* kTenDrugs[] = {"sertraline", "lisinopril", "metformin",  "ibuprofen", "lorazepam",
                           "bupropion",  "trazodone",  "quetiapine", "prazosin",  "methotrexate"};

TEST_F(LiveValidatorTest, BreakerStopsCallingAFailingUpstream) {
  server_->SetMode("500", "ok");
  int before = RxnavRequests();
  auto validator = Make();
  std::vector<Validation> vs;
  for (const char* drug : kTenDrugs) vs.push_back(validator->Validate(drug, std::nullopt));
  EXPECT_EQ(RxnavRequests() - before, 3) << "threshold 3: ten drugs, three attempts";
  EXPECT_EQ(validator->stats().rxnav_requests, 3);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(vs[i].found) << kTenDrugs[i];
    std::string expected = i < 3 ? "rxnav unavailable (http 500); "
                                 : "rxnav circuit open after 3 failures (last: http 500); ";
    EXPECT_EQ(vs[i].reason, expected + Offline(kTenDrugs[i]));
  }
  // after the cooldown one probe goes out; the upstream is back, so the breaker closes
  server_->SetMode("ok", "ok");
  now_ += 61'000;
  EXPECT_EQ(validator->Validate("sertaline", std::nullopt).source, "rxnav");  // not cached as an error
  EXPECT_EQ(validator->Validate("zoloft", std::nullopt).source, "rxnav");
}

TEST_F(LiveValidatorTest, BreakerWithRefusedUpstream) {
  LiveConfig c = Config();
  c.rxnav_base = "http://127.0.0.1:" + std::to_string(testing::RefusedPort()) + "/REST";
  auto validator = Make(c);
  for (const char* drug : kTenDrugs) validator->Validate(drug, std::nullopt);
  EXPECT_EQ(validator->stats().rxnav_requests, 3);
  EXPECT_EQ(validator->Validate("sertaline", std::nullopt).reason,
            "rxnav circuit open after 3 failures (last: connection refused); " + Offline("sertaline"));
}

TEST_F(LiveValidatorTest, SilentUpstreamCostsOneTimeoutPerNote) {
  FakeUpstream silent({.silent = true, .lifetime_s = 30});
  LiveConfig c = Config();
  c.rxnav_base = silent.rxnav_url();
  c.openfda_base = silent.openfda_url();
  auto validator = Make(c);
  auto start = std::chrono::steady_clock::now();
  std::vector<Validation> vs;
  for (const char* drug : kTenDrugs) vs.push_back(validator->Validate(drug, std::nullopt));
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, Ms(3000)) << "ten drugs, one 0.7 s timeout (ten would take 7 s)";
  EXPECT_EQ(validator->stats().rxnav_requests, 1);
  EXPECT_EQ(validator->stats().openfda_requests, 0) << "openFDA only enriches RxNav matches";
  EXPECT_EQ(vs[0].reason, "rxnav unreachable (timeout after 0.7 s); " + Offline(kTenDrugs[0]));
  EXPECT_EQ(vs[9].reason,
            "rxnav circuit open after 1 failure (last: timeout after 0.7 s); " + Offline(kTenDrugs[9]));
}

TEST_F(LiveValidatorTest, RateLimitKeepsRxnavAtTwentyRequestsPerSecond) {
  auto validator = Make();  // rxnav_rate 20, burst 1
  json before = server_->Stats();
  size_t first = before["log"].size();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 30; ++i) validator->Validate("unknownterm" + std::to_string(i), std::nullopt);
  auto elapsed = std::chrono::steady_clock::now() - start;
  std::vector<double> times;
  json log = server_->Stats()["log"];
  for (size_t i = first; i < log.size(); ++i)
    if (log[i][1].get<std::string>().rfind("/REST/", 0) == 0) times.push_back(log[i][0].get<double>());
  ASSERT_EQ(times.size(), 31u) << "30 approximateTerm + 1 version";
  EXPECT_GE(elapsed, Ms(30 * 50 - 10));
  // as the server saw them (allowing 50 ms of scheduling jitter): never 21 within a second
  for (size_t i = 0; i + 20 < times.size(); ++i) EXPECT_GE(times[i + 20] - times[i], 0.95) << i;
}

TEST_F(LiveValidatorTest, RequestBudgetPerNoteThenOffline) {
  LiveConfig c = Config();
  c.note_budget_requests = 2;
  auto validator = Make(c);
  int before = RxnavRequests();
  Validation v = validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(RxnavRequests() - before, 2) << "approximateTerm and version.json; properties would be the third";
  EXPECT_EQ(v.source, "local");
  EXPECT_EQ(v.reason, "rxnav not asked: live-validation budget spent (2 upstream requests per note); " +
                          Offline("sertraline"));
  EXPECT_EQ(validator->Validate("lisinopril", std::nullopt).reason,
            "rxnav not asked: live-validation budget spent (2 upstream requests per note); " + Offline("lisinopril"));
  EXPECT_EQ(validator->stats().over_budget, 2);
  // a new note: the budget is back, and what was already read costs nothing
  validator->BeginNote();
  before = RxnavRequests();
  v = validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(RxnavRequests() - before, 1) << "properties; approximateTerm came from memory";
  EXPECT_EQ(validator->stats().openfda_requests, 1);
  EXPECT_EQ(v.source, "rxnav");
  EXPECT_EQ(v.reason, std::string("rxnav: rank-1 match sertraline (36437); ") + kSertralineFda);
  // a budget of none: cache and offline only
  c.note_budget_requests = 0;
  EXPECT_EQ(Make(c)->Validate("zoloft", std::nullopt).reason,
            "rxnav not asked: live-validation budget spent (0 upstream requests per note); " + Offline("zoloft"));
}

TEST_F(LiveValidatorTest, TimeBudgetPerNoteCutsARequestShortWithoutBlamingTheUpstream) {
  server_->SetMode("slow", "ok");
  LiveConfig c = Config();
  c.note_budget_ms = 400;  // below the 0.7 s request timeout
  auto validator = Make(c);
  auto start = std::chrono::steady_clock::now();
  Validation v = validator->Validate("sertaline", std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, Ms(650)) << "cut at the budget, not the request timeout";
  EXPECT_EQ(v.reason, "rxnav unreachable (no answer before the live-validation budget of 0.4 s per note ran out); " +
                          Offline("sertaline"));
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(validator->Validate("zoloft", std::nullopt).reason,
            "rxnav not asked: live-validation budget spent (0.4 s per note); " + Offline("zoloft"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, Ms(50));
  // the cut request did not open the breaker: the next note asks RxNav again
  server_->SetMode("ok", "ok");
  validator->BeginNote();
  EXPECT_EQ(validator->Validate("sertraline", std::nullopt).source, "rxnav");
}

TEST_F(LiveValidatorTest, VersionsRecordWhatWasUsed) {
  auto validator = Make();
  json before = validator->Versions();
  EXPECT_EQ(before["rxnav"], nullptr);
  EXPECT_EQ(before["openfda"], nullptr);
  EXPECT_EQ(before["offline_release"], "2025-10-06");
  validator->Validate("sertraline", std::nullopt);
  json after = validator->Versions();
  EXPECT_EQ(after["rxnav"], "03-Dec-2018");
  EXPECT_EQ(after["openfda"], "2020-05-01");
  EXPECT_EQ(after["offline"], DefaultTerminology().version());
}

TEST_F(LiveValidatorTest, EmptyTermNeverCallsOut) {
  auto validator = Make();
  auto v = validator->Validate("  ", std::nullopt);
  EXPECT_FALSE(v.found);
  EXPECT_EQ(validator->stats().rxnav_requests, 0);
}

// --- cache lifetimes, on the SQLite store, with the injected clock ---------------------------

struct Db {
  Db() {
    sqlite3_open(":memory:", &db);
    sql::Migrate(db);
  }
  ~Db() { sqlite3_close(db); }
  int Count(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    int n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
    sqlite3_finalize(s);
    return n;
  }
  std::string Text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    std::string out = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)
                          ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "";
    sqlite3_finalize(s);
    return out;
  }
  sqlite3* db = nullptr;
};

TEST_F(LiveValidatorTest, CacheFreshThenExpiredThenRefreshed) {
  Db db;
  auto validator = Make(Config(), std::make_unique<sql::SqliteDrugCache>(db.db));
  auto v = validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(v.source, "rxnav");
  LiveStats cold = validator->stats();
  EXPECT_EQ(cold.rxnav_requests, 3);  // approximateTerm, version, properties
  EXPECT_EQ(cold.openfda_requests, 1);
  EXPECT_EQ(db.Count("SELECT count(*) FROM drug_cache"), 4);
  EXPECT_EQ(db.Count("SELECT count(*) FROM drug_cache WHERE source = 'rxnav'"), 3);
  EXPECT_EQ(db.Count("SELECT count(*) FROM drug_cache WHERE source = 'openfda'"), 1);
  EXPECT_EQ(db.Text("SELECT expires_at FROM drug_cache WHERE key = 'rxnav:approximateTerm:sertraline'"),
            "2026-12-06T10:00:00.000Z");

  now_ = kT0 + kHour;  // fresh: no request at all
  v = validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(v.source, "cache");
  EXPECT_EQ(v.rxcui, "36437");
  EXPECT_EQ(v.routes, std::vector<std::string>{"ORAL"});
  EXPECT_EQ(v.reason, "cache (rxnav, fetched 2026-11-29T10:00:00Z): rank-1 match sertraline (36437); "
                      "cache (openfda, fetched 2026-11-29T10:00:00Z): 2 NDC products for sertraline "
                      "(2 dosage forms; routes: ORAL)");
  EXPECT_EQ(validator->stats().rxnav_requests, cold.rxnav_requests);
  EXPECT_EQ(validator->stats().openfda_requests, cold.openfda_requests);

  now_ = kT0 + 8 * kDay;  // expired: refreshed on use, in place
  v = validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(v.source, "rxnav");
  EXPECT_EQ(v.reason, std::string("rxnav: rank-1 match sertraline (36437); ") + kSertralineFda);
  EXPECT_EQ(validator->stats().rxnav_requests, cold.rxnav_requests + 3);
  EXPECT_EQ(db.Count("SELECT count(*) FROM drug_cache"), 4) << "UPSERT: refreshed rows, no duplicates";
  EXPECT_EQ(db.Text("SELECT fetched_at FROM drug_cache WHERE key = 'rxnav:properties:36437'"),
            "2026-12-07T10:00:00.000Z");
}

// A validation as results publish it.
std::string Published(const Validation& v) {
  std::string out;
  JsonWriter w(out);
  v.Write(w);
  return out;
}

// A validation made from cached answers alone is remembered until the first of them expires:
// the same fields and reason, the same cache hits counted, the same versions reported.
TEST_F(LiveValidatorTest, RememberedValidationIsWhatTheCachedRowsGive) {
  Db db;
  auto validator = Make(Config(), std::make_unique<sql::SqliteDrugCache>(db.db));
  validator->Validate("Zoloft", std::nullopt);  // brand: approximateTerm, version, properties, related, openFDA
  EXPECT_EQ(validator->stats().rxnav_requests, 4);
  now_ = kT0 + kHour;
  auto hits = [&] { return validator->stats().cache_hits; };
  int before = hits();
  Validation first = validator->Validate("Zoloft", std::nullopt);  // read from the rows
  int per_lookup = hits() - before;
  EXPECT_EQ(per_lookup, 4);
  EXPECT_EQ(first.source, "cache");
  json versions = validator->Versions();
  // The rows change under the validator (as only an expired row may): it keeps its answer.
  ASSERT_EQ(sqlite3_exec(db.db, "UPDATE drug_cache SET response = '{}'", nullptr, nullptr, nullptr), SQLITE_OK);
  for (int i = 0; i < 3; ++i) {
    Validation again = validator->Validate("Zoloft", std::nullopt);
    EXPECT_EQ(Published(again), Published(first));
    EXPECT_EQ(hits() - before, per_lookup * (i + 2));
  }
  EXPECT_EQ(validator->Versions(), versions);
  EXPECT_EQ(validator->stats().rxnav_requests, 4);  // the cold lookup's only
  // Another offline match given with the term is another validation.
  Validation with_local = validator->Validate("Zoloft", DefaultTerminology().Lookup("Zoloft"));
  EXPECT_EQ(with_local.source, "cache");
}

TEST_F(LiveValidatorTest, NegativeAnswersLiveShorter) {
  Db db;
  auto validator = Make(Config(), std::make_unique<sql::SqliteDrugCache>(db.db));
  validator->Validate("zzzqqq", std::nullopt);
  validator->Validate("sertraline", std::nullopt);
  EXPECT_EQ(db.Text("SELECT status FROM drug_cache WHERE key = 'rxnav:approximateTerm:zzzqqq'"), "not_found");
  EXPECT_EQ(db.Text("SELECT expires_at FROM drug_cache WHERE key = 'rxnav:approximateTerm:zzzqqq'"),
            "2026-11-30T10:00:00.000Z");
  int requests = validator->stats().rxnav_requests;

  now_ = kT0 + 12 * kHour;  // both fresh
  EXPECT_EQ(validator->Validate("zzzqqq", std::nullopt).reason,
            "cache (rxnav, fetched 2026-11-29T10:00:00Z): no candidate for \"zzzqqq\"; " + Offline("zzzqqq"));
  EXPECT_EQ(validator->stats().rxnav_requests, requests);

  now_ = kT0 + 2 * kDay;  // the miss expired (1 day), the answer did not (7 days)
  EXPECT_EQ(validator->Validate("zzzqqq", std::nullopt).reason, "rxnav: no candidate for \"zzzqqq\"; " + Offline("zzzqqq"));
  EXPECT_EQ(validator->stats().rxnav_requests, requests + 2) << "approximateTerm, and the RxNorm version (1 day)";
  EXPECT_EQ(validator->Validate("sertraline", std::nullopt).source, "cache");
  EXPECT_EQ(validator->stats().rxnav_requests, requests + 2);
}

TEST_F(LiveValidatorTest, ErrorsAreCachedBriefly) {
  Db db;
  auto validator = Make(Config(), std::make_unique<sql::SqliteDrugCache>(db.db));
  server_->SetMode("500", "ok");
  validator->Validate("lisinopril", std::nullopt);
  EXPECT_EQ(db.Text("SELECT status || ' ' || http_status || ' ' || expires_at FROM drug_cache"),
            "error 500 2026-11-29T10:10:00.000Z");
  server_->SetMode("ok", "ok");

  now_ = kT0 + 5 * 60'000;
  EXPECT_EQ(validator->Validate("lisinopril", std::nullopt).reason,
            "cache (rxnav, fetched 2026-11-29T10:00:00Z): rxnav unavailable (http 500); " + Offline("lisinopril"));
  EXPECT_EQ(validator->stats().rxnav_requests, 1);

  now_ = kT0 + 11 * 60'000;
  EXPECT_EQ(validator->Validate("lisinopril", std::nullopt).reason,
            "rxnav: no candidate for \"lisinopril\"; " + Offline("lisinopril"));
  EXPECT_EQ(db.Count("SELECT count(*) FROM drug_cache WHERE key = 'rxnav:approximateTerm:lisinopril'"), 1);
  EXPECT_EQ(db.Text("SELECT status FROM drug_cache WHERE key = 'rxnav:approximateTerm:lisinopril'"), "not_found");
}

}  // namespace
}  // namespace scribe
