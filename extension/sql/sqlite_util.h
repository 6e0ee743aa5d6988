// sqlite_util.h — RAII owners and the exception firewall shared by the SQL shells.
//
// Include after sqlite3ext.h (and SQLITE_EXTENSION_INIT3) so every sqlite3_* call goes through
// the extension API table in the loadable module, or straight to SQLite under SQLITE_CORE.
#pragma once

#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scribe::sql {

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

// An SQLite error with its code, for messages that must reach the caller verbatim.
class SqlError : public std::runtime_error {
 public:
  SqlError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

inline Stmt Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) throw SqlError(rc, sqlite3_errmsg(db));
  return Stmt(s);
}

// One use of the statement that `kept` (a connection's KeptStatements, drug_cache.h) holds for
// `sql`, prepared and kept there on its first use. Reset and unbound when the use ends, so no
// read transaction outlives it. Throws SqlError when the SQL does not prepare (nothing is kept
// then, so a later use tries again).
class KeptUse {
 public:
  KeptUse(sqlite3* db, std::map<std::string, std::shared_ptr<sqlite3_stmt>>& kept, const char* sql) {
    auto it = kept.find(sql);
    if (it == kept.end()) it = kept.emplace(sql, std::shared_ptr<sqlite3_stmt>(Prepare(db, sql).release(), StmtDeleter())).first;
    s_ = it->second.get();
  }
  ~KeptUse() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  KeptUse(const KeptUse&) = delete;
  KeptUse& operator=(const KeptUse&) = delete;
  sqlite3_stmt* get() const { return s_; }

 private:
  sqlite3_stmt* s_;
};

inline void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw SqlError(rc, msg);
  }
}

inline void BindText(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

inline std::string ColumnText(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, i))) : std::string();
}

inline void Step(sqlite3* db, sqlite3_stmt* s) {
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) throw SqlError(rc, sqlite3_errmsg(db));
}

// The exception firewall for SQL functions: no C++ exception crosses into SQLite.
template <class Fn>
void Firewall(sqlite3_context* ctx, Fn&& fn) noexcept {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const SqlError& e) {
    sqlite3_result_error(ctx, e.what(), -1);
    sqlite3_result_error_code(ctx, e.code() == SQLITE_OK ? SQLITE_ERROR : e.code());
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, e.what(), -1);
  } catch (...) {
    sqlite3_result_error(ctx, "scribe: internal error", -1);
  }
}

}  // namespace scribe::sql
