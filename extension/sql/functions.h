// functions.h — the SQL functions and the extract_drugs table (registered in scribe_ext.cpp).
#pragma once

#include <array>
#include <string_view>

struct sqlite3;
struct sqlite3_context;
struct sqlite3_value;

namespace scribe::sql {

void ScribeVersion(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeLoadCorpus(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void RxnormLookup(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void GradeSubmission(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void BadgeSvgFn(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeMethodology(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeT95(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void FhirValidate(sqlite3_context* ctx, int argc, sqlite3_value** argv);

// results.cpp: versioned grades, vendor keys, review (see its header comment).
void ScribeVendorKey(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeSha256(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribePublicResult(sqlite3_context* ctx, int argc, sqlite3_value** argv);
// scribe_json(X): what json(X) returns, without parsing and rendering X again when it is already
// compact strict JSON (compact_json.h). Used where stored results are copied (the grades the
// submissions trigger and scribe_regrade insert).
void ScribeJson(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeRegrade(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeReview(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeRefreshStandings(sqlite3_context* ctx, int argc, sqlite3_value** argv);
// Brings the standings table up to date in db's current transaction (see results.cpp).
void RefreshStandings(sqlite3* db);
// The deterministic functions and aggregates alone (no connection state, no migration), for a
// second connection the extension opens itself (scribe_regrade's writer). Returns an SQLite code.
int RegisterPureFunctions(sqlite3* db);
// scribe_suite_interval(trial, score, suite_trials, seed) and scribe_kappa(a, b); rc receives
// the first failure.
void RegisterAggregates(sqlite3* db, int& rc);
// The pure functions migrations use (scribe_vendor_key, scribe_sha256); throws SqlError.
void RegisterMigrationFunctions(sqlite3* db);
// INSERT of a grade row (scribe_regrade): ?1 submission id, ?2 the graded result, ?3… the values
// of kGradeColumns read from it (result_columns.h); kGradeInsertReadSql reads them in SQL.
extern const std::array<std::string_view, 11> kGradeColumns;
extern const char* const kGradeInsertSql;
extern const char* const kGradeInsertReadSql;

// Registers the eponymous table-valued function extract_drugs(text).
int RegisterExtractDrugs(sqlite3* db);
// Registers the eponymous table-valued function scribe_find(text, phrase) (find_vtab.cpp).
int RegisterScribeFind(sqlite3* db);

}  // namespace scribe::sql
