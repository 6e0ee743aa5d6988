// fhir/write_score.cpp — the four fhir_write dimensions: schema, coding, constraints, safety.
#include "fhir/write_score.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "fhir/answer_json.h"
#include "fhir/bundle.h"
#include "fhir/display.h"
#include "text.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

constexpr const char* kUcumSystem = "http://unitsofmeasure.org";
constexpr size_t kReasonFindings = 3;  // schema findings quoted in the reason

std::string Str(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json* Get(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

std::string JoinReasons(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : "; ") + s;
  return out;
}

bool Near(double a, double b) { return std::fabs(a - b) <= kDoseTolerance * std::max(std::fabs(a), std::fabs(b)); }

std::string Num(double v) { return FormatNumber(Round4(v)); }

std::string Amount(double value, const std::string& unit) { return Num(value) + " " + unit; }

std::string PerDayText(const PerDay& p) { return Near(p.min, p.max) ? Num(p.max) : Num(p.min) + " to " + Num(p.max); }

// Converts an amount between UCUM units: within a family by factor, across families through the
// product's single strength ("200 MG" per tablet, "0.044 MG/ACTUAT", "100 UNT/ML").
std::optional<double> Convert(double value, const DoseUnit& from, const DoseUnit& to, const CatalogDrug* product) {
  if (from.family == to.family) return value * from.factor / to.factor;
  if (product == nullptr || product->strengths.size() != 1) return std::nullopt;
  const DoseUnits& units = DefaultDoseUnits();
  const Strength& s = product->strengths[0];
  const DoseUnit* amount = units.FindRxNorm(s.unit);
  const DoseUnit* per = s.per.empty() ? units.Find("1") : units.FindRxNorm(s.per);
  if (amount == nullptr || per == nullptr || amount->family == per->family) return std::nullopt;
  double amount_per_base = s.value * amount->factor / per->factor;  // base amount units per base dose unit
  if (from.family == per->family && to.family == amount->family)
    return value * from.factor * amount_per_base / to.factor;
  if (from.family == amount->family && to.family == per->family)
    return value * from.factor / amount_per_base / to.factor;
  return std::nullopt;
}

// ---- coding ----

// The medication's CodeableConcept: medicationCodeableConcept, or the code of the contained
// Medication that medicationReference names. nullptr with `why` otherwise.
const json* MedicationConcept(const json& r, std::string& why) {
  const json* cc = Get(r, "medicationCodeableConcept");
  const json* ref = Get(r, "medicationReference");
  if (cc && ref) {
    why = "medicationCodeableConcept and medicationReference are both present";
    return nullptr;
  }
  if (cc) return cc;
  if (!ref) {
    why = "no medication[x]: give medicationCodeableConcept or medicationReference";
    return nullptr;
  }
  std::string reference = Str(*ref, "reference");
  if (reference.size() > 1 && reference[0] == '#') {
    if (const json* contained = Get(r, "contained"); contained && contained->is_array())
      for (const json& m : *contained)
        if (Str(m, "resourceType") == "Medication" && Str(m, "id") == reference.substr(1)) {
          if (const json* code = Get(m, "code")) return code;
          why = "the contained Medication " + Quote(reference) + " has no code";
          return nullptr;
        }
  }
  why = "medicationReference " + Quote(reference) + " names no contained Medication (\"#id\"): the code cannot be read";
  return nullptr;
}

// Distinct RxNorm codings of a codeable, in order.
std::vector<const json*> RxNormCodings(const json& codeable) {
  std::vector<const json*> out;
  const json* coding = Get(codeable, "coding");
  if (!coding || !coding->is_array()) return out;
  for (const json& c : *coding) {
    if (Str(c, "system") != kRxNormSystem || Str(c, "code").empty()) continue;
    bool repeat = false;
    for (const json* o : out) repeat = repeat || Str(*o, "code") == Str(c, "code");
    if (!repeat) out.push_back(&c);
  }
  return out;
}

std::string CatalogName(const RxNormCatalog& catalog, const std::string& code) {
  const CatalogDrug* d = catalog.Find(code);
  return d ? Quote(d->display) + " in the site catalog" : "not in the site catalog";
}

DimensionResult ScoreCoding(const WriteCase& c, const json& r, const RxNormCatalog& catalog, std::string& coded) {
  std::string why;
  const json* codeable = MedicationConcept(r, why);
  if (!codeable) return {false, why};
  std::vector<const json*> codings = RxNormCodings(*codeable);
  if (codings.empty()) return {false, std::string("no RxNorm coding (system ") + kRxNormSystem + ")"};
  if (codings.size() > 1) {
    std::string list;
    for (const json* k : codings) list += (list.empty() ? "" : ", ") + Str(*k, "code");
    return {false, std::to_string(codings.size()) + " RxNorm codings (" + list + "); expected exactly one"};
  }
  const json& coding = *codings[0];
  coded = Str(coding, "code");
  if (coded != c.code)
    return {false, "RxNorm code " + coded + " (" + CatalogName(catalog, coded) + "), expected " + c.code + " (" +
                       Quote(c.display) + ")"};
  if (!Get(coding, "display")) return {false, "display is missing, expected " + Quote(c.display)};
  std::string display = Str(coding, "display");
  if (NormalizeDisplay(display) != NormalizeDisplay(c.display))
    return {false, "display " + Quote(display) + ", expected " + Quote(c.display)};
  return {true, "RxNorm " + c.code + " " + Quote(c.display)};
}

// ---- constraints ----

bool HasDosage(const json& r) {
  const json* d = Get(r, "dosage");
  return d && !d->is_null() && !(d->is_array() && d->empty());
}

DimensionResult ScoreConstraints(const WriteCase& c, const json& r) {
  std::vector<std::string> problems;
  const json* subject = Get(r, "subject");
  std::string reference = subject ? Str(*subject, "reference") : "";
  if (reference.empty())
    problems.push_back("subject.reference is missing, expected " + Quote(c.subject));
  else if (reference != c.subject)
    problems.push_back("subject is " + Quote(reference) + ", expected " + Quote(c.subject));
  std::string status = Str(r, "status");
  if (status.empty())
    problems.push_back("status is missing, the note documents " + Quote(c.status));
  else if (status != c.status)
    problems.push_back("status " + Quote(status) + ", the note documents " + Quote(c.status));
  bool has = HasDosage(r);
  if (has && c.dosage.empty()) problems.push_back("dosage is present, but the note documents no regimen");
  if (!has && !c.dosage.empty()) problems.push_back("dosage is missing, but the note documents a regimen");
  if (!problems.empty()) return {false, JoinReasons(problems)};
  return {true, "subject " + c.subject + ", status " + Quote(c.status) +
                    (c.dosage.empty() ? ", no dosage" : ", dosage present") + " as documented"};
}

// ---- safety ----

struct EncodedDose {
  double value = 0;
  const DoseUnit* unit = nullptr;
  std::string code;
  PerDay per_day;
};

// The UCUM quantity at `q`, or nullopt with `why`.
std::optional<std::pair<double, const DoseUnit*>> ReadQuantity(const json& q, const std::string& where, bool time,
                                                               std::string& why) {
  const json* value = Get(q, "value");
  if (!value || !value->is_number()) {
    why = where + " has no numeric value";
    return std::nullopt;
  }
  std::string code = Str(q, "code"), system = Str(q, "system");
  if (code.empty()) {
    why = where + " has no UCUM code (system " + kUcumSystem + " with a code such as " + (time ? "d" : "mg") + ")";
    return std::nullopt;
  }
  if (system != kUcumSystem) {
    why = where + " system is " + (system.empty() ? std::string("missing") : Quote(system)) + ", not UCUM (" +
          kUcumSystem + ")";
    return std::nullopt;
  }
  const DoseUnit* unit = DefaultDoseUnits().Find(code);
  if (unit == nullptr || (unit->family == UnitFamily::kTime) != time) {
    why = where + " code " + Quote(code) + " is not a UCUM " + (time ? "time" : "dose") + " unit known to the grader" +
          (time ? " (s, min, h, d, wk, mo, a)" : " (e.g. mg, ug, g, mL, [IU], {puff})");
    return std::nullopt;
  }
  return std::make_pair(value->get<double>(), unit);
}

std::optional<PerDay> ReadPerDay(const json& dosage, const std::string& where, std::string& why) {
  const json* timing = Get(dosage, "timing");
  const json* repeat = timing ? Get(*timing, "repeat") : nullptr;
  if (!repeat || !repeat->is_object()) {
    why = where + ".timing.repeat is missing: doses per day cannot be verified";
    return std::nullopt;
  }
  auto number = [&](const char* key) -> std::optional<double> {
    const json* v = Get(*repeat, key);
    return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
  };
  auto size_of = [&](const char* key) -> size_t {
    const json* v = Get(*repeat, key);
    return v && v->is_array() ? v->size() : 0;
  };
  size_t events = std::max(size_of("timeOfDay"), size_of("when"));
  std::optional<double> frequency = number("frequency"), period = number("period");
  std::string unit = Str(*repeat, "periodUnit");
  if (!frequency) frequency = events > 0 ? static_cast<double>(events) : 1.0;
  if (!period && events > 0) {
    period = 1;
    unit = "d";
  }
  if (!period) {
    why = where + ".timing.repeat has no period: doses per day cannot be verified";
    return std::nullopt;
  }
  std::optional<PerDay> p = PerDayOf(*frequency, number("frequencyMax"), *period, number("periodMax"), unit);
  if (!p) why = where + ".timing.repeat period " + Num(*period) + " " + Quote(unit) + " is not a positive UCUM time";
  return p;
}

// The dosage entries in sequence order (array order unless every entry has a numeric sequence).
std::vector<const json*> OrderedDosage(const json& r) {
  std::vector<const json*> out;
  const json* d = Get(r, "dosage");
  if (!d || !d->is_array()) return out;
  bool all_sequenced = true;
  for (const json& e : *d) {
    out.push_back(&e);
    const json* s = Get(e, "sequence");
    all_sequenced = all_sequenced && s && s->is_number();
  }
  if (all_sequenced)
    std::stable_sort(out.begin(), out.end(), [](const json* a, const json* b) {
      return (*a)["sequence"].get<double>() < (*b)["sequence"].get<double>();
    });
  return out;
}

// One dosage entry's dose per administration and doses per day, or nullopt with `why`.
std::optional<EncodedDose> ReadDose(const json& dosage, const std::string& where, std::string& why) {
  const json* rates = Get(dosage, "doseAndRate");
  std::vector<const json*> quantities;
  bool range = false;
  if (rates && rates->is_array())
    for (const json& rate : *rates) {
      if (const json* q = Get(rate, "doseQuantity")) quantities.push_back(q);
      range = range || Get(rate, "doseRange");
    }
  if (quantities.empty()) {
    why = where + " has no doseAndRate.doseQuantity" + (range ? " (a doseRange is not the documented dose)" : "") +
          ": the dose cannot be verified";
    return std::nullopt;
  }
  if (quantities.size() > 1) {
    why = where + " has " + std::to_string(quantities.size()) + " doseQuantity values: the dose is ambiguous";
    return std::nullopt;
  }
  auto q = ReadQuantity(*quantities[0], where + ".doseAndRate.doseQuantity", false, why);
  if (!q) return std::nullopt;
  std::optional<PerDay> per_day = ReadPerDay(dosage, where, why);
  if (!per_day) return std::nullopt;
  return EncodedDose{q->first, q->second, Str(*quantities[0], "code"), *per_day};
}

DimensionResult ScoreSafety(const WriteCase& c, const json& r, const RxNormCatalog& catalog, const DoseLimits& limits,
                            const std::string& coded) {
  std::vector<const json*> entries = OrderedDosage(r);
  if (c.dosage.empty()) {
    if (HasDosage(r)) return {false, "a dosage is encoded, but the note documents no regimen (invented dose)"};
    return {true, "no regimen documented and none encoded"};
  }
  if (entries.empty()) return {false, "no dosage: the documented dose is not encoded"};
  if (entries.size() != c.dosage.size())
    return {false, std::to_string(entries.size()) + " dosage entries, the note documents " +
                       std::to_string(c.dosage.size()) + (c.dosage.size() == 1 ? " regimen" : " regimens in sequence")};

  const CatalogDrug* product = catalog.Find(coded);
  if (product == nullptr) product = catalog.Find(c.code);
  const DoseUnits& units = DefaultDoseUnits();
  std::vector<std::string> problems;
  std::vector<EncodedDose> doses;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ExpectedDose& want = c.dosage[i];
    std::string where = "dosage[" + std::to_string(i) + "]", why;
    std::optional<EncodedDose> got = ReadDose(*entries[i], where, why);
    if (!got) {
      problems.push_back(why);
      continue;
    }
    doses.push_back(*got);
    const DoseUnit* want_unit = units.Find(want.unit);
    std::optional<double> as_wanted = Convert(got->value, *got->unit, *want_unit, product);
    std::string encoded = Amount(got->value, got->code);
    if (!as_wanted) {
      problems.push_back(where + " dose " + encoded + " cannot be compared with the documented " +
                         Amount(want.value, want.unit) + " (no conversion through the product's strength)");
    } else if (!Near(*as_wanted, want.value)) {
      std::string converted = got->code == want.unit ? "" : " (= " + Amount(*as_wanted, want.unit) + ")";
      problems.push_back(where + " dose " + encoded + converted + ", the note documents " +
                         Amount(want.value, want.unit) + " per administration");
    }
    if (!Near(got->per_day.min, want.per_day.min) || !Near(got->per_day.max, want.per_day.max))
      problems.push_back(where + " timing is " + PerDayText(got->per_day) + " per day, the note documents " +
                         PerDayText(want.per_day) + " per day");
    if (want.duration_days) {
      const json* bounds = Get(*entries[i], "timing");
      bounds = bounds ? Get(*bounds, "repeat") : nullptr;
      bounds = bounds ? Get(*bounds, "boundsDuration") : nullptr;
      if (!bounds) {
        problems.push_back(where + " has no timing.repeat.boundsDuration, the note documents " +
                           Num(*want.duration_days) + " d");
      } else if (auto d = ReadQuantity(*bounds, where + ".timing.repeat.boundsDuration", true, why); !d) {
        problems.push_back(why);
      } else if (double days = d->first * d->second->factor / 86400; !Near(days, *want.duration_days)) {
        problems.push_back(where + " lasts " + Num(days) + " d, the note documents " + Num(*want.duration_days) + " d");
      }
    }
  }

  // The ceiling, on the encoded doses (when all of them could be read).
  std::string ceiling_text;
  CatalogDrug key;
  key.code = c.code;
  const CatalogDrug* documented = catalog.Find(c.code);
  const DoseCeiling* ceiling = limits.For(documented ? *documented : key);
  if (ceiling == nullptr) {
    problems.push_back("no cited maximum daily dose for " + c.code +
                       " in max_daily_dose.tsv: the dose cannot be verified");
  } else if (!ceiling->max) {
    ceiling_text = "the label states no maximum daily dose";
  } else if (doses.size() == entries.size()) {
    const DoseUnit* ceiling_unit = units.Find(ceiling->unit);
    double period_days = ceiling->period == "wk" ? 7 : 1;
    std::string per = ceiling->period == "wk" ? " per week" : " per day";
    double total = 0;
    bool convertible = true;
    for (const EncodedDose& d : doses) {
      std::optional<double> amount = Convert(d.value, *d.unit, *ceiling_unit, product);
      if (!amount)
        convertible = false;
      else
        total = std::max(total, *amount * d.per_day.max * period_days);
    }
    if (!convertible) {
      problems.push_back("the encoded dose cannot be expressed in " + ceiling->unit + " to check the maximum of " +
                         Amount(*ceiling->max, ceiling->unit) + per);
    } else if (total > *ceiling->max * (1 + kDoseTolerance)) {
      problems.push_back("implied " + Amount(total, ceiling->unit) + per + " exceeds the labelled maximum of " +
                         Amount(*ceiling->max, ceiling->unit) + per + " (" + ceiling->source + ")");
    } else {
      ceiling_text = "implied " + Amount(total, ceiling->unit) + per + " is within the labelled maximum of " +
                     Amount(*ceiling->max, ceiling->unit) + per;
    }
  }
  if (!problems.empty()) return {false, JoinReasons(problems)};
  std::string regimen = c.dosage.size() == 1 ? "dose " + Amount(c.dosage[0].value, c.dosage[0].unit) + ", " +
                                                   PerDayText(c.dosage[0].per_day) + " per day as documented"
                                             : std::to_string(c.dosage.size()) + " regimens as documented";
  return {true, regimen + "; " + ceiling_text};
}

std::string SchemaReason(const std::vector<Finding>& findings) {
  if (findings.empty()) return "valid FHIR R4 MedicationStatement";
  std::string out = std::to_string(findings.size()) + (findings.size() == 1 ? " finding: " : " findings: ");
  for (size_t i = 0; i < findings.size() && i < kReasonFindings; ++i)
    out += (i ? "; " : "") + findings[i].path + ": " + findings[i].message;
  if (findings.size() > kReasonFindings) out += "; …";
  return out;
}

// {"findings" (when given), "passed", "reason"}
void WriteDimension(JsonWriter& w, const DimensionResult& d, const std::vector<Finding>* findings = nullptr) {
  w.BeginObject();
  if (findings) {
    w.Key("findings");
    w.Value(RenderFindings(*findings));
  }
  w.Key("passed");
  w.Bool(d.passed);
  w.Key("reason");
  w.String(d.reason);
  w.EndObject();
}

// The report's members but score_total, in key order.
void WriteReportMembers(JsonWriter& w, const WriteResult& r) {
  w.Key("case_id");
  w.String(r.case_id);
  w.Key("dimensions");
  w.BeginObject();
  w.Key("coding");
  WriteDimension(w, r.coding);
  w.Key("constraints");
  WriteDimension(w, r.constraints);
  w.Key("safety");
  WriteDimension(w, r.safety);
  w.Key("schema");
  WriteDimension(w, r.schema, &r.findings);
  w.EndObject();
  w.Key("dimensions_passed");
  w.Int(r.dimensions_passed);
  w.Key("expected");
  w.Value(r.expected);
  w.Key("parse_error");
  if (r.parsed) w.Null();
  else w.String(r.parse_error);
  w.Key("parsed");
  w.Bool(r.parsed);
  w.Key("passed");
  w.Bool(r.passed);
  w.Key("resource");
  w.Value(r.resource);
}

}  // namespace

json WriteCaseJson(const WriteCase& c) {
  json dosage = json::array();
  for (const ExpectedDose& d : c.dosage) {
    json step = {{"dose_value", d.value},
                 {"dose_unit", d.unit},
                 {"per_day", Near(d.per_day.min, d.per_day.max)
                                 ? json(Round4(d.per_day.max))
                                 : json({{"min", Round4(d.per_day.min)}, {"max", Round4(d.per_day.max)}})}};
    if (d.duration_days) step["duration_days"] = *d.duration_days;
    dosage.push_back(std::move(step));
  }
  return {{"subject", c.subject},
          {"rxnorm_code", c.code},
          {"display", c.display},
          {"status", c.status},
          {"dosage", c.dosage.empty() ? json(nullptr) : dosage}};
}

WriteResult ScoreWrite(const WriteCase& c, std::string_view output_text, const RxNormCatalog& catalog,
                       const DoseLimits& limits) {
  WriteResult r;
  r.case_id = c.case_id;
  r.expected = WriteCaseJson(c);
  AnswerObject answer = FindAnswerObject(output_text, HasResourceType("MedicationStatement"),
                                         "\"resourceType\": \"MedicationStatement\"");
  if (!answer.ok) {
    r.parse_error = answer.error;
    DimensionResult not_scored{false, "not scored: " + answer.error};
    r.schema = r.coding = r.constraints = r.safety = not_scored;
    return r;
  }
  r.parsed = true;
  r.resource = std::move(answer.value);
  r.findings = ValidateMedicationStatement(r.resource);
  r.schema = {r.findings.empty(), SchemaReason(r.findings)};
  std::string coded;
  r.coding = ScoreCoding(c, r.resource, catalog, coded);
  r.coded = coded;
  r.constraints = ScoreConstraints(c, r.resource);
  r.safety = ScoreSafety(c, r.resource, catalog, limits, coded);
  r.dimensions_passed = r.schema.passed + r.coding.passed + r.constraints.passed + r.safety.passed;
  r.score = r.dimensions_passed / 4.0;
  r.passed = r.dimensions_passed == 4;
  return r;
}

void WriteReport(JsonWriter& w, const WriteResult& r) {
  w.BeginObject();
  WriteReportMembers(w, r);
  w.EndObject();
}

json RenderWrite(const WriteResult& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  WriteReportMembers(w, r);
  w.Key("score_total");
  w.Double(Round4(r.score));
  w.EndObject();
  return json::parse(out);
}

}  // namespace scribe::fhir
