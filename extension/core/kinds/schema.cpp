// schema.cpp — typed readers for trial YAML (see schema.h).
#include "schema.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "text.h"

namespace scribe {

SchemaPath SchemaPath::Key(std::string_view key) const {
  return SchemaPath(file_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

SchemaPath SchemaPath::Index(size_t i) const { return SchemaPath(file_, path_ + "[" + std::to_string(i) + "]"); }

void SchemaPath::Fail(std::string_view problem) const {
  throw TrialError(file_ + ": " + (path_.empty() ? std::string("(top level)") : path_) + ": " + std::string(problem));
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 80)) out += c == '"' ? '\'' : c;
  if (s.size() > 80) out += "…";
  return out + "\"";
}

void CheckKeys(const YAML::Node& map, const SchemaPath& path, const std::vector<std::string>& allowed) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) path.Fail("keys must be plain text");
    std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      path.Key(key).Fail("unknown key (allowed here: " + list + ")");
    }
    if (!seen.insert(key).second) path.Key(key).Fail("duplicate key (each key may appear once)");
  }
}

void CheckKeys(const YAML::Node& map, const SchemaPath& path, std::initializer_list<const char*> allowed) {
  CheckKeys(map, path, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string RequiredString(const YAML::Node& map, const char* key, const SchemaPath& path) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) path.Key(key).Fail("is required");
  if (!n.IsScalar()) path.Key(key).Fail("expected text");
  std::string s = n.as<std::string>();
  if (Trim(s).empty()) path.Key(key).Fail("must not be empty");
  return s;
}

std::string OptionalString(const YAML::Node& map, const char* key, const SchemaPath& path) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) path.Key(key).Fail("expected text");
  std::string s = n.as<std::string>();
  if (Trim(s).empty()) path.Key(key).Fail("must not be empty when given");
  return std::string(Trim(s));
}

std::vector<std::string> StringList(const YAML::Node& n, const SchemaPath& path, bool allow_empty) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) {
    if (!allow_empty) path.Fail("must list at least one entry");
    return out;
  }
  if (!n.IsSequence()) path.Fail("expected a list");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) path.Index(i).Fail("expected text");
    std::string s(Trim(n[i].as<std::string>()));
    if (s.empty()) path.Index(i).Fail("must not be empty");
    out.push_back(std::move(s));
  }
  if (!allow_empty && out.empty()) path.Fail("must list at least one entry");
  return out;
}

double Number(const YAML::Node& n, const SchemaPath& path, double lo, double hi) {
  if (!n || n.IsNull()) path.Fail("is required");
  if (!n.IsScalar()) path.Fail("expected a number");
  std::string s = n.as<std::string>();
  // yaml-cpp tags quoted scalars "!" and plain ones "?": a quoted "0.5" is text.
  if (n.Tag() == "!") path.Fail("expected a number, got the text " + Quote(s) + " (write numbers without quotes)");
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) path.Fail("expected a number, got " + Quote(s));
  if (v < lo || v > hi) path.Fail("must be between " + FormatNumber(lo) + " and " + FormatNumber(hi) + ", got " + s);
  return v;
}

bool Boolean(const YAML::Node& n, const SchemaPath& path) {
  std::string v = n.IsScalar() && n.Tag() != "!" ? n.as<std::string>() : "";
  if (v != "true" && v != "false") path.Fail("must be true or false");
  return v == "true";
}

}  // namespace scribe
