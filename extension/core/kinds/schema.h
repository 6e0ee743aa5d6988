// schema.h — validating a trial file's YAML: the key path of every error, and the typed readers
// every kind's schema uses.
//
//   SchemaPath top("03-x.yaml", "");
//   CheckKeys(root, top, {"id", "title"});
//   std::string id = RequiredString(root, "id", top);
//   top.Key("ground_truth").Index(0).Fail("expected a mapping");
//   // throws TrialError("03-x.yaml: ground_truth[0]: expected a mapping")
//
// Errors name the file, the key path and the problem; a bad file never half-loads because
// nothing is stored until the whole corpus has parsed.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scribe {

class TrialError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file name and the key path being validated.
class SchemaPath {
 public:
  SchemaPath(std::string file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}
  SchemaPath Key(std::string_view key) const;
  SchemaPath Index(size_t i) const;
  [[noreturn]] void Fail(std::string_view problem) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  std::string file_, path_;
};

// A value quoted for an error message: at most 80 bytes, double quotes replaced.
std::string Quote(std::string_view s);

// Fails on a key of `map` that is not in `allowed` (naming the allowed keys) and on a key that
// appears twice (YAML parsers keep one silently).
void CheckKeys(const YAML::Node& map, const SchemaPath& path, const std::vector<std::string>& allowed);
void CheckKeys(const YAML::Node& map, const SchemaPath& path, std::initializer_list<const char*> allowed);

// Text values. Required: present, a scalar, not blank. Optional: "" when absent or null, trimmed.
std::string RequiredString(const YAML::Node& map, const char* key, const SchemaPath& path);
std::string OptionalString(const YAML::Node& map, const char* key, const SchemaPath& path);
// A list of non-blank trimmed strings ("" entries fail); absent or null is an empty list.
std::vector<std::string> StringList(const YAML::Node& n, const SchemaPath& path, bool allow_empty = true);
// A plain (unquoted) YAML number in [lo, hi]: "0.5" written in quotes is text, not a number.
double Number(const YAML::Node& n, const SchemaPath& path, double lo = 0, double hi = 1);
// true/false, written plainly.
bool Boolean(const YAML::Node& n, const SchemaPath& path);

}  // namespace scribe
