// extract_vtab.cpp — extract_drugs(text): one row per drug mention.
//
//   SELECT drug, dose_value, dose_unit, per_day, prn, assertion
//   FROM extract_drugs('two 200 mg ibuprofen tablets three times a day');
//   -- ibuprofen | 400.0 | mg | 3.0 | 0 | affirmed
//
// An eponymous-only table-valued function: the text is the HIDDEN column `text`, bound by the
// argument. Plan: the only plan needs an equality constraint on `text` (xBestIndex refuses
// others with a clear error); a NULL argument yields no rows. Rows come out in text order.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string>
#include <vector>

#include "extract.h"
#include "functions.h"
#include "sqlite_util.h"

namespace scribe::sql {
namespace {

enum Column {
  kMention, kDrug, kRxcui, kDoseValue, kDoseUnit, kFrequency, kPerDay, kPrn, kRoute, kAction, kAssertion,
  kStartOffset, kEndOffset, kText
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  std::vector<DrugMention> rows;
  sqlite3_int64 index = 0;
};

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(mention TEXT, drug TEXT, rxcui TEXT, dose_value REAL, dose_unit TEXT, frequency TEXT, "
      "per_day REAL, prn INTEGER, route TEXT, action TEXT, assertion TEXT, start_offset INTEGER, "
      "end_offset INTEGER, text HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  auto* vtab = static_cast<sqlite3_vtab*>(sqlite3_malloc(sizeof(sqlite3_vtab)));
  if (!vtab) return SQLITE_NOMEM;
  *vtab = sqlite3_vtab{};
  *out = vtab;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  int usable = -1;
  bool seen = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kText || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    seen = true;
    if (c.usable) usable = i;
  }
  if (usable < 0) {
    if (seen) return SQLITE_CONSTRAINT;  // usable in another join order
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite3_mprintf("extract_drugs: requires one argument, the text to read");
    return SQLITE_ERROR;
  }
  info->aConstraintUsage[usable].argvIndex = 1;
  info->aConstraintUsage[usable].omit = 1;
  info->estimatedCost = 1000;
  info->estimatedRows = 10;
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  auto* cursor = new (std::nothrow) Cursor();
  if (!cursor) return SQLITE_NOMEM;
  *out = &cursor->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cur) {
  delete reinterpret_cast<Cursor*>(cur);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  c->rows.clear();
  c->index = 0;
  if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  try {
    const unsigned char* t = sqlite3_value_text(argv[0]);
    std::string text = t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_value_bytes(argv[0]))) : "";
    c->rows = ExtractDrugs(text);
    return SQLITE_OK;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("extract_drugs: %s", e.what());
    return SQLITE_ERROR;
  }
}

int Next(sqlite3_vtab_cursor* cur) {
  ++reinterpret_cast<Cursor*>(cur)->index;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  return c->index >= static_cast<sqlite3_int64>(c->rows.size());
}

void Text(sqlite3_context* ctx, const std::string& s) {
  if (s.empty()) sqlite3_result_null(ctx);
  else sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

int ColumnValue(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const DrugMention& m = c->rows[c->index];
  switch (column) {
    case kMention: Text(ctx, m.mention); break;
    case kDrug: Text(ctx, m.drug); break;
    case kRxcui: Text(ctx, m.rxcui); break;
    case kDoseValue: if (m.dose) sqlite3_result_double(ctx, Round4(m.dose->value)); else sqlite3_result_null(ctx); break;
    case kDoseUnit: if (m.dose) Text(ctx, m.dose->unit); else sqlite3_result_null(ctx); break;
    case kFrequency: Text(ctx, m.frequency.text); break;
    case kPerDay:
      if (m.frequency.per_day) sqlite3_result_double(ctx, Round4(*m.frequency.per_day)); else sqlite3_result_null(ctx);
      break;
    case kPrn: sqlite3_result_int(ctx, m.frequency.prn ? 1 : 0); break;
    case kRoute: if (m.route) Text(ctx, *m.route); else sqlite3_result_null(ctx); break;
    case kAction: if (m.action) Text(ctx, *m.action); else sqlite3_result_null(ctx); break;
    case kAssertion: Text(ctx, std::string(AssertionName(m.assertion))); break;
    case kStartOffset: sqlite3_result_int64(ctx, m.char_begin); break;
    case kEndOffset: sqlite3_result_int64(ctx, m.char_end); break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) {
  *rowid = reinterpret_cast<Cursor*>(cur)->index + 1;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous-only
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = ColumnValue;
  m.xRowid = Rowid;
  return m;
}

const sqlite3_module kModule = MakeModule();

}  // namespace

int RegisterExtractDrugs(sqlite3* db) { return sqlite3_create_module(db, "extract_drugs", &kModule, nullptr); }

}  // namespace scribe::sql
