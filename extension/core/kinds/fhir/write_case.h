// fhir/write_case.h — a fhir_write case: a note excerpt and the MedicationStatement it documents.
//
//   WriteCase c = LoadWriteCase("tylenol-brand-name");        // corpus/scripts/fhir/write_cases/<id>.json
//   WriteCase d = ParseWriteCase(json_text, "inline case");   // the same shape from a trial
//
// Case file (JSON; groundeval's shape, extended):
//   {"case_id": "…", "subject": "Patient/pat-002", "input": "<note excerpt>",
//    "expected": {"rxnorm_code": "209387", "display": "Acetaminophen 325 MG Oral Tablet [Tylenol]",
//                 "status": "active",
//                 "dosage": {"dose_value": 325, "dose_unit": "mg", "frequency_per_day": 4},
//                 "max_daily_dose": 4000}}
//   dosage: null (the note documents no regimen), one regimen, or a list of regimens in order (a
//     taper; each may give "duration_days"). dose_unit is a UCUM code (mg, ug, mL, [IU], {puff}).
//     The frequency is "frequency_per_day" (a number, or {"min", "max"}) or "frequency":
//     {"count", "period", "period_unit", optional "period_max"} read like FHIR timing.repeat.
//   max_daily_dose: null, a number (in dose_unit per day) or {"value", "unit", "period": "d"|"wk"};
//     informative — the scorer's ceiling is max_daily_dose.tsv, and the tests check they agree.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scribe::fhir {

// Doses per day; min == max unless the note gives a range ("every 4 to 6 hours").
struct PerDay {
  double min = 0, max = 0;
};

struct ExpectedDose {
  double value = 0;
  std::string unit;  // UCUM
  PerDay per_day;
  std::optional<double> duration_days;  // a taper step's length
};

struct CaseCeiling {
  double value = 0;
  std::string unit, period;  // UCUM unit; "d" or "wk"
};

struct WriteCase {
  std::string case_id, source, subject, input;
  std::string code, display, status;
  std::vector<ExpectedDose> dosage;  // empty: the note documents no regimen
  std::optional<CaseCeiling> max_daily_dose;
};

// Throws std::invalid_argument "<where>: <key path> <problem>".
WriteCase ParseWriteCase(const nlohmann::json& j, std::string_view where);
WriteCase ParseWriteCase(std::string_view json_text, std::string_view where);

// A committed case of corpus/scripts/fhir/write_cases/ by id (tests and tools; trials read theirs
// through the corpus loader); throws std::invalid_argument for an unknown id.
WriteCase LoadWriteCase(std::string_view case_id);

// Doses per day of a FHIR-like repeat: count per period [to period_max] in a UCUM time unit.
// nullopt when the unit is not a time unit or a period is not positive.
std::optional<PerDay> PerDayOf(double count, std::optional<double> count_max, double period,
                               std::optional<double> period_max, std::string_view period_unit);

}  // namespace scribe::fhir
