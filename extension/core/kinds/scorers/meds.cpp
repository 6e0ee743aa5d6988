// meds.cpp — expected medications and drug-accuracy scoring (see meds.h).
#include "meds.h"

#include <algorithm>
#include <cmath>

namespace scribe {
namespace {

using nlohmann::json;

constexpr double kDoseTolerance = 0.01;
constexpr double kMagnitudeRatio = 10.0;

bool DoseMatches(const Dose& expected, const Dose& found) { return SameDose(expected, found, kDoseTolerance); }

bool FrequencyMatches(const Frequency& expected, const Frequency& found) {
  if (expected.prn != found.prn) return false;
  if (!expected.per_day) return true;
  if (!found.per_day) return false;
  return std::fabs(*expected.per_day - *found.per_day) <= kDoseTolerance * *expected.per_day;
}

std::string PerDayText(const Frequency& f) {
  if (!f.per_day) return f.prn ? "no fixed frequency prn" : "no fixed frequency";
  return Cat({FormatNumber(Round4(*f.per_day)), f.prn ? "/day prn" : "/day"});
}

// The checks of one mention against the expected medication.
std::vector<MedCheck> Checks(const ExpectedMed& em, const Credit& cw, const DrugMention& m) {
  std::vector<MedCheck> parts;
  parts.reserve(5);  // name, dose, frequency, route, action
  const std::string& drug = m.drug.empty() ? m.mention : m.drug;
  parts.push_back({"name", cw.name, true, true,
                   m.match && m.match->kind == MatchKind::kApproximate
                       ? Cat({"same ingredient: ", drug, " (approximate match of \"", m.mention, "\")"})
                       : Cat({"same ingredient: ", drug})});
  if (!em.dose) {
    parts.push_back({"dose", cw.dose, true, false, "no dose expected"});
  } else {
    const Dose* hit = nullptr;
    for (const Dose& d : m.doses)
      if (DoseMatches(*em.dose, d)) { hit = &d; break; }
    if (hit) parts.push_back({"dose", cw.dose, true, true, Cat({"expected ", em.dose->Text(), ", found ", hit->Text()})});
    else if (m.dose) parts.push_back({"dose", cw.dose, false, true, Cat({"expected ", em.dose->Text(), ", found ", m.dose->Text()})});
    else parts.push_back({"dose", cw.dose, false, false, Cat({"expected ", em.dose->Text(), ", no dose found"})});
  }
  if (!em.frequency) {
    parts.push_back({"frequency", cw.frequency, true, false, "no frequency expected"});
  } else {
    bool ok = FrequencyMatches(*em.frequency, m.frequency);
    bool given = m.frequency.per_day || m.frequency.prn;
    std::string found = given ? Cat({"\"", m.frequency.text, "\" (", PerDayText(m.frequency), ")"}) : std::string("no frequency");
    parts.push_back({"frequency", cw.frequency, ok, given,
                     Cat({"expected \"", em.frequency->text, "\" (", PerDayText(*em.frequency), "), found ", found})});
  }
  // route and action: always compared, scored only when the trial gives them credit
  if (!em.route) parts.push_back({"route", cw.route, true, false, "no route expected"});
  else parts.push_back({"route", cw.route, m.route && *m.route == *em.route, m.route.has_value(),
                        Cat({"expected ", *em.route, ", found ", m.route ? std::string_view(*m.route) : "no route"})});
  if (!em.action) parts.push_back({"action", cw.action, true, false, "no action expected"});
  else parts.push_back({"action", cw.action, m.action && *m.action == *em.action, m.action.has_value(),
                         Cat({"expected ", *em.action, ", found ", m.action ? std::string_view(*m.action) : "no action"})});
  return parts;
}

}  // namespace

// A phantom mention's key (kPhantomKeyPrefix, then its word) compares as the key an expected
// medication the terminology does not know gets, "name:<words>" (ResolveDrugName).
constexpr std::string_view kNamePrefix = "name:";

void ResolveDrugName(const std::string& name, const Terminology& terminology, std::vector<std::string>& keys,
                     std::string* drug, std::string* rxcui, bool* known) {
  if (auto m = terminology.Lookup(name); m && m->kind != MatchKind::kApproximate) {
    keys.push_back(terminology.IngredientKey(m->concept_id));
    if (drug && drug->empty()) {
      *drug = terminology.IngredientNames(m->concept_id);
      for (const std::string& r : terminology.concept_at(m->concept_id).ingredients)
        *rxcui += (rxcui->empty() ? "" : " / ") + r;
    }
    if (known) *known = true;
  } else {
    keys.push_back(Cat({kNamePrefix, NormalizePhrase(name)}));
    if (drug && drug->empty()) *drug = NormalizePhrase(name);
  }
}

namespace {

// The medication as a result reports it: {"action", "dose", "drug", "frequency", "name",
// "per_day", "prn", "route", "rxcui"}.
void WriteExpected(JsonWriter& w, const ExpectedMed& em) {
  w.BeginObject();
  w.Key("action");
  if (em.action) w.String(*em.action);
  else w.Null();
  w.Key("dose");
  w.StringOrNull(em.dose_text);
  w.Key("drug");
  w.String(em.drug);
  w.Key("frequency");
  w.StringOrNull(em.frequency_text);
  w.Key("name");
  w.String(em.name);
  w.Key("per_day");
  if (em.frequency && em.frequency->per_day) w.Double(Round4(*em.frequency->per_day));
  else w.Null();
  w.Key("prn");
  w.Bool(em.frequency ? em.frequency->prn : false);
  w.Key("route");
  if (em.route) w.String(*em.route);
  else w.Null();
  w.Key("rxcui");
  w.StringOrNull(em.rxcui);
  w.EndObject();
}

}  // namespace

ExpectedMed ParseExpectedMed(const YAML::Node& n, const SchemaPath& c, const Rules& rules, const Terminology& terminology) {
  if (!n.IsMap()) c.Fail("expected a mapping with name, dose, frequency, route, action");
  CheckKeys(n, c, {"name", "dose", "frequency", "route", "action", "synonyms"});
  ExpectedMed med;
  med.name = std::string(Trim(RequiredString(n, "name", c)));
  med.dose_text = OptionalString(n, "dose", c);
  med.frequency_text = OptionalString(n, "frequency", c);
  med.route_text = OptionalString(n, "route", c);
  med.action_text = OptionalString(n, "action", c);
  med.synonyms = StringList(n["synonyms"], c.Key("synonyms"));

  SigParser sig(rules);
  ResolveDrugName(med.name, terminology, med.keys, &med.drug, &med.rxcui, &med.in_terminology);
  for (const std::string& s : med.synonyms) ResolveDrugName(s, terminology, med.keys);
  std::sort(med.keys.begin(), med.keys.end());
  med.keys.erase(std::unique(med.keys.begin(), med.keys.end()), med.keys.end());
  if (!med.dose_text.empty()) {
    med.dose = sig.ParseDose(med.dose_text);
    if (!med.dose) c.Key("dose").Fail("cannot parse dose " + Quote(med.dose_text) + " (expected e.g. \"50 mg\", \"two 200 mg tablets\", \"2 puffs\")");
  }
  if (!med.frequency_text.empty()) {
    med.frequency = sig.ParseFrequency(med.frequency_text);
    if (!med.frequency) c.Key("frequency").Fail("cannot parse frequency " + Quote(med.frequency_text) + " (expected e.g. \"twice daily\", \"q8h\", \"q4-6h prn\", \"weekly\")");
  }
  if (!med.route_text.empty()) {
    med.route = sig.ParseRoute(med.route_text);
    if (!med.route) c.Key("route").Fail("unknown route " + Quote(med.route_text) + " (see corpus/rules/routes.tsv)");
  }
  if (!med.action_text.empty()) {
    std::string a = rules.CanonicalAction(med.action_text);
    if (a.empty()) c.Key("action").Fail("unknown action " + Quote(med.action_text) + " (expected start, continue, stop, increase or decrease)");
    med.action = a;
  }
  JsonWriter w(med.expected_json);
  WriteExpected(w, med);
  return med;
}

json ExpectedMedJson(const ExpectedMed& m) {
  json j = {{"name", m.name}};
  if (!m.dose_text.empty()) j["dose"] = m.dose_text;
  if (!m.frequency_text.empty()) j["frequency"] = m.frequency_text;
  if (!m.route_text.empty()) j["route"] = m.route_text;
  if (!m.action_text.empty()) j["action"] = m.action_text;
  if (!m.synonyms.empty()) j["synonyms"] = m.synonyms;
  return j;
}

std::string ComparisonKey(const DrugMention& m) {
  return m.phantom ? Cat({kNamePrefix, std::string_view(m.key).substr(kPhantomKeyPrefix.size())}) : m.key;
}

bool SameDrug(const ExpectedMed& med, const DrugMention& m) {
  // ComparisonKey(m) among the keys, compared without making it
  const std::string_view key = m.key;
  const std::string_view name = m.phantom ? key.substr(kPhantomKeyPrefix.size()) : key;
  for (std::string_view k : med.keys)
    if (m.phantom ? k.starts_with(kNamePrefix) && k.substr(kNamePrefix.size()) == name : k == key)
      return true;
  return false;
}

MedResult ScoreMed(const ExpectedMed& em, const Credit& cw, const AnalyzedText& note, DrugValidator& validator) {
  MedResult r;
  const DrugMention* best = nullptr;
  double best_credit = -1;
  int best_passes = -1;
  const DrugMention* other = nullptr;  // first mention not for the patient (negated, family, …)
  for (const DrugMention& m : note.drugs) {
    // "allergic to amoxicillin" names a drug the patient must not take, not one taken.
    if (!SameDrug(em, m) || m.in_allergy_context) continue;
    if (!ForPatient(m.assertion)) {
      if (!other) other = &m;
      continue;
    }
    std::vector<MedCheck> parts = Checks(em, cw, m);
    double credit = 0;
    int passes = 0;  // tie-break on every component, weighted or not (route, action)
    for (const MedCheck& c : parts) {
      credit += c.pass ? c.weight : 0;
      passes += c.pass ? 1 : 0;
    }
    if (credit > best_credit + 1e-12 || (std::fabs(credit - best_credit) <= 1e-12 && passes > best_passes)) {
      best_credit = credit;
      best_passes = passes;
      best = &m;
      r.checks = std::move(parts);
    }
  }
  if (best) {
    r.found = *best;
    r.credit = best_credit;
    r.status = best_credit >= 1.0 - 1e-9 ? "correct" : "partial";
    r.validation = validator.Validate(best->mention, best->match);
  } else {
    r.status = "missing";
    r.missing_why = other ? "mentioned only as " + std::string(AssertionName(other->assertion)) + ": \"" +
                                SentenceOf(note, other->tok_begin) + "\""
                          : "not found in the note";
    r.validation = validator.Validate(em.name, std::nullopt);
  }
  return r;
}

std::optional<CriticalError> DoseMagnitudeError(const ExpectedMed& em, const AnalyzedText& note) {
  if (!em.dose) return std::nullopt;
  for (const DrugMention& m : note.drugs) {
    if (!SameDrug(em, m) || !ForPatient(m.assertion) || m.in_allergy_context) continue;
    for (const Dose& d : m.doses) {
      if (d.family != em.dose->family || em.dose->Base() <= 0 || d.Base() <= 0) continue;
      double ratio = d.Base() / em.dose->Base();
      if (ratio < kMagnitudeRatio - 1e-9 && ratio > 1.0 / kMagnitudeRatio + 1e-12) continue;
      std::string times = ratio >= 1 ? FormatNumber(Round4(ratio)) + "x" : "1/" + FormatNumber(Round4(1.0 / ratio));
      std::string unit_swap = d.unit != em.dose->unit ? " (" + d.unit + " written for " + em.dose->unit + ")" : "";
      return CriticalError{"dose_magnitude",
                           em.name + ": note says " + d.Text() + ", expected " + em.dose->Text() + " — " + times +
                               " the expected dose" + unit_swap,
                           "", MakeEvidence(note, d.begin, d.end)};
    }
  }
  return std::nullopt;
}

void WriteMed(JsonWriter& w, const ExpectedMed& em, const MedResult& r) {
  // The checks by part, in key order (action, dose, frequency, name, route).
  std::vector<const MedCheck*> checks;
  for (const MedCheck& c : r.checks) checks.push_back(&c);
  std::stable_sort(checks.begin(), checks.end(), [](const MedCheck* a, const MedCheck* b) { return a->part < b->part; });
  auto check_of = [&](std::string_view part) -> const MedCheck* {
    for (const MedCheck* c : checks)
      if (c->part == part) return c;
    return nullptr;
  };
  w.BeginObject();
  w.Key("checks");
  w.BeginObject();
  if (r.found) {
    for (const MedCheck* c : checks) {
      w.Key(c->part);
      w.Concat({c->pass ? "ok: " : "wrong: ", c->why});
    }
  } else {
    w.Key("name");
    w.Concat({"missing: ", r.missing_why});
  }
  w.EndObject();
  w.Key("credit");
  w.BeginObject();
  for (std::string_view part : {"action", "dose", "frequency", "name", "route"}) {
    const MedCheck* c = check_of(part);
    w.Key(part);
    w.Double(c ? Round4(c->pass ? c->weight : 0.0) : 0.0);
  }
  w.Key("total");
  w.Double(r.found ? Round4(r.credit) : 0.0);
  w.EndObject();
  w.Key("expected");
  if (em.expected_json.empty()) WriteExpected(w, em);
  else w.Raw(em.expected_json);
  w.Key("found");
  if (r.found) WriteMention(w, *r.found);
  else w.Null();
  w.Key("key");
  w.Concat({"med:", em.name});  // how a reviewer names it (scribe_review)
  w.Key("status");
  w.String(r.status);
  w.Key("validation");
  r.validation.Write(w);
  w.EndObject();
}

}  // namespace scribe
