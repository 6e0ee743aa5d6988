// fhir/extract_score.cpp — P/R/F1 on RxNorm codes, the display layer, exact-set match.
#include "fhir/extract_score.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "fhir/answer_json.h"
#include "fhir/display.h"
#include "text.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// The answer's medications, or an error naming the first item that does not follow the format.
bool ReadAnswer(const json& object, std::vector<MedicationCode>& out, std::string& error) {
  const json& list = object["active_medications"];
  if (!list.is_array()) {
    error = std::string("active_medications must be an array, got ") + list.type_name();
    return false;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    std::string where = "active_medications[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      error = where + " must be an object, got " + item.type_name();
      return false;
    }
    auto code = item.find("code");
    if (code == item.end() || !code->is_string() || Trim(code->get<std::string>()).empty()) {
      error = where + ".code must be a non-empty string";
      return false;
    }
    auto display = item.find("display");
    if (display == item.end() || !display->is_string()) {
      error = where + ".display must be a string";
      return false;
    }
    out.push_back({Trim(code->get<std::string>()), display->get<std::string>()});
  }
  return true;
}

// [{"code", "display"}, …]; with `record_codes`, each also "in_bundle": whether the record has it.
void WriteCodes(JsonWriter& w, const std::vector<MedicationCode>& v,
                const std::set<std::string>* record_codes = nullptr) {
  w.BeginArray();
  for (const MedicationCode& m : v) {
    w.BeginObject();
    w.Key("code");
    w.String(m.code);
    w.Key("display");
    w.String(m.display);
    if (record_codes) {
      w.Key("in_bundle");
      w.Bool(record_codes->count(m.code) > 0);
    }
    w.EndObject();
  }
  w.EndArray();
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& v) {
  w.BeginArray();
  for (const std::string& s : v) w.String(s);
  w.EndArray();
}

// The report's members but score_total, in key order.
void WriteReportMembers(JsonWriter& w, const ExtractionResult& r, const std::set<std::string>* record_codes) {
  w.Key("answered");
  WriteCodes(w, r.answered);
  w.Key("display");
  w.BeginObject();
  w.Key("accuracy");
  if (r.matched.empty()) w.Null();
  else w.Double(Round4(static_cast<double>(r.displays_matched) / r.matched.size()));
  w.Key("checked");
  w.Uint(r.matched.size());
  w.Key("matched");
  w.Uint(r.displays_matched);
  w.Key("mismatches");
  w.BeginArray();
  for (const DisplayMismatch& d : r.display_mismatches) {
    w.BeginObject();
    w.Key("answered");
    w.String(d.answered);
    w.Key("code");
    w.String(d.code);
    w.Key("expected");
    w.String(d.expected);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("duplicates");
  WriteStrings(w, r.duplicates);
  w.Key("exact_set_match");
  w.Bool(r.exact_set_match);
  w.Key("expected");
  WriteCodes(w, r.expected);
  w.Key("extra");
  WriteCodes(w, r.extra, record_codes);
  w.Key("f1");
  w.Double(Round4(r.f1));
  w.Key("matched");
  WriteStrings(w, r.matched);
  w.Key("missing");
  WriteCodes(w, r.missing);
  w.Key("parse_error");
  if (r.parsed) w.Null();
  else w.String(r.parse_error);
  w.Key("parsed");
  w.Bool(r.parsed);
  w.Key("precision");
  w.Double(Round4(r.precision));
  w.Key("recall");
  w.Double(Round4(r.recall));
}

}  // namespace

ExtractionResult ScoreExtraction(const std::vector<MedicationCode>& truth, std::string_view output_text) {
  ExtractionResult r;
  std::unordered_set<std::string> truth_codes;
  for (const MedicationCode& m : truth)
    if (truth_codes.insert(m.code).second) r.expected.push_back(m);

  AnswerObject answer = FindAnswerObject(output_text, HasKey("active_medications"), "the key \"active_medications\"");
  std::vector<MedicationCode> items;
  if (!answer.ok || !ReadAnswer(answer.value, items, r.parse_error)) {
    if (!answer.ok) r.parse_error = answer.error;
    r.missing = r.expected;
    return r;
  }
  r.parsed = true;

  std::unordered_map<std::string, std::string> answered_display;
  for (const MedicationCode& m : items) {
    if (answered_display.emplace(m.code, m.display).second) {
      r.answered.push_back(m);
    } else if (std::find(r.duplicates.begin(), r.duplicates.end(), m.code) == r.duplicates.end()) {
      r.duplicates.push_back(m.code);
    }
  }
  for (const MedicationCode& m : r.expected) {
    auto it = answered_display.find(m.code);
    if (it == answered_display.end()) {
      r.missing.push_back(m);
      continue;
    }
    r.matched.push_back(m.code);
    if (NormalizeDisplay(it->second) == NormalizeDisplay(m.display))
      ++r.displays_matched;
    else
      r.display_mismatches.push_back({m.code, m.display, it->second});
  }
  for (const MedicationCode& m : r.answered)
    if (!truth_codes.count(m.code)) r.extra.push_back(m);

  const size_t tp = r.matched.size(), n_expected = r.expected.size(), n_answered = r.answered.size();
  if (n_expected == 0 && n_answered == 0) {
    r.precision = r.recall = r.f1 = 1;
  } else if (n_expected > 0 && n_answered > 0) {
    r.precision = static_cast<double>(tp) / n_answered;
    r.recall = static_cast<double>(tp) / n_expected;
    r.f1 = tp == 0 ? 0 : 2 * r.precision * r.recall / (r.precision + r.recall);
  }
  r.exact_set_match = r.missing.empty() && r.extra.empty();
  r.score = r.f1;
  return r;
}

void WriteReport(JsonWriter& w, const ExtractionResult& r, const std::set<std::string>& record_codes) {
  w.BeginObject();
  WriteReportMembers(w, r, &record_codes);
  w.EndObject();
}

json RenderExtraction(const ExtractionResult& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  WriteReportMembers(w, r, nullptr);
  w.Key("score_total");
  w.Double(Round4(r.score));
  w.EndObject();
  return json::parse(out);
}

}  // namespace scribe::fhir
