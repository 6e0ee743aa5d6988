// result_columns.h — the columns a stored row copies from a graded result, read from the result's
// text without SQLite parsing it into nodes.
//
//   constexpr std::string_view kKeys[] = {"kind", "score_total", "unsafe"};
//   std::optional<std::vector<SqlValue>> v = ResultColumns(result, kKeys);
//   if (v) for (size_t i = 0; i < v->size(); ++i) BindValue(stmt, i + 3, (*v)[i]);
//   else   … the statement that reads them with result ->> '$.kind' …
//
// Each value is what `result ->> '$.<key>'` gives once stored in a column of TEXT, REAL or
// INTEGER affinity: a string's characters (a string with an escape is not read here), a number's
// digits as text (the column's affinity converts them with the same routine the JSON functions
// use), true and false as 1 and 0, null and an absent key as NULL. A result that is not a compact
// JSON object, a key written twice, or a value that is an object, an array or an escaped string
// gives nullopt: the caller then lets SQLite read the result (tests/sql/regrade.test and
// tests/http/committer_test.cpp compare the two ways).
#pragma once

#include <sqlite3ext.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "compact_json.h"

namespace scribe::sql {

struct SqlValue {
  enum Type { kNull, kText, kInteger } type = kNull;
  std::string_view text;  // kText
  int64_t integer = 0;    // kInteger
};

std::optional<std::vector<SqlValue>> ResultColumns(std::string_view result, std::span<const std::string_view> keys);
// The same from the result's top-level members, as IsCompactJson found them (compact_json.h).
std::optional<std::vector<SqlValue>> ResultColumns(std::span<const JsonMember> members,
                                                   std::span<const std::string_view> keys);

// Binds `v` to parameter `index` of `stmt` (text copied: SQLITE_TRANSIENT).
int BindValue(sqlite3_stmt* stmt, int index, const SqlValue& v);

}  // namespace scribe::sql
