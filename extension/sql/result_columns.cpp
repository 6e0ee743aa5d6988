// result_columns.cpp — see result_columns.h.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "result_columns.h"

namespace scribe::sql {

std::optional<std::vector<SqlValue>> ResultColumns(std::string_view result, std::span<const std::string_view> keys) {
  std::vector<JsonMember> members;
  if (result.empty() || result.front() != '{' || !IsCompactJson(result, &members)) return std::nullopt;
  return ResultColumns(members, keys);
}

std::optional<std::vector<SqlValue>> ResultColumns(std::span<const JsonMember> members,
                                                   std::span<const std::string_view> keys) {
  std::vector<SqlValue> out(keys.size());
  std::vector<bool> seen(keys.size(), false);
  for (const auto& [key, value] : members) {
    size_t k = 0;
    for (std::string_view wanted : keys) {
      if (key == wanted) break;
      ++k;
    }
    if (k == keys.size()) continue;
    if (seen[k]) return std::nullopt;  // which copy ->> reads is SQLite's business
    seen[k] = true;
    SqlValue& v = out[k];
    const char c = value.front();
    if (c == '"') {
      std::string_view inner = value.substr(1, value.size() - 2);
      if (inner.find('\\') != std::string_view::npos) return std::nullopt;
      v.type = SqlValue::kText;
      v.text = inner;
    } else if (c == 't' || c == 'f') {
      v.type = SqlValue::kInteger;
      v.integer = c == 't';
    } else if (c == 'n') {
      v.type = SqlValue::kNull;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.type = SqlValue::kText;
      v.text = value;
    } else {
      return std::nullopt;  // an object or an array
    }
  }
  return out;
}

int BindValue(sqlite3_stmt* stmt, int index, const SqlValue& v) {
  switch (v.type) {
    case SqlValue::kText:
      return sqlite3_bind_text(stmt, index, v.text.data(), static_cast<int>(v.text.size()), SQLITE_TRANSIENT);
    case SqlValue::kInteger: return sqlite3_bind_int64(stmt, index, v.integer);
    case SqlValue::kNull: break;
  }
  return sqlite3_bind_null(stmt, index);
}

}  // namespace scribe::sql
