// find_vtab.cpp — scribe_find(text, phrase): one row per match of a phrase, read as the grader
// reads a trap phrase (clinical synonyms, plural folding), with its assertion and the trigger
// that decided it.
//
//   SELECT mention, start_offset, end_offset, assertion, trigger
//   FROM scribe_find('No known drug allergies. Denies SOB.', 'shortness of breath');
//   -- SOB | 32 | 35 | negated | Denies
//
// An eponymous-only table-valued function: the text and the phrase are the HIDDEN columns
// `text` and `phrase`, bound by the two arguments. Plan: the only plan needs equality
// constraints on both (xBestIndex refuses others with a clear error); a NULL argument yields no
// rows. Rows come out in text order; offsets are code points, 0-based, end exclusive.
// Innocuous (pure: the same arguments always give the same rows), so views and triggers may use it.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string>
#include <vector>

#include "find.h"
#include "functions.h"
#include "sqlite_util.h"

namespace scribe::sql {
namespace {

enum Column { kMention, kStartOffset, kEndOffset, kAssertion, kTrigger, kText, kPhrase };

struct Cursor {
  sqlite3_vtab_cursor base{};
  std::string text, phrase;  // the arguments, returned as the hidden columns
  std::vector<PhraseFinding> rows;
  sqlite3_int64 index = 0;
};

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(
      db,
      "CREATE TABLE x(mention TEXT, start_offset INTEGER, end_offset INTEGER, assertion TEXT, trigger TEXT, "
      "text HIDDEN, phrase HIDDEN)");
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

// Both hidden columns must be bound by equality: text -> argv[0], phrase -> argv[1].
int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  int usable[2] = {-1, -1};
  bool seen[2] = {false, false};
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if ((c.iColumn != kText && c.iColumn != kPhrase) || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    int which = c.iColumn == kText ? 0 : 1;
    seen[which] = true;
    if (c.usable) usable[which] = i;
  }
  if (usable[0] < 0 || usable[1] < 0) {
    if (seen[0] && seen[1]) return SQLITE_CONSTRAINT;  // usable in another join order
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite3_mprintf("scribe_find: requires two arguments, the text and the phrase");
    return SQLITE_ERROR;
  }
  for (int which = 0; which < 2; ++which) {
    info->aConstraintUsage[usable[which]].argvIndex = which + 1;
    info->aConstraintUsage[usable[which]].omit = 1;
  }
  info->estimatedCost = 1000;
  info->estimatedRows = 5;
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

std::string Arg(sqlite3_value* v) {
  const unsigned char* t = sqlite3_value_text(v);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_value_bytes(v))) : "";
}

int Filter(sqlite3_vtab_cursor* cur, int, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  c->rows.clear();
  c->index = 0;
  if (argc < 2 || sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return SQLITE_OK;
  try {
    c->text = Arg(argv[0]);
    c->phrase = Arg(argv[1]);
    c->rows = FindPhrase(c->text, c->phrase);
    return SQLITE_OK;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("scribe_find: %s", e.what());
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

int ColumnValue(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const PhraseFinding& f = c->rows[c->index];
  auto text = [ctx](std::string_view s) {
    sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  };
  switch (column) {
    case kMention:
      text(f.mention);
      break;
    case kStartOffset:
      sqlite3_result_int64(ctx, f.char_begin);
      break;
    case kEndOffset:
      sqlite3_result_int64(ctx, f.char_end);
      break;
    case kAssertion:
      text(AssertionName(f.assertion));
      break;
    case kTrigger:
      if (f.trigger)
        text(*f.trigger);
      else
        sqlite3_result_null(ctx);
      break;
    case kText:
      text(c->text);
      break;
    case kPhrase:
      text(c->phrase);
      break;
    default:
      sqlite3_result_null(ctx);
      break;
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

int RegisterScribeFind(sqlite3* db) { return sqlite3_create_module(db, "scribe_find", &kModule, nullptr); }

}  // namespace scribe::sql
