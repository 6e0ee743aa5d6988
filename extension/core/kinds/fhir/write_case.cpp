// fhir/write_case.cpp — reading write cases (corpus/scripts/fhir/write_cases/*.json).
#include "fhir/write_case.h"

#include <stdexcept>

#include "embedded.h"
#include "fhir/catalog.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

[[noreturn]] void Fail(std::string_view where, const std::string& path, const std::string& problem) {
  throw std::invalid_argument(std::string(where) + ": " + path + " " + problem);
}

std::string Join(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

const json& Required(const json& j, const char* key, const std::string& path, std::string_view where) {
  if (!j.is_object() || !j.contains(key)) Fail(where, Join(path, key), "is required");
  return j[key];
}

std::string RequiredString(const json& j, const char* key, const std::string& path, std::string_view where) {
  const json& v = Required(j, key, path, where);
  if (!v.is_string() || v.get_ref<const std::string&>().empty())
    Fail(where, Join(path, key), "must be a non-empty string");
  return v.get<std::string>();
}

double RequiredNumber(const json& j, const char* key, const std::string& path, std::string_view where) {
  const json& v = Required(j, key, path, where);
  if (!v.is_number() || v.get<double>() <= 0) Fail(where, Join(path, key), "must be a positive number");
  return v.get<double>();
}

std::string DoseUnitOf(const json& j, const char* key, const std::string& path, std::string_view where) {
  std::string unit = RequiredString(j, key, path, where);
  const DoseUnit* u = DefaultDoseUnits().Find(unit);
  if (u == nullptr || u->family == UnitFamily::kTime)
    Fail(where, Join(path, key), "\"" + unit + "\" is not a UCUM dose unit of corpus/fhir/dose_units.tsv");
  return unit;
}

ExpectedDose ParseDose(const json& j, const std::string& path, std::string_view where) {
  if (!j.is_object()) Fail(where, path, "must be an object");
  ExpectedDose d;
  d.value = RequiredNumber(j, "dose_value", path, where);
  d.unit = DoseUnitOf(j, "dose_unit", path, where);
  bool per_day = j.contains("frequency_per_day"), frequency = j.contains("frequency");
  if (per_day == frequency) Fail(where, path, "needs exactly one of frequency_per_day and frequency");
  if (per_day) {
    const json& f = j["frequency_per_day"];
    if (f.is_number() && f.get<double>() > 0) {
      d.per_day = {f.get<double>(), f.get<double>()};
    } else if (f.is_object()) {
      d.per_day = {RequiredNumber(f, "min", path + ".frequency_per_day", where),
                   RequiredNumber(f, "max", path + ".frequency_per_day", where)};
      if (d.per_day.min > d.per_day.max) Fail(where, path + ".frequency_per_day", "min must not exceed max");
    } else {
      Fail(where, path + ".frequency_per_day", "must be a positive number or {\"min\", \"max\"}");
    }
  } else {
    const json& f = j["frequency"];
    std::string fp = path + ".frequency";
    double count = RequiredNumber(f, "count", fp, where);
    double period = RequiredNumber(f, "period", fp, where);
    std::optional<double> period_max;
    if (f.contains("period_max")) period_max = RequiredNumber(f, "period_max", fp, where);
    std::string unit = RequiredString(f, "period_unit", fp, where);
    std::optional<PerDay> p = PerDayOf(count, std::nullopt, period, period_max, unit);
    if (!p) Fail(where, fp + ".period_unit", "must be a UCUM time unit (s, min, h, d, wk, mo, a)");
    d.per_day = *p;
  }
  if (j.contains("duration_days")) d.duration_days = RequiredNumber(j, "duration_days", path, where);
  return d;
}

}  // namespace

std::optional<PerDay> PerDayOf(double count, std::optional<double> count_max, double period,
                               std::optional<double> period_max, std::string_view period_unit) {
  const DoseUnit* u = DefaultDoseUnits().Find(period_unit);
  if (u == nullptr || u->family != UnitFamily::kTime || period <= 0 || (period_max && *period_max <= 0))
    return std::nullopt;
  const double day = 86400;
  double shortest = period * u->factor, longest = (period_max ? *period_max : period) * u->factor;
  if (longest < shortest) std::swap(longest, shortest);
  return PerDay{count * day / longest, (count_max ? *count_max : count) * day / shortest};
}

WriteCase ParseWriteCase(const json& j, std::string_view where) {
  if (!j.is_object()) Fail(where, "the case", "must be a JSON object");
  WriteCase c;
  c.case_id = RequiredString(j, "case_id", "", where);
  c.source = j.contains("source") && j["source"].is_string() ? j["source"].get<std::string>() : "";
  c.subject = RequiredString(j, "subject", "", where);
  c.input = RequiredString(j, "input", "", where);
  const json& e = Required(j, "expected", "", where);
  c.code = RequiredString(e, "rxnorm_code", "expected", where);
  c.display = RequiredString(e, "display", "expected", where);
  c.status = RequiredString(e, "status", "expected", where);
  const json& dosage = Required(e, "dosage", "expected", where);
  if (dosage.is_array()) {
    if (dosage.empty()) Fail(where, "expected.dosage", "must not be an empty list (use null)");
    for (size_t i = 0; i < dosage.size(); ++i)
      c.dosage.push_back(ParseDose(dosage[i], "expected.dosage[" + std::to_string(i) + "]", where));
  } else if (!dosage.is_null()) {
    c.dosage.push_back(ParseDose(dosage, "expected.dosage", where));
  }
  if (e.contains("max_daily_dose") && !e["max_daily_dose"].is_null()) {
    const json& m = e["max_daily_dose"];
    if (m.is_number()) {
      if (c.dosage.empty()) Fail(where, "expected.max_daily_dose", "as a number needs a dosage (its unit)");
      if (m.get<double>() <= 0) Fail(where, "expected.max_daily_dose", "must be a positive number");
      c.max_daily_dose = CaseCeiling{m.get<double>(), c.dosage[0].unit, "d"};
    } else {
      CaseCeiling ceiling{RequiredNumber(m, "value", "expected.max_daily_dose", where),
                          DoseUnitOf(m, "unit", "expected.max_daily_dose", where),
                          RequiredString(m, "period", "expected.max_daily_dose", where)};
      if (ceiling.period != "d" && ceiling.period != "wk")
        Fail(where, "expected.max_daily_dose.period", "must be \"d\" or \"wk\"");
      c.max_daily_dose = ceiling;
    }
  }
  return c;
}

WriteCase ParseWriteCase(std::string_view json_text, std::string_view where) {
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument(std::string(where) + ": not valid JSON");
  return ParseWriteCase(j, where);
}

WriteCase LoadWriteCase(std::string_view case_id) {
  std::string file = "corpus/scripts/fhir/write_cases/" + std::string(case_id) + ".json";
  std::string_view text = embedded_file(file);
  if (text.empty()) throw std::invalid_argument("unknown write case '" + std::string(case_id) + "'");
  WriteCase c = ParseWriteCase(text, file);
  if (c.case_id != case_id) throw std::invalid_argument(file + ": case_id is \"" + c.case_id + "\"");
  return c;
}

}  // namespace scribe::fhir
