// sqllogic — runs SQL logic test files against the loadable extension.
//
//   sqllogic build/scribe.so tests/sql/functions.test
//
// File format (DuckDB / sqllogictest style). Records are separated by blank lines:
//
//   statement ok                 statement error             query
//   <sql>                        <sql>                       <sql>
//                                ----                        ----
//                                <exact error message>       <rows, values separated by a tab>
//
// Values print as SQLite's own text conversion; NULL prints "NULL", the empty string
// "(empty)", and tabs / newlines inside values print as \t and \n. Each file runs in a fresh
// in-memory database with the extension loaded, from the repository root, with readfile(path)
// available (as in the sqlite3 shell). `load <path>` loads the corpus into the database.
#include <dlfcn.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void ReadFile(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const unsigned char* path = sqlite3_value_text(argv[0]);
  if (!path) { sqlite3_result_null(ctx); return; }
  std::ifstream in(reinterpret_cast<const char*>(path), std::ios::binary);
  if (!in) { sqlite3_result_error(ctx, "readfile: cannot open file", -1); return; }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  sqlite3_result_text(ctx, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

std::string Render(sqlite3_stmt* s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return "NULL";
  const unsigned char* t = sqlite3_column_text(s, i);
  std::string v(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, i)));
  if (v.empty()) return "(empty)";
  std::string out;
  for (char c : v) {
    if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

struct Record {
  int line = 0;
  std::string kind;  // statement ok | statement error | query
  std::string sql;
  std::vector<std::string> expected;
};

std::vector<Record> Parse(const std::string& path) {
  std::ifstream in(path);
  std::vector<Record> out;
  std::string line;
  int n = 0;
  Record cur;
  enum { kIdle, kSql, kExpected } state = kIdle;
  auto flush = [&] {
    if (state != kIdle) out.push_back(cur);
    cur = Record();
    state = kIdle;
  };
  while (std::getline(in, line)) {
    ++n;
    if (state == kIdle) {
      if (line.empty() || line[0] == '#') continue;
      cur.line = n;
      cur.kind = line.rfind("query", 0) == 0 ? "query" : line;
      state = kSql;
      continue;
    }
    if (line.empty()) { flush(); continue; }
    if (state == kSql && line == "----") { state = kExpected; continue; }
    if (state == kSql) cur.sql += (cur.sql.empty() ? "" : "\n") + line;
    else cur.expected.push_back(line);
  }
  flush();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sqllogic <extension.so> <file.test>\n");
    return 2;
  }
  // The extension stays mapped until the process exits, as a linked library would: closing the
  // database would otherwise unload it, and LeakSanitizer's exit-time scan then reads the
  // unmapped module (its tracer segfaults, google/sanitizers#1353) and loses the module's
  // statics as roots. sqlite3_load_extension below opens the same handle.
  if (dlopen(argv[1], RTLD_NOW | RTLD_NODELETE) == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  char* err = nullptr;
  if (sqlite3_load_extension(db, argv[1], "sqlite3_scribe_init", &err) != SQLITE_OK) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], err ? err : "?");
    return 2;
  }
  sqlite3_create_function(db, "readfile", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr, ReadFile, nullptr, nullptr);
  int passed = 0, failed = 0;
  for (const Record& r : Parse(argv[2])) {
    sqlite3_stmt* s = nullptr;
    std::vector<std::string> rows;
    std::string error;
    int rc = sqlite3_prepare_v2(db, r.sql.c_str(), -1, &s, nullptr);
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        std::string row;
        for (int i = 0; i < sqlite3_column_count(s); ++i) row += (i ? "\t" : "") + Render(s, i);
        rows.push_back(row);
      }
      if (rc != SQLITE_DONE) error = sqlite3_errmsg(db);
      sqlite3_finalize(s);
    } else {
      error = sqlite3_errmsg(db);
    }
    bool ok;
    std::ostringstream why;
    if (r.kind == "statement ok") {
      ok = error.empty();
      why << "unexpected error: " << error;
    } else if (r.kind == "statement error") {
      std::string want;
      for (const auto& e : r.expected) want += (want.empty() ? "" : "\n") + e;
      ok = !error.empty() && (want.empty() || error == want);
      why << "expected error [" << want << "], got " << (error.empty() ? "success" : "[" + error + "]");
    } else {
      ok = error.empty() && rows == r.expected;
      if (!error.empty()) why << "error: " << error;
      else {
        why << "expected:\n";
        for (const auto& e : r.expected) why << "    " << e << "\n";
        why << "  got:\n";
        for (const auto& g : rows) why << "    " << g << "\n";
      }
    }
    if (ok) {
      ++passed;
    } else {
      ++failed;
      std::cout << argv[2] << ":" << r.line << ": FAIL " << r.kind << "\n  " << why.str() << "\n";
    }
  }
  std::cout << argv[2] << ": " << passed << " passed, " << failed << " failed\n";
  sqlite3_close(db);
  return failed == 0 && passed > 0 ? 0 : 1;
}
