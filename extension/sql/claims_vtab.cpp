// claims_vtab.cpp — scribe_claims(text [, encounter]): the checkable claims of any text.
//
//   SELECT class, subject, mention, assertion FROM scribe_claims('Vitals: BP 132/78, HR 72.');
//   -- vital | blood pressure | BP 132/78 | affirmed
//   -- vital | heart rate     | HR 72     | affirmed
//
//   SELECT class, subject, supported, reason
//   FROM scribe_claims('Referred to cardiology; echocardiogram ordered.',
//                      'Doctor: Your heart sounds normal. Nothing else today.');
//   -- referral | cardiology     | 0 | the encounter never mentions cardiology
//   -- test     | echocardiogram | 0 | the encounter never mentions echocardiogram or what it measures
//
// One row per claim (corpus/rules/claims.yaml, docs/methodology.md "Unsupported content"):
// class, subject, mention, value, severity, start_offset, end_offset (code points of the text),
// assertion; with a second argument, the encounter, also supported (0/1), reason and evidence
// (the encounter sentence that supports or contradicts the claim), else NULL.
// An eponymous-only table-valued function: `text` and `encounter` are HIDDEN columns bound by the
// arguments (as in SQLite's series.c). Plan: `text` must be constrained by equality (xBestIndex
// refuses others with a clear error), `encounter` optionally; a NULL text yields no rows, a NULL
// encounter is no encounter (supported and reason NULL). Rows come out in text order.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <new>
#include <optional>
#include <string>
#include <vector>

#include "claims.h"
#include "functions.h"
#include "sqlite_util.h"

namespace scribe::sql {
namespace {

enum Column {
  kClass,
  kSubject,
  kMention,
  kValue,
  kSeverity,
  kStartOffset,
  kEndOffset,
  kAssertion,
  kSupported,
  kReason,
  kEvidence,
  kText,
  kEncounter
};

// idxNum bits: which hidden columns xFilter receives, in argv order.
constexpr int kHasText = 1;
constexpr int kHasEncounter = 2;

struct Row {
  Claim claim;
  std::optional<ClaimSupport> support;
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  std::vector<Row> rows;
  sqlite3_int64 index = 0;
};

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(
      db,
      "CREATE TABLE x(class TEXT, subject TEXT, mention TEXT, value TEXT, severity TEXT, start_offset INTEGER, "
      "end_offset INTEGER, assertion TEXT, supported INTEGER, reason TEXT, evidence TEXT, text HIDDEN, encounter "
      "HIDDEN)");
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

// Equality on `text` is required, on `encounter` optional; an unusable constraint asks SQLite
// for another join order.
int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  int text = -1, encounter = -1;
  bool text_seen = false, encounter_unusable = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c.iColumn == kText) {
      text_seen = true;
      if (c.usable) text = i;
    } else if (c.iColumn == kEncounter) {
      if (c.usable)
        encounter = i;
      else
        encounter_unusable = true;
    }
  }
  if (text < 0 || encounter_unusable) {
    if (text_seen || encounter_unusable) return SQLITE_CONSTRAINT;
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite3_mprintf("scribe_claims: requires the text to read as its first argument");
    return SQLITE_ERROR;
  }
  info->idxNum = kHasText;
  info->aConstraintUsage[text].argvIndex = 1;
  info->aConstraintUsage[text].omit = 1;
  if (encounter >= 0) {
    info->idxNum |= kHasEncounter;
    info->aConstraintUsage[encounter].argvIndex = 2;
    info->aConstraintUsage[encounter].omit = 1;
  }
  info->estimatedCost = encounter >= 0 ? 2000 : 1000;
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

std::string Bytes(sqlite3_value* v) {
  const unsigned char* t = sqlite3_value_text(v);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_value_bytes(v))) : std::string();
}

int Filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  c->rows.clear();
  c->index = 0;
  if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  try {
    const ClaimFinder& finder = DefaultClaimFinder();
    std::string text = Bytes(argv[0]);
    AnalyzedText note = AnalyzeText(text);
    std::optional<SupportIndex> index;
    std::optional<AnalyzedText> encounter;
    if ((idx_num & kHasEncounter) && argc >= 2 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
      std::string encounter_text = Bytes(argv[1]);
      encounter = AnalyzeText(encounter_text);
      index.emplace(*encounter, finder);
    }
    for (Claim& claim : finder.Find(note)) {
      Row row{std::move(claim), std::nullopt};
      if (index) row.support = index->Check(row.claim);
      c->rows.push_back(std::move(row));
    }
    return SQLITE_OK;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("scribe_claims: %s", e.what());
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

void Text(sqlite3_context* ctx, std::string_view s) {
  if (s.empty())
    sqlite3_result_null(ctx);
  else
    sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

int ColumnValue(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const Row& row = c->rows[c->index];
  const Claim& claim = row.claim;
  switch (column) {
    case kClass:
      Text(ctx, ClaimClassName(claim.cls));
      break;
    case kSubject:
      Text(ctx, claim.subject);
      break;
    case kMention:
      Text(ctx, claim.mention);
      break;
    case kValue:
      Text(ctx, claim.value);
      break;
    case kSeverity:
      Text(ctx, DefaultClaimFinder().SeverityOf(claim.cls).name);
      break;
    case kStartOffset:
      sqlite3_result_int64(ctx, claim.char_begin);
      break;
    case kEndOffset:
      sqlite3_result_int64(ctx, claim.char_end);
      break;
    case kAssertion:
      Text(ctx, AssertionName(claim.assertion));
      break;
    case kSupported:
      if (row.support)
        sqlite3_result_int(ctx, row.support->supported ? 1 : 0);
      else
        sqlite3_result_null(ctx);
      break;
    case kReason:
      if (row.support)
        Text(ctx, row.support->reason);
      else
        sqlite3_result_null(ctx);
      break;
    case kEvidence:
      if (row.support)
        Text(ctx, row.support->evidence);
      else
        sqlite3_result_null(ctx);
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

int RegisterScribeClaims(sqlite3* db) { return sqlite3_create_module(db, "scribe_claims", &kModule, nullptr); }

}  // namespace scribe::sql
