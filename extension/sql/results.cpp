// results.cpp — versioned grades, vendor identity and clinician review, as SQL.
//
//   SELECT scribe_vendor_key('  Careful  SCRIBE ');                -- 'careful scribe'
//   SELECT scribe_sha256('text');                                    -- hex digest
//   SELECT scribe_public_result(result) FROM grades;                 -- what the API may show
//   SELECT scribe_json(result) FROM submissions;                     -- json(result), compact text as is
//   SELECT scribe_suite_interval(script_id, score_total, 10, vendor_key) FROM counted_runs
//     GROUP BY vendor_key;                                           -- {"score","low","high",…}
//   SELECT scribe_kappa(grader_label, reviewer_label) FROM reviews;  -- Cohen's kappa
//   SELECT scribe_regrade();                                         -- every stored note, current versions
//   SELECT scribe_refresh_standings();                               -- {"recomputed", "listed", "full", …}
//   SELECT scribe_review('3f9c…', 'critical_error', 'contradicted_flag:23', 'dr-lee', 'agree', 'clear miss');
//
// scribe_regrade() grades, under the loaded grader and corpus, every stored submission that has
// no grade under them yet, and inserts the grades in batches of 1,000 (then refreshes the
// standings once), each in its own
// transaction on a second connection to the same file (so readers and submitters interleave), or
// in the caller's transaction when there is no file or the caller holds one. It is idempotent: a
// second call finds nothing to do. Offline (SCRIBE_OFFLINE=1) each batch is graded on every
// core (up to 8 threads) while the batch before it is stored, in order; a live validator grades
// on the caller's thread, since it reads and writes drug_cache through the connection. It reports {"submissions", "graded", "already_current",
// "unknown_trial", "batches", "grader_version", "corpus_hash"}.
//
// scribe_refresh_standings() brings the standings table (sql/schema.sql, migrate 6) up to date in
// the caller's transaction: the vendors in standings_dirty are recomputed from vendor_standings,
// or every vendor when the table holds other versions than the current ones. The submit
// endpoint, scribe_review(), scribe_regrade() (at its end) and scribe_load_corpus() call it before
// they commit; an analyst who writes by hand may call it (until then the leaderboard computes the
// changed vendors live).
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "compact_json.h"
#include "functions.h"
#include "grade.h"
#include "result_columns.h"
#include "hash.h"
#include "rxnav.h"
#include "sqlite_util.h"
#include "stats.h"
#include "text.h"
#include "store.h"
#include "vendor.h"

namespace scribe::sql {
namespace {

using nlohmann::json;

std::string Text(sqlite3_value* v) {
  const unsigned char* t = sqlite3_value_text(v);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_value_bytes(v))) : std::string();
}

void ResultText(sqlite3_context* ctx, const std::string& s) {
  sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

void ResultJsonValue(sqlite3_context* ctx, const json& j) {
  ResultText(ctx, DumpJson(j));
  sqlite3_result_subtype(ctx, 'J');
}

Connection& Conn(sqlite3_context* ctx) { return *static_cast<Connection*>(sqlite3_user_data(ctx)); }

// ---- aggregates

struct SuiteState {
  std::map<std::string, std::vector<double>>* runs;
  sqlite3_int64 suite;
  std::string seed;
};

void SuiteStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** state = static_cast<SuiteState**>(sqlite3_aggregate_context(ctx, sizeof(SuiteState*)));
  if (!state) { sqlite3_result_error_nomem(ctx); return; }
  Firewall(ctx, [&] {
    if (!*state) *state = new SuiteState{new std::map<std::string, std::vector<double>>(), 0, ""};
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
    (*(*state)->runs)[Text(argv[0])].push_back(sqlite3_value_double(argv[1]));
    (*state)->suite = sqlite3_value_int64(argv[2]);
    (*state)->seed = Text(argv[3]);
  });
}

void SuiteFinal(sqlite3_context* ctx) {
  auto** state = static_cast<SuiteState**>(sqlite3_aggregate_context(ctx, 0));
  if (!state || !*state) { sqlite3_result_null(ctx); return; }
  Firewall(ctx, [&] {
    const auto& runs = *(*state)->runs;
    size_t suite = static_cast<size_t>(std::max<sqlite3_int64>((*state)->suite, 0));
    if (suite < runs.size()) throw SqlError(SQLITE_ERROR, "scribe_suite_interval: more trials run than the suite has");
    Interval ci = RememberedSuiteInterval(runs, suite, StableSeed((*state)->seed));
    ResultJsonValue(ctx, {{"score", SuiteScore(runs, suite)}, {"low", ci.low}, {"high", ci.high},
                          {"trials_run", runs.size()}, {"suite_trials", suite}, {"replicates", 2000}});
  });
  delete (*state)->runs;
  delete *state;
}

void KappaStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** pairs = static_cast<std::vector<std::pair<std::string, std::string>>**>(sqlite3_aggregate_context(ctx, sizeof(void*)));
  if (!pairs) { sqlite3_result_error_nomem(ctx); return; }
  Firewall(ctx, [&] {
    if (!*pairs) *pairs = new std::vector<std::pair<std::string, std::string>>();
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
    (*pairs)->emplace_back(Text(argv[0]), Text(argv[1]));
  });
}

void KappaFinal(sqlite3_context* ctx) {
  auto** pairs = static_cast<std::vector<std::pair<std::string, std::string>>**>(sqlite3_aggregate_context(ctx, 0));
  if (!pairs || !*pairs) { sqlite3_result_null(ctx); return; }
  auto kappa = CohensKappa(**pairs);
  if (kappa) sqlite3_result_double(ctx, *kappa);
  else sqlite3_result_null(ctx);
  delete *pairs;
}

// ---- review targets

struct Target {
  std::string label;                      // what the grader said
  std::vector<std::string> alternatives;  // labels a clinician may give instead (empty: binary)
};

// Finds the reviewed thing in a result by its key.
std::optional<Target> FindTarget(const json& result, const std::string& type, const std::string& key) {
  auto each = [&](const json& list, auto&& fn) -> std::optional<Target> {
    if (!list.is_array()) return std::nullopt;
    for (const json& e : list)
      if (e.is_object() && e.value("key", std::string()) == key) return fn(e);
    return std::nullopt;
  };
  if (type == "critical_error")
    return each(result.value("critical_errors", json::array()), [](const json&) { return Target{"error", {}}; });
  if (type == "deduction") {
    if (result.contains("rubric"))
      if (auto t = each(result["rubric"]["deductions"], [](const json& d) { return Target{d.value("severity", ""), {}}; })) return t;
    return each(result.value("unsupported_drugs", json::array()), [](const json& d) { return Target{d.value("kind", ""), {}}; });
  }
  if (type == "item") {
    if (result.contains("rubric"))
      if (auto t = each(result["rubric"]["items"], [](const json& i) {
            return Target{i.value("credit", ""), {"full", "partial", "absent", "incorrect"}};
          }))
        return t;
    for (const char* list : {"meds", "mental_flags", "allergies"})
      if (auto t = each(result.value(list, json::array()), [&](const json& i) {
            std::vector<std::string> alt = std::string(list) == "meds"
                                               ? std::vector<std::string>{"correct", "partial", "missing"}
                                               : std::vector<std::string>{"captured", "missed", "contradicted"};
            return Target{i.value("status", ""), alt};
          }))
        return t;
    for (const char* list : {"fabrication_traps", "deferred_dx"})
      if (auto t = each(result.value(list, json::array()), [&](const json& i) {
            bool fired = i.value(std::string(list) == "deferred_dx" ? "asserted" : "triggered", false);
            return Target{fired ? "triggered" : "not triggered", {}};
          }))
        return t;
  }
  return std::nullopt;
}

std::string Now(sqlite3* db) {
  Stmt s = Prepare(db, "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
  sqlite3_step(s.get());
  return ColumnText(s.get(), 0);
}

}  // namespace

void ScribeVendorKey(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    ResultText(ctx, VendorKey(Text(argv[0])));
  });
}

void ScribeSha256(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    ResultText(ctx, Sha256Hex(Text(argv[0])));
  });
}

void ScribePublicResult(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    std::string shown;
    try {
      shown = PublicResultText(Text(argv[0]));
    } catch (const std::invalid_argument& e) {
      throw SqlError(SQLITE_ERROR, std::string("scribe_public_result: ") + e.what());
    }
    ResultText(ctx, shown);
    sqlite3_result_subtype(ctx, 'J');
  });
}

void ScribeJson(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    sqlite3_value* v = argv[0];
    if (sqlite3_value_type(v) == SQLITE_TEXT) {
      const char* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
      if (text && IsCompactJson(std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(v))))) {
        sqlite3_result_value(ctx, v);  // json() would copy every token of it as written
        sqlite3_result_subtype(ctx, 'J');
        return;
      }
    }
    // Anything else is json()'s to check and render, with its own answer or error.
    sqlite3* db = sqlite3_context_db_handle(ctx);
    Stmt s = Prepare(db, "SELECT json(?1)");
    sqlite3_bind_value(s.get(), 1, v);
    if (sqlite3_step(s.get()) != SQLITE_ROW) throw SqlError(SQLITE_ERROR, sqlite3_errmsg(db));
    sqlite3_result_value(ctx, sqlite3_column_value(s.get(), 0));
    if (sqlite3_column_type(s.get(), 0) != SQLITE_NULL) sqlite3_result_subtype(ctx, 'J');
  });
}

void RegisterMigrationFunctions(sqlite3* db) {
  constexpr int kPure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = sqlite3_create_function_v2(db, "scribe_vendor_key", 1, kPure, nullptr, ScribeVendorKey, nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "scribe_sha256", 1, kPure, nullptr, ScribeSha256, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw SqlError(rc, std::string("cannot register the migration functions: ") + sqlite3_errstr(rc));
}

void RegisterAggregates(sqlite3* db, int& rc) {
  constexpr int kPure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  rc = sqlite3_create_function_v2(db, "scribe_suite_interval", 4, kPure, nullptr, nullptr, SuiteStep, SuiteFinal, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "scribe_kappa", 2, kPure, nullptr, nullptr, KappaStep, KappaFinal, nullptr);
}

// ---- standings

// Runs `sql` on db: a statement kept in `cache` when there is one (reset and unbound after
// use), else prepared for this call. Calls `row` for each row.
template <class Row>
void Run(sqlite3* db, Connection* cache, const char* sql, Row&& row) {
  auto steps = [&](sqlite3_stmt* s) {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) row(s);
    if (rc != SQLITE_DONE) throw SqlError(rc, sqlite3_errmsg(db));
  };
  if (cache) {
    KeptUse kept(db, cache->statements, sql);
    steps(kept.get());
  } else {
    steps(Prepare(db, sql).get());
  }
}

// The standings refresh. With `cache` (the calling connection's state) its statements are
// prepared once per connection: the submit endpoint refreshes once per committed batch.
static json Refresh(sqlite3* db, Connection* cache = nullptr) {
  auto scalar = [&](const char* sql) {
    std::optional<json> value;
    Run(db, cache, sql, [&](sqlite3_stmt* s) {
      if (!value) value = sqlite3_column_type(s, 0) == SQLITE_NULL ? json(nullptr) : json(ColumnText(s, 0));
    });
    if (!value) throw SqlError(SQLITE_ERROR, std::string("no row from: ") + sql);
    return *value;
  };
  auto exec = [&](const char* sql) { Run(db, cache, sql, [](sqlite3_stmt*) {}); };
  json versions = scalar("SELECT versions FROM standings_versions");
  const bool full = scalar("SELECT fresh FROM standings_versions") != "1";
  const sqlite3_int64 dirty = std::stoll(scalar("SELECT count(*) FROM standings_dirty").get<std::string>());
  if (!full && dirty == 0) return {{"full", false}, {"dirty", 0}, {"recomputed", 0}, {"versions", versions}};
  // Out of scope first (the scope view reads standings_dirty and meta, so they change last).
  exec(full ? "DELETE FROM standings" : "DELETE FROM standings WHERE vendor_key IN (SELECT vendor_key FROM standings_dirty)");
  exec("INSERT INTO standings SELECT * FROM standings_recomputed");
  const sqlite3_int64 recomputed = sqlite3_changes64(db);
  exec("DELETE FROM standings_dirty");
  if (full) {
    Stmt m = Prepare(db, versions.is_null() ? "DELETE FROM meta WHERE key = 'standings_for'"
                                            : "INSERT INTO meta (key, value) VALUES ('standings_for', ?1) "
                                              "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    if (!versions.is_null()) BindText(m.get(), 1, versions.get<std::string>());
    Step(db, m.get());
  }
  return {{"full", full}, {"dirty", dirty}, {"recomputed", recomputed}, {"versions", versions}};
}

void RefreshStandings(sqlite3* db) { Refresh(db); }

void ScribeRefreshStandings(sqlite3_context* ctx, int, sqlite3_value**) {
  Firewall(ctx, [&] { ResultJsonValue(ctx, Refresh(sqlite3_context_db_handle(ctx), &Conn(ctx))); });
}

void ScribeReview(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    for (int i = 0; i < 5; ++i)
      if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
        throw SqlError(SQLITE_ERROR, "scribe_review: submission_id, target_type, target_key, reviewer and verdict must not be NULL");
    std::string id = Text(argv[0]), type = Text(argv[1]), key = Text(argv[2]), reviewer = Text(argv[3]), verdict = Text(argv[4]);
    std::string comment = argc > 5 ? Text(argv[5]) : "";
    std::string label = argc > 6 && sqlite3_value_type(argv[6]) != SQLITE_NULL ? Text(argv[6]) : "";
    if (type != "item" && type != "critical_error" && type != "deduction")
      throw SqlError(SQLITE_ERROR, "scribe_review: target_type must be item, critical_error or deduction, got '" + type + "'");
    if (verdict != "agree" && verdict != "disagree")
      throw SqlError(SQLITE_ERROR, "scribe_review: verdict must be agree or disagree, got '" + verdict + "'");
    if (Trim(reviewer).empty()) throw SqlError(SQLITE_ERROR, "scribe_review: reviewer must not be empty");
    // The grade under review: the current one, else the latest.
    Stmt g = Prepare(db,
        "SELECT g.grader_version, g.result FROM grades g LEFT JOIN current_versions v "
        "ON g.grader_version = v.grader_version AND g.corpus_hash = v.corpus_hash "
        "WHERE g.submission_id = ?1 ORDER BY v.grader_version IS NULL, g.graded_at DESC LIMIT 1");
    BindText(g.get(), 1, id);
    if (sqlite3_step(g.get()) != SQLITE_ROW) throw SqlError(SQLITE_ERROR, "scribe_review: unknown submission '" + id + "'");
    std::string grader_version = ColumnText(g.get(), 0);
    json result = json::parse(ColumnText(g.get(), 1), nullptr, false);
    auto target = result.is_discarded() ? std::nullopt : FindTarget(result, type, key);
    if (!target) throw SqlError(SQLITE_ERROR, "scribe_review: submission '" + id + "' has no " + type + " '" + key + "'");
    std::string reviewer_label = target->label;
    if (verdict == "disagree") {
      if (target->alternatives.empty()) {
        reviewer_label = type == "critical_error" ? "no error" : type == "deduction" ? "no deduction" : "not " + target->label;
      } else {
        if (label.empty() || label == target->label ||
            std::find(target->alternatives.begin(), target->alternatives.end(), label) == target->alternatives.end()) {
          std::string list;
          for (const auto& a : target->alternatives)
            if (a != target->label) list += (list.empty() ? "" : ", ") + a;
          throw SqlError(SQLITE_ERROR, "scribe_review: disagreeing with \"" + target->label + "\" needs the clinician's label (" + list + ")");
        }
        reviewer_label = label;
      }
    }
    Stmt ins = Prepare(db,
        "INSERT INTO reviews (submission_id, target_type, target_key, reviewer, grader_version, grader_label, reviewer_label, "
        "verdict, comment, reviewed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
        "ON CONFLICT (submission_id, target_type, target_key, reviewer) DO UPDATE SET grader_version = excluded.grader_version, "
        "grader_label = excluded.grader_label, reviewer_label = excluded.reviewer_label, verdict = excluded.verdict, "
        "comment = excluded.comment, reviewed_at = excluded.reviewed_at");
    std::string now = Now(db);
    const std::string values[] = {id, type, key, std::string(Trim(reviewer)), grader_version, target->label, reviewer_label, verdict, comment, now};
    for (int i = 0; i < 10; ++i) BindText(ins.get(), i + 1, values[i]);
    Step(db, ins.get());
    RefreshStandings(db);
    ResultJsonValue(ctx, {{"submission_id", id}, {"target_type", type}, {"target_key", key}, {"reviewer", values[3]},
                          {"grader_version", grader_version}, {"grader_label", target->label},
                          {"reviewer_label", reviewer_label}, {"verdict", verdict}, {"comment", comment}, {"reviewed_at", now}});
  });
}

void ScribeRegrade(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    Connection& conn = Conn(ctx);
    const int batch = argc > 0 && sqlite3_value_type(argv[0]) != SQLITE_NULL ? sqlite3_value_int(argv[0]) : 1000;
    if (batch < 1) throw SqlError(SQLITE_ERROR, "scribe_regrade: the batch size must be at least 1");
    std::string corpus_hash;
    {
      Stmt c = Prepare(db, "SELECT corpus_hash FROM trials LIMIT 1");
      if (sqlite3_step(c.get()) != SQLITE_ROW) throw SqlError(SQLITE_ERROR, "scribe_regrade: no corpus is loaded");
      corpus_hash = ColumnText(c.get(), 0);
    }
    const std::string grader_version = DefaultRules().grader_version;
    // Writes go to a second connection to the same file, a batch per transaction; without a file,
    // or inside the caller's own transaction, they go to the caller's connection.
    const char* file = sqlite3_db_filename(db, "main");
    sqlite3* writer = db;
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> own(nullptr, sqlite3_close);
    if (file && *file && sqlite3_get_autocommit(db)) {
      sqlite3* w = nullptr;
      if (sqlite3_open_v2(file, &w, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        std::string msg = w ? sqlite3_errmsg(w) : "cannot open";
        sqlite3_close(w);
        throw SqlError(SQLITE_CANTOPEN, "scribe_regrade: " + msg);
      }
      own.reset(w);
      sqlite3_busy_timeout(w, 10000);
      // Each grade it stores probes the grades and submissions indexes, and the closing refresh
      // reads every vendor's runs from them: with SQLite's default 2 MB page cache those pages
      // were read again from the OS for every row (4.0 s of system time for 100,000 notes in
      // tests/bench/regrade_bench.sh; 2.3 s with 64 MB). The connection is closed at the end.
      if (int prc = sqlite3_exec(w, "PRAGMA cache_size = -65536", nullptr, nullptr, nullptr); prc != SQLITE_OK)
        throw SqlError(prc, std::string("scribe_regrade: cannot size its writer's page cache: ") + sqlite3_errmsg(w));
      // The standings views it refreshes call scribe_version() and scribe_suite_interval().
      if (int frc = RegisterPureFunctions(w); frc != SQLITE_OK)
        throw SqlError(frc, std::string("scribe_regrade: cannot register functions on its writer: ") + sqlite3_errstr(frc));
      writer = w;
    }
    // The ids to grade first, in order; then each note is read by its key, one short read at a
    // time. (One statement reading every note held its read transaction open for the whole
    // regrade: the writer's checkpoints could not pass that snapshot, so the WAL grew by every
    // grade written, about 1 GB for 100,000 notes, and was checkpointed at the end, serially.)
    std::vector<std::string> ids;
    {
      Stmt todo = Prepare(db,
          "SELECT s.id FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM grades g WHERE g.submission_id = s.id "
          "AND g.grader_version = ?1 AND g.corpus_hash = ?2) ORDER BY s.created_at, s.id");
      BindText(todo.get(), 1, grader_version);
      BindText(todo.get(), 2, corpus_hash);
      int rc;
      while ((rc = sqlite3_step(todo.get())) == SQLITE_ROW) ids.push_back(ColumnText(todo.get(), 0));
      if (rc != SQLITE_DONE) throw SqlError(rc, sqlite3_errmsg(db));
    }
    Stmt note = Prepare(db,
        "SELECT s.script_id, s.scribe_output, EXISTS (SELECT 1 FROM trials t WHERE t.id = s.script_id) "
        "FROM submissions s WHERE s.id = ?1");
    Stmt ins = Prepare(writer, kGradeInsertSql), ins_read = Prepare(writer, kGradeInsertReadSql);
    sqlite3_int64 graded = 0, unknown = 0, batches = 0;
    int in_batch = 0;
    // The standings are refreshed once, after the last batch (in its own transaction, which also
    // runs when nothing was graded, so a service start leaves the table current). Between batches
    // the vendors whose grades changed are dirty, and readers compute them live: the answers are
    // the same. (Refreshing per batch re-ran every touched vendor's bootstrap 100 times for
    // 100,000 notes: 418 s instead of the grading's own time, tests/bench/regrade_bench.sh.)
    auto commit_batch = [&] {
      if (writer != db) Exec(writer, "COMMIT");
    };
    auto refresh_and_commit = [&] {
      try {
        RefreshStandings(writer);
        commit_batch();
      } catch (...) {
        if (writer != db) sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
    };
    auto commit = [&] {
      if (in_batch > 0) {
        try {
          commit_batch();
        } catch (...) {
          if (writer != db) sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
          throw;
        }
        ++batches;
      }
      in_batch = 0;
    };
    // A batch is graded, then stored in order. Offline (SCRIBE_OFFLINE=1) the grades of a batch
    // run on every core, each thread with its own OfflineValidator (a prepared trial is safe to
    // share), and the batches form a pipeline: while this thread stores one batch, the next is
    // being graded, so storing (one writer) does not leave the cores idle. A live validator
    // reads and writes drug_cache through this connection, so it grades on this thread alone,
    // one batch after the other. Either way the rows written, and their order, are the same.
    struct Todo {
      std::string id, note, hash;
      std::shared_ptr<const PreparedTrial> trial;
      std::string result;
    };
    struct Batch {
      std::vector<Todo> todo;
      std::vector<std::thread> pool;
      std::vector<std::exception_ptr> errors;
      std::atomic<std::size_t> next{0};
    };
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const bool offline = LiveConfigFromEnv().offline;
    // Starts grading `b` on its own threads (offline), or grades it here (live).
    auto start_grading = [&](Batch& b) {
      const std::size_t threads = offline ? std::min<std::size_t>({cores, 8, b.todo.size()}) : 1;
      if (threads <= 1 && !offline) {
        for (Todo& t : b.todo) t.result = GradeText(*t.trial, t.note, t.hash, *conn.validator);
        return;
      }
      b.errors.assign(threads, nullptr);
      for (std::size_t k = 0; k < threads; ++k)
        b.pool.emplace_back([&b, k] {
          try {
            OfflineValidator validator(DefaultTerminology());
            for (std::size_t i; (i = b.next.fetch_add(1)) < b.todo.size();) {
              Todo& t = b.todo[i];
              t.result = GradeText(*t.trial, t.note, t.hash, validator);
            }
          } catch (...) {
            b.errors[k] = std::current_exception();
          }
        });
    };
    auto finish_grading = [&](Batch& b) {
      for (auto& t : b.pool) t.join();
      b.pool.clear();
      for (auto& e : b.errors)
        if (e) std::rethrow_exception(e);
    };
    auto store = [&](Batch& b) {
      for (const Todo& t : b.todo) {
        if (writer != db && in_batch == 0) Exec(writer, "BEGIN IMMEDIATE");
        // The columns read in C++ from the result's text; where they cannot be, SQLite reads them.
        std::optional<std::vector<SqlValue>> columns = ResultColumns(t.result, kGradeColumns);
        sqlite3_stmt* s = columns ? ins.get() : ins_read.get();
        sqlite3_reset(s);
        BindText(s, 1, t.id);
        BindText(s, 2, t.result);
        if (columns)
          for (size_t k = 0; k < columns->size(); ++k) BindValue(s, static_cast<int>(k) + 3, (*columns)[k]);
        try {
          Step(writer, s);
        } catch (...) {
          if (writer != db) sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
          throw;
        }
        ++graded;
        ++in_batch;
      }
      commit();
    };
    // `grading` is the batch whose grades are running; `filling` collects the next one.
    auto grading = std::make_unique<Batch>(), filling = std::make_unique<Batch>();
    bool started = false;
    // Threads still grading must be joined however this function leaves.
    struct Joiner {
      std::unique_ptr<Batch>& b;
      ~Joiner() {
        for (auto& t : b->pool)
          if (t.joinable()) t.join();
      }
    } joiner{grading};
    // Hands the filled batch to the graders and stores the one they finished meanwhile.
    auto advance = [&] {
      if (started) finish_grading(*grading);
      std::swap(grading, filling);
      if (!grading->todo.empty()) start_grading(*grading);
      if (started) store(*filling);
      started = !grading->todo.empty();
      filling = std::make_unique<Batch>();
      filling->todo.reserve(static_cast<std::size_t>(batch));
    };
    filling->todo.reserve(static_cast<std::size_t>(batch));
    for (std::string& id : ids) {
      BindText(note.get(), 1, id);
      const int rc = sqlite3_step(note.get());
      const bool known = rc == SQLITE_ROW && sqlite3_column_int(note.get(), 2);
      std::string script_id = known ? ColumnText(note.get(), 0) : "", text = known ? ColumnText(note.get(), 1) : "";
      const std::string error = rc == SQLITE_ROW || rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
      sqlite3_reset(note.get());  // each note its own short read: none is open while a batch is stored
      if (rc == SQLITE_DONE) continue;  // deleted since the ids were read
      if (rc != SQLITE_ROW) throw SqlError(rc, error);
      if (!known) { ++unknown; continue; }
      Todo t{std::move(id), std::move(text), "", nullptr, ""};
      t.trial = conn.Trial(db, script_id, t.hash);
      filling->todo.push_back(std::move(t));
      if (filling->todo.size() >= static_cast<std::size_t>(batch)) advance();
    }
    advance();  // the last partial batch to the graders, and the one before it stored
    if (started) {
      finish_grading(*grading);
      store(*grading);
    }
    commit();
    // Nothing (more) to grade: still bring the table to the current versions.
    if (writer != db) Exec(writer, "BEGIN IMMEDIATE");
    refresh_and_commit();
    sqlite3_int64 total = 0, current = 0;
    {
      Stmt n = Prepare(db, "SELECT count(*) FROM submissions");
      sqlite3_step(n.get());
      total = sqlite3_column_int64(n.get(), 0);
    }
    current = total - graded - unknown;
    ResultJsonValue(ctx, {{"submissions", total}, {"graded", graded}, {"already_current", current}, {"unknown_trial", unknown},
                          {"batches", batches}, {"grader_version", grader_version}, {"corpus_hash", corpus_hash}});
  });
}

// The grade row from a result (shared by scribe_regrade and the submit endpoint): ?1 submission
// id, ?2 the result JSON. A grade that exists already is left as it is.
const std::array<std::string_view, 11> kGradeColumns = {
    "grader_version", "methodology_version", "corpus_hash", "trial_version_hash", "kind", "score_total",
    "score_drug", "score_mental", "score_fabrication", "unsafe", "critical_error_count"};

// ?1 the submission, ?2 the result (compact JSON, as ResultColumns checked), ?3… kGradeColumns.
const char* const kGradeInsertSql =
    "INSERT INTO grades (submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind, "
    "score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result) "
    "VALUES (?1, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?2) ON CONFLICT DO NOTHING";

// The same when the columns could not be read in C++: SQLite reads them from the result.
const char* const kGradeInsertReadSql =
    "INSERT INTO grades (submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind, "
    "score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result) "
    "SELECT ?1, r ->> '$.grader_version', r ->> '$.methodology_version', r ->> '$.corpus_hash', "
    "r ->> '$.trial_version_hash', r ->> '$.kind', r ->> '$.score_total', r ->> '$.score_drug', r ->> '$.score_mental', "
    "r ->> '$.score_fabrication', r ->> '$.unsafe', r ->> '$.critical_error_count', r FROM (SELECT scribe_json(?2) AS r) "
    "WHERE true ON CONFLICT DO NOTHING";

}  // namespace scribe::sql
