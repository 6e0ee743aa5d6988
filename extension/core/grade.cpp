// grade.cpp — the result envelope every kind shares (see grade.h).
#include "grade.h"

#include <stdexcept>

namespace scribe {

using nlohmann::json;

PreparedTrial::PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology,
                             const AssertionAnalyzer& assertion)
    : trial_(std::move(trial)), kind_(KindOf(trial_)), env_{rules, terminology, assertion},
      body_(kind_.Prepare(trial_, env_)), ground_truth_text_(DumpJson(GroundTruthJson(trial_))) {}

std::string GradeText(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash,
                      DrugValidator& validator) {
  const Trial& trial = p.trial();
  GradeContext ctx{validator};
  std::unique_ptr<Outcome> outcome = p.kind().Score(trial, p.body(), output, ctx);
  std::string out;
  out.reserve(p.ground_truth_text().size() + 16384);
  JsonWriter w(out);
  w.BeginObject();
  // The envelope, in key order; the kind's members follow, and EndObject sorts them in.
  w.Key("corpus_hash");
  w.String(corpus_hash);
  w.Key("critical_error_count");
  w.Uint(outcome->critical_errors.size());
  w.Key("critical_errors");
  w.BeginArray();
  for (const CriticalError& c : outcome->critical_errors) WriteCriticalError(w, c);
  w.EndArray();
  w.Key("difficulty");
  w.String(trial.difficulty);
  w.Key("grader_version");
  w.String(p.rules().grader_version);
  w.Key("ground_truth");
  w.Raw(p.ground_truth_text());
  w.Key("kind");
  w.String(trial.kind);
  w.Key("methodology_version");
  w.String(p.kind().methodology_version(p.rules()));
  w.Key("note_chars");
  w.Uint(CodePointCount(output));
  w.Key("score_total");
  w.Double(outcome->score_total);
  w.Key("script_id");
  w.String(trial.id);
  w.Key("sealed");
  w.Bool(trial.sealed);
  w.Key("terminology");
  w.Value(validator.Versions());
  w.Key("trial_title");
  w.String(trial.title);
  w.Key("trial_version_hash");
  w.String(trial.version_hash);
  w.Key("unsafe");
  w.Bool(!outcome->critical_errors.empty());
  p.kind().Render(trial, *outcome, w);
  w.EndObject();
  return out;
}

json Grade(const PreparedTrial& p, std::string_view output, const std::string& corpus_hash, DrugValidator& validator) {
  return json::parse(GradeText(p, output, corpus_hash, validator));
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
