// scribe_ext.cpp — the extension's entry point: `.load build/scribe` runs sqlite3_scribe_init.
//
//   sqlite3 data.db ".load build/scribe" "select scribe_load_corpus('corpus/scripts')"
//
// Registration is a table: each function with its arity, flags and the reason for them
// (SQLite's guidance: pure functions DETERMINISTIC|INNOCUOUS; anything touching tables,
// network or files DIRECTONLY and never DETERMINISTIC). Every return code is checked and a
// failure is reported through pzErrMsg. On load the schema is migrated (sql/schema.sql).
//
// A second entry point, sqlite3_scribe_functions_init, registers the deterministic functions
// and aggregates alone: no connection state, no migration, no table, no network. It is for
// connections the extension must not change (a replicated store's, where the schema is
// published as plain SQL; an analyst's read-only copy):
//
//   sqlite3 copy.db ".load build/scribe sqlite3_scribe_functions_init" "select scribe_vendor_key('ＡＣＭＥ')"
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <memory>
#include <string>

#include "drug_cache.h"
#include "functions.h"
#include "sqlite_util.h"
#include "store.h"
#include "validator.h"

namespace scribe::sql {

int RegisterScribeClaims(sqlite3* db);  // claims_vtab.cpp: the scribe_claims table-valued function

namespace {

struct FunctionSpec {
  const char* name;
  int arity;
  int flags;
  void (*fn)(sqlite3_context*, int, sqlite3_value**);
  const char* why;  // the reason for the flags
};

constexpr int kPure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
constexpr int kDirect = SQLITE_UTF8 | SQLITE_DIRECTONLY;

const FunctionSpec kFunctions[] = {
    {"scribe_version", 0, kPure, ScribeVersion, "a constant of the build"},
    {"scribe_methodology", 0, kPure, ScribeMethodology, "the compiled-in rule tables"},
    {"badge_svg", 3, kPure, BadgeSvgFn, "pure rendering of its arguments"},
    {"scribe_t95", 1, kPure, ScribeT95, "a table of Student's t; used by the leaderboard view"},
    {"fhir_validate", 1, kPure, FhirValidate, "validates its argument against the compiled-in FHIR schema"},
    {"scribe_load_corpus", 1, kDirect, ScribeLoadCorpus, "reads files and rewrites the trials table"},
    {"scribe_load_corpus", 2, kDirect, ScribeLoadCorpus, "the same, with the sealed trials of a second directory"},
    {"rxnorm_lookup", 1, kDirect, RxnormLookup, "may consult drug_cache and the network"},
    {"grade_submission", 2, kDirect, GradeSubmission, "reads the trials table; may consult the network"},
    {"scribe_vendor_key", 1, kPure, ScribeVendorKey, "NFKC case folding of its argument"},
    {"scribe_sha256", 1, kPure, ScribeSha256, "a digest of its argument"},
    {"scribe_public_result", 1, kPure, ScribePublicResult, "a view of its argument (the sealed rule)"},
    {"scribe_json", 1, kPure, ScribeJson, "json() of its argument; the submissions trigger uses it"},
    {"scribe_regrade", 0, kDirect, ScribeRegrade, "grades stored submissions and writes grades"},
    {"scribe_regrade", 1, kDirect, ScribeRegrade, "the same, with a batch size"},
    {"scribe_refresh_standings", 0, kDirect, ScribeRefreshStandings, "writes the standings table"},
    {"scribe_review", 5, kDirect, ScribeReview, "writes the reviews table"},
    {"scribe_review", 6, kDirect, ScribeReview, "the same, with a comment"},
    {"scribe_review", 7, kDirect, ScribeReview, "the same, with the clinician's own label"},
};

void DestroyConnection(void* p) { delete static_cast<Connection*>(p); }

// The connection is closing: finalize the statements it kept (Connection::statements), which
// would otherwise keep it open. SQLite calls this before it looks for unfinalized statements.
int OnClose(unsigned event, void* p, void*, void*) {
  if (event == SQLITE_TRACE_CLOSE) static_cast<Connection*>(p)->statements.clear();
  return 0;
}

int Init(sqlite3* db, char** pzErrMsg) {
  auto fail = [&](const std::string& msg, int rc) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("scribe: %s", msg.c_str());
    return rc;
  };
  auto* conn = new (std::nothrow) Connection();
  if (!conn) return fail("out of memory", SQLITE_NOMEM);
  try {
    // Live RxNav/openFDA over drug_cache, or offline when SCRIBE_OFFLINE=1 (docs/live-validation.md).
    conn->validator = MakeDrugValidator(db, DefaultTerminology(), &conn->statements);
  } catch (const std::exception& e) {
    delete conn;
    return fail(std::string("drug validator failed to initialise: ") + e.what(), SQLITE_ERROR);
  }
  // Functions first: migrations use the pure ones (scribe_vendor_key, scribe_sha256). The
  // connection state is owned by grade_submission (destroyed with it); the others borrow it.
  bool owner_registered = false;
  for (const FunctionSpec& f : kFunctions) {
    bool owner = std::string(f.name) == "grade_submission";
    int rc = sqlite3_create_function_v2(db, f.name, f.arity, f.flags, conn, f.fn, nullptr, nullptr,
                                        owner ? DestroyConnection : nullptr);
    if (rc != SQLITE_OK) {
      if (!owner_registered) delete conn;
      return fail(std::string("cannot register ") + f.name + ": " + sqlite3_errstr(rc), rc);
    }
    owner_registered = owner_registered || owner;
  }
  // Owned by grade_submission from here: its statements go before the connection closes.
  sqlite3_trace_v2(db, SQLITE_TRACE_CLOSE, OnClose, conn);
  int rc = SQLITE_OK;
  RegisterAggregates(db, rc);
  if (rc != SQLITE_OK) return fail(std::string("cannot register the aggregates: ") + sqlite3_errstr(rc), rc);
  rc = RegisterExtractDrugs(db);
  if (rc != SQLITE_OK) return fail(std::string("cannot register extract_drugs: ") + sqlite3_errstr(rc), rc);
  rc = RegisterScribeFind(db);
  if (rc != SQLITE_OK) return fail(std::string("cannot register scribe_find: ") + sqlite3_errstr(rc), rc);
  rc = RegisterScribeClaims(db);
  if (rc != SQLITE_OK) return fail(std::string("cannot register scribe_claims: ") + sqlite3_errstr(rc), rc);
  try {
    Migrate(db);
  } catch (const SqlError& e) {
    // A read-only or busy database still gets the functions; say why the schema was skipped
    // only when the failure is not about writing.
    if (e.code() != SQLITE_READONLY && e.code() != SQLITE_BUSY && e.code() != SQLITE_LOCKED)
      return fail(std::string("migration failed: ") + e.what(), e.code());
  } catch (const std::exception& e) {
    return fail(std::string("initialisation failed: ") + e.what(), SQLITE_ERROR);
  }
  return SQLITE_OK;
}

}  // namespace

int RegisterPureFunctions(sqlite3* db) {
  for (const FunctionSpec& f : kFunctions) {
    if (f.flags != kPure) continue;
    int rc = sqlite3_create_function_v2(db, f.name, f.arity, f.flags, nullptr, f.fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return rc;
  }
  int rc = SQLITE_OK;
  RegisterAggregates(db, rc);
  return rc;
}

}  // namespace scribe::sql

extern "C" __attribute__((visibility("default"))) int sqlite3_scribe_init(sqlite3* db, char** pzErrMsg,
                                                                          const sqlite3_api_routines* pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  return scribe::sql::Init(db, pzErrMsg);
}

extern "C" __attribute__((visibility("default"))) int sqlite3_scribe_functions_init(sqlite3* db, char** pzErrMsg,
                                                                                    const sqlite3_api_routines* pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  int rc = scribe::sql::RegisterPureFunctions(db);
  if (rc != SQLITE_OK && pzErrMsg)
    *pzErrMsg = sqlite3_mprintf("scribe: cannot register the pure functions: %s", sqlite3_errstr(rc));
  return rc;
}
