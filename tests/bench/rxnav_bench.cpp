// rxnav_bench.cpp — what live validation costs a whole-note grade, per upstream condition.
//
//   make -C build rxnav_bench && build/rxnav_bench        (run from the repository root)
//
// The note names ten drugs (one expected, nine unsupported: ten validations). Conditions:
//   offline             SCRIBE_OFFLINE=1, a connection that has graded before
//   offline_first_note  SCRIBE_OFFLINE=1, a new connection's first grade (prepares the trial)
//   warm_cache          fake upstream, every answer already cached
//   cold_upstream       fake upstream, a new connection and an empty cache (RxNav paced at 20/s)
//   silent_cold         upstream accepts and never answers; new connection, breaker closed
//   silent_open         the same, later notes (breaker already open)
//   refused_cold        nothing listens; new connection, breaker closed
//   refused_open        the same, later notes
// The *_cold and first-note rows include preparing the trial; compare them with
// offline_first_note, the others with offline.
// Production timeouts (connect 2 s, total 5 s) unless SCRIBE_HTTP_* say otherwise.
//
// Under callgrind, instrumentation is on only around the offline and warm_cache grades after the
// first of each loop (the steady state), and the number of grades it counted is printed at exit:
//   valgrind --tool=callgrind --instr-atstart=no build/tests/rxnav/rxnav_bench \
//     --benchmark_filter='^warm_cache$' --benchmark_min_time=1      # then: I refs / grades
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "callgrind_marks.h"
#include "fake_upstream.h"
#include "rxnav.h"

extern "C" int sqlite3_scribe_init(sqlite3* db, char** pzErrMsg, const sqlite3_api_routines* pApi);

namespace {

using scribe::testing::FakeUpstream;

// Grades counted under callgrind (SteadyGrades), reported at exit.
int g_instrumented = 0;
const int kReportInstrumented = std::atexit([] {
  if (RUNNING_ON_VALGRIND) std::fprintf(stderr, "rxnav_bench: %d grades instrumented\n", g_instrumented);
});

const char* kNote =
    "Patient on sertaline 50mg daily. Also takes lisinopril 10 mg daily, metformin 500 mg twice daily, "
    "ibuprofen 400 mg as needed, lorazepam 1 mg at bedtime, bupropion 150 mg daily, trazodone 50 mg at bedtime, "
    "quetiapine 25 mg nightly, prazosin 1 mg nightly and methotrexate 15 mg weekly. Reports insomnia. No SI.";

class Db {
 public:
  Db(const std::string& rxnav, const std::string& openfda, bool offline) {
    for (const char* k : {"SCRIBE_OFFLINE", "SCRIBE_RXNAV_URL", "SCRIBE_OPENFDA_URL"}) unsetenv(k);
    setenv("SCRIBE_RATE_DIR", "off", 1);  // per-process limiter: no state file left in /tmp
    if (offline) setenv("SCRIBE_OFFLINE", "1", 1);
    if (!rxnav.empty()) setenv("SCRIBE_RXNAV_URL", rxnav.c_str(), 1);
    if (!openfda.empty()) setenv("SCRIBE_OPENFDA_URL", openfda.c_str(), 1);
    sqlite3_open(":memory:", &db_);
    char* err = nullptr;
    if (sqlite3_scribe_init(db_, &err, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "init: %s\n", err ? err : "?");
      std::abort();
    }
    Exec("SELECT scribe_load_corpus('corpus/scripts')");
    sqlite3_prepare_v2(db_, "SELECT grade_submission('03-depression-suicidal-ideation', ?1)", -1, &grade_, nullptr);
    sqlite3_bind_text(grade_, 1, kNote, -1, SQLITE_STATIC);
  }
  ~Db() {
    sqlite3_finalize(grade_);
    sqlite3_close(db_);
  }
  // One whole-note grade; returns the validations whose source is not "local"/"none".
  std::string Grade() {
    sqlite3_reset(grade_);
    if (sqlite3_step(grade_) != SQLITE_ROW) std::abort();
    return reinterpret_cast<const char*>(sqlite3_column_text(grade_, 0));
  }
  void Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::fprintf(stderr, "%s: %s\n", sql, err);
      std::abort();
    }
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* grade_ = nullptr;
};

// The benchmark loop; under callgrind every grade but the loop's first is counted.
void SteadyGrades(benchmark::State& state, Db& db) {
  bool first = true;
  for (auto _ : state) {
    if (!first) CALLGRIND_START_INSTRUMENTATION;
    benchmark::DoNotOptimize(db.Grade());
    if (!first) {
      CALLGRIND_STOP_INSTRUMENTATION;
      ++g_instrumented;
    }
    first = false;
  }
}

void Offline(benchmark::State& state) {
  Db db("", "", true);
  db.Grade();  // the connection's first grade prepares the trial
  SteadyGrades(state, db);
}

void WarmCache(benchmark::State& state) {
  FakeUpstream server;
  scribe::ResetSharedUpstreamGuards();
  Db db(server.rxnav_url(), server.openfda_url(), false);
  db.Grade();  // fills drug_cache
  int before = server.Stats()["rxnav"].get<int>();
  SteadyGrades(state, db);
  state.counters["rxnav_requests"] = server.Stats()["rxnav"].get<int>() - before;
}

// The first note on a new connection (empty in-memory drug_cache, closed breaker): includes
// preparing the trial, which offline_first_note measures alone.
void FirstNote(benchmark::State& state, const std::string& rxnav, const std::string& openfda, bool offline) {
  std::unique_ptr<Db> db;
  for (auto _ : state) {
    state.PauseTiming();
    db.reset();
    scribe::ResetSharedUpstreamGuards();
    db = std::make_unique<Db>(rxnav, openfda, offline);
    state.ResumeTiming();
    benchmark::DoNotOptimize(db->Grade());
  }
}

// Later notes on a connection whose breaker the first note opened (within the cooldown).
void LaterNotes(benchmark::State& state, const std::string& rxnav, const std::string& openfda) {
  scribe::ResetSharedUpstreamGuards();
  Db db(rxnav, openfda, false);
  db.Grade();
  for (auto _ : state) benchmark::DoNotOptimize(db.Grade());
}

std::string RefusedBase() { return "http://127.0.0.1:" + std::to_string(scribe::testing::RefusedPort()); }

void OfflineFirstNote(benchmark::State& state) { FirstNote(state, "", "", true); }
void ColdUpstream(benchmark::State& state) {
  FakeUpstream server;
  int before = server.Stats()["rxnav"].get<int>();
  FirstNote(state, server.rxnav_url(), server.openfda_url(), false);
  state.counters["rxnav_requests_per_note"] =
      static_cast<double>(server.Stats()["rxnav"].get<int>() - before) / static_cast<double>(state.iterations());
}
void SilentCold(benchmark::State& state) {
  FakeUpstream silent({.silent = true, .lifetime_s = 600});
  FirstNote(state, silent.rxnav_url(), silent.openfda_url(), false);
}
void SilentOpen(benchmark::State& state) {
  FakeUpstream silent({.silent = true, .lifetime_s = 600});
  LaterNotes(state, silent.rxnav_url(), silent.openfda_url());
}
void RefusedCold(benchmark::State& state) {
  std::string base = RefusedBase();
  FirstNote(state, base + "/REST", base, false);
}
void RefusedOpen(benchmark::State& state) {
  std::string base = RefusedBase();
  LaterNotes(state, base + "/REST", base);
}

BENCHMARK(Offline)->Name("offline")->Unit(benchmark::kMillisecond);
BENCHMARK(OfflineFirstNote)->Name("offline_first_note")->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(WarmCache)->Name("warm_cache")->Unit(benchmark::kMillisecond);
BENCHMARK(ColdUpstream)->Name("cold_upstream")->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(SilentCold)->Name("silent_cold")->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(SilentOpen)->Name("silent_open")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(RefusedCold)->Name("refused_cold")->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(RefusedOpen)->Name("refused_open")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
