// sig_read.cpp — reads sigs the way the grader does, for scripts/eval_sigs.py.
//
//   build/tests/sig_read < sigs.tsv > readings.jsonl
//
// Input: one sig per line, "id<TAB>text" (a line without a tab is all text, id = line number).
// Output: one JSON object per line: {"id", "drugs": [every drug mention of extract_drugs, with
// drug, key, class, dose {value, low, unit}, per_day, prn, route], "sig": the whole text read as the
// sig of one unnamed drug (ReadWholeSig), same fields}.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "extract.h"

namespace {

using nlohmann::json;

json DoseJson(const std::optional<scribe::Dose>& d) {
  if (!d) return nullptr;
  return {{"value", d->value}, {"low", d->low ? json(*d->low) : json(nullptr)}, {"unit", d->unit}};
}

json Reading(const std::optional<scribe::Dose>& dose, const scribe::Frequency& f, const std::optional<std::string>& route) {
  return {{"dose", DoseJson(dose)},
          {"per_day", f.per_day ? json(*f.per_day) : json(nullptr)},
          {"prn", f.prn},
          {"route", route ? json(*route) : json(nullptr)}};
}

}  // namespace

int main() {
  std::string line;
  size_t line_no = 0;
  while (std::getline(std::cin, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string id = std::to_string(line_no), text = line;
    if (auto tab = line.find('\t'); tab != std::string::npos) {
      id = line.substr(0, tab);
      text = line.substr(tab + 1);
    }
    json drugs = json::array();
    for (const scribe::DrugMention& m : scribe::AnalyzeText(text).drugs) {
      json j = Reading(m.dose, m.frequency, m.route);
      j["mention"] = m.mention;
      j["drug"] = m.drug.empty() ? json(nullptr) : json(m.drug);
      j["key"] = m.key;
      j["class"] = m.drug_class.empty() ? json(nullptr) : json(m.drug_class);
      drugs.push_back(j);
    }
    scribe::Sig whole = scribe::ReadWholeSig(text);
    json out = {{"id", id}, {"drugs", drugs}, {"sig", Reading(whole.dose, whole.frequency, whole.route)}};
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }
  return 0;
}
