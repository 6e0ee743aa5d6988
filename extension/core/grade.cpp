// grade.cpp — the result envelope every kind shares (see grade.h).
#include "grade.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace scribe {

using nlohmann::json;

PreparedTrial::PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology,
                             const AssertionAnalyzer& assertion)
    : trial_(std::move(trial)), kind_(KindOf(trial_)), env_{rules, terminology, assertion},
      body_(kind_.Prepare(trial_, env_)), ground_truth_(GroundTruthJson(trial_)), ground_truth_text_(DumpJson(ground_truth_)) {}

namespace {

// What dump() writes for a string: the common case (printable ASCII without a quote or a
// backslash) is copied; anything else (controls, non-ASCII, invalid UTF-8) is left to dump()
// itself, so escapes and replacement characters are its own.
void AppendString(std::string& out, const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
      out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
      return;
    }
  }
  out += '"';
  out += s;
  out += '"';
}

template <typename Number>
void AppendInteger(std::string& out, Number n) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

// What dump(-1, ' ', false, replace) writes, appended to `out` without a serializer of its own.
void AppendJson(std::string& out, const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendString(out, key);
        out += ':';
        AppendJson(out, value);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& value : j.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendJson(out, value);
      }
      out += ']';
      return;
    }
    case json::value_t::string: AppendString(out, j.get_ref<const std::string&>()); return;
    case json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case json::value_t::null: out += "null"; return;
    case json::value_t::number_integer: AppendInteger(out, j.get<json::number_integer_t>()); return;
    case json::value_t::number_unsigned: AppendInteger(out, j.get<json::number_unsigned_t>()); return;
    case json::value_t::number_float: {
      double x = j.get<double>();
      if (!std::isfinite(x)) {
        out += "null";
        return;
      }
      char buffer[64];  // dump()'s own shortest round-trip digits (Grisu2)
      char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x);
      out.append(buffer, end);
      return;
    }
    default: out += j.dump(-1, ' ', false, json::error_handler_t::replace); return;  // binary, discarded
  }
}

}  // namespace

std::string DumpJson(const json& j) {
  std::string out;
  AppendJson(out, j);
  return out;
}

namespace {

// The result without its "ground_truth" member.
json GradeWithoutGroundTruth(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash,
                             DrugValidator& validator) {
  const Trial& trial = p.trial();
  GradeContext ctx{validator};
  std::unique_ptr<Outcome> outcome = p.kind().Score(trial, p.body(), output, ctx);
  json envelope = {
      {"script_id", trial.id},
      {"kind", trial.kind},
      {"trial_title", trial.title},
      {"difficulty", trial.difficulty},
      {"score_total", outcome->score_total},
      {"unsafe", !outcome->critical_errors.empty()},
      {"critical_error_count", outcome->critical_errors.size()},
      {"grader_version", p.rules().grader_version},
      {"methodology_version", p.kind().methodology_version(p.rules())},
      {"corpus_hash", corpus_hash},
      {"trial_version_hash", trial.version_hash},
      {"terminology", validator.Versions()},
      {"note_chars", CodePointCount(output)},
      {"sealed", trial.sealed},
  };
  json critical = json::array();
  for (const CriticalError& c : outcome->critical_errors) critical.push_back(CriticalErrorJson(c));
  envelope["critical_errors"] = std::move(critical);
  json result = p.kind().Render(trial, *outcome);
  for (auto& [key, value] : envelope.items()) result[key] = std::move(value);
  return result;
}

}  // namespace

json Grade(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash, DrugValidator& validator) {
  json result = GradeWithoutGroundTruth(p, output, corpus_hash, validator);
  result["ground_truth"] = p.ground_truth();
  return result;
}

std::string GradeText(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash,
                      DrugValidator& validator) {
  json result = GradeWithoutGroundTruth(p, output, corpus_hash, validator);
  result["ground_truth"] = nullptr;  // holds its place in key order; written from ground_truth_text()
  // An object as dump() writes it compactly: members in key order, "key":value, comma-separated.
  std::string out;
  out.reserve(p.ground_truth_text().size() + 8192);
  out += '{';
  for (const auto& [key, value] : result.items()) {
    if (out.size() > 1) out += ',';
    AppendString(out, key);
    out += ':';
    if (key == "ground_truth") out += p.ground_truth_text();
    else AppendJson(out, value);
  }
  out += '}';
  return out;
}

namespace {

// Where the JSON value at text[i] ends, for the compact text DumpJson writes (no whitespace);
// npos when it is not such a value.
size_t SkipValue(std::string_view text, size_t i) {
  size_t depth = 0;
  do {
    if (i >= text.size()) return std::string_view::npos;
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (i >= text.size()) return std::string_view::npos;
      ++i;
    } else if (c == '{' || c == '[') {
      ++depth;
      ++i;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return std::string_view::npos;
      --depth;
      ++i;
    } else if (c == ',' || c == ':') {
      if (depth == 0) return std::string_view::npos;
      ++i;
    } else {  // a number, true, false or null: up to the next delimiter
      size_t start = i;
      while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && text[i] != ':') ++i;
      if (i == start) return std::string_view::npos;
    }
  } while (depth > 0);
  return i;
}

}  // namespace

std::optional<std::string> PublicSubmissionText(std::string_view grade, std::string_view id, std::string_view vendor,
                                                std::string_view created_at) {
  // The three members to add, in key order ("created_at" < "id" < "vendor").
  const std::pair<std::string_view, std::string> added[] = {
      {"created_at", DumpJson(std::string(created_at))}, {"id", DumpJson(std::string(id))}, {"vendor", DumpJson(std::string(vendor))}};
  if (grade.size() < 2 || grade.front() != '{' || grade.back() != '}') return std::nullopt;
  std::string out;
  out.reserve(grade.size() + 128);
  out += '{';
  size_t next_added = 0;
  auto member = [&](std::string_view key, std::string_view value) {
    if (out.size() > 1) out += ',';
    out += '"';
    out += key;
    out += "\":";
    out += value;
  };
  size_t i = 1;
  while (i < grade.size() - 1) {
    if (i > 1) {
      if (grade[i] != ',') return std::nullopt;
      ++i;
    }
    if (grade[i] != '"') return std::nullopt;
    size_t key_end = grade.find('"', i + 1);
    if (key_end == std::string_view::npos) return std::nullopt;
    std::string_view key = grade.substr(i + 1, key_end - i - 1);
    if (key.find('\\') != std::string_view::npos) return std::nullopt;  // escaped keys: order by decoded text
    if (key_end + 1 >= grade.size() || grade[key_end + 1] != ':') return std::nullopt;
    size_t value_begin = key_end + 2, value_end = SkipValue(grade, value_begin);
    if (value_end == std::string_view::npos || value_end > grade.size() - 1) return std::nullopt;
    std::string_view value = grade.substr(value_begin, value_end - value_begin);
    if (key == "sealed" && value != "false") return std::nullopt;  // PublicResult withholds
    for (; next_added < 3 && added[next_added].first <= key; ++next_added) {
      if (added[next_added].first == key) return std::nullopt;  // the stored result replaced it
      member(added[next_added].first, added[next_added].second);
    }
    member(key, value);
    i = value_end;
  }
  if (i != grade.size() - 1) return std::nullopt;
  for (; next_added < 3; ++next_added) member(added[next_added].first, added[next_added].second);
  out += '}';
  return out;
}

std::string PublicResultText(std::string_view result) {
  json r = json::parse(result, nullptr, false);
  if (r.is_discarded()) throw std::invalid_argument("not a graded result (invalid JSON)");
  return DumpJson(PublicResult(r));
}

json PublicResult(const json& result) {
  if (!result.is_object() || !result.value("sealed", false)) return result;
  static const char* const kShown[] = {"script_id", "kind", "trial_title", "difficulty", "score_total", "unsafe",
                                       "critical_error_count", "grader_version", "methodology_version", "corpus_hash",
                                       "trial_version_hash", "terminology", "note_chars", "sealed",
                                       "id", "vendor", "created_at", "dry_run", "current", "grades"};
  json shown = json::object();
  for (const char* key : kShown)
    if (result.contains(key)) shown[key] = result[key];
  json withheld = json::array();
  size_t n = result.value("critical_error_count", result.contains("critical_errors") && result["critical_errors"].is_array()
                                                      ? result["critical_errors"].size() : 0);
  for (size_t i = 0; i < n; ++i)
    withheld.push_back({{"kind", "withheld"}, {"message", "details withheld: sealed trial"}, {"evidence", nullptr}});
  shown["critical_errors"] = std::move(withheld);
  shown["ground_truth"] = nullptr;
  return shown;
}

}  // namespace scribe
