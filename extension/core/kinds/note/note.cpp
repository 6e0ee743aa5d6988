// note.cpp — kind `note` (see note.h): schema, prepared form, scorer and renderer.
#include "note.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "scorers/claims_check.h"
#include "scorers/encounter.h"

namespace scribe {
namespace {

using nlohmann::json;

struct NotePrepared : PreparedBody {
  NotePrepared(const NoteTrial& t, const Trial& trial, const Environment& env)
      : env(env),
        encounter(trial.encounter_text, env),
        flags(t.mental_flags, env.rules),
        allergies(t.allergies, env),
        asserted(t.traps, t.deferred_dx, env.rules),
        critical(t.critical_errors, env.rules),
        claims(encounter.analyzed) {
    for (const ExpectedMed& m : t.meds) expected_keys.insert(m.keys.begin(), m.keys.end());
    std::vector<const PhraseMatcher*> swept;
    flags.AddMatchers(swept);
    allergies.AddMatchers(swept);
    asserted.AddMatchers(swept);
    critical.AddMatchers(swept);
    starts = MatcherStarts(std::move(swept));
  }
  // `starts` points at the matchers of the scorers: a copy would point at these.
  NotePrepared(const NotePrepared&) = delete;
  NotePrepared& operator=(const NotePrepared&) = delete;
  Environment env;
  PreparedEncounter encounter;
  FlagMatcher flags;
  AllergyChecker allergies;
  AssertedPhrases asserted;
  CriticalRuleChecker critical;
  ClaimCheck claims;
  std::set<std::string> expected_keys;
  // Every phrase of the trial's flags, allergies, traps, deferred diagnoses and critical rules:
  // where they may start in a note, found in one pass over it.
  MatcherStarts starts;
};

struct NoteOutcome : Outcome {
  AnalyzedText note;
  double score_drug = 1, score_mental = 1, score_fabrication = 1;
  bool drug_applies = true, mental_applies = true;  // a category with no items is not applicable
  double weight_sum = 1;                            // of the applicable categories
  std::vector<MedResult> meds;
  std::vector<FlagMatcher::Result> flags;
  std::vector<AllergyChecker::Result> allergies;
  std::vector<AssertedPhrases::Result> traps, deferred;
  std::vector<UnsupportedDrug> unsupported;
  std::vector<UnsupportedClaim> claims;  // unsupported content no trap foresaw
  size_t captured = 0, triggered = 0;
};

class Note final : public Kind {
 public:
  std::string_view name() const override { return "note"; }
  std::string_view description() const override {
    return "a free-text note against structured ground truth: drug accuracy, mental-health capture, fabrication; "
           "score_total = sum of weight x category";
  }
  std::vector<std::string> keys() const override { return {"ground_truth", "weights", "credit", "critical_errors"}; }

  void Parse(const YAML::Node& root, const SchemaPath& top, const ParseEnv& env, Trial& trial) const override {
    auto body = std::make_shared<NoteTrial>();
    SchemaPath gt_ctx = top.Key("ground_truth");
    YAML::Node gt = root["ground_truth"];
    if (!gt || gt.IsNull()) gt_ctx.Fail("is required");
    if (!gt.IsMap()) gt_ctx.Fail("expected a mapping with meds, allergies, mental_flags, deferred_dx, fabrication_traps");
    CheckKeys(gt, gt_ctx, {"meds", "allergies", "mental_flags", "deferred_dx", "fabrication_traps"});
    auto list = [&](const char* key) {
      YAML::Node n = gt[key];
      if (n && !n.IsNull() && !n.IsSequence()) gt_ctx.Key(key).Fail("expected a list");
      return n;
    };
    YAML::Node meds = list("meds");
    for (size_t i = 0; meds && i < meds.size(); ++i)
      body->meds.push_back(ParseExpectedMed(meds[i], gt_ctx.Key("meds").Index(i), env.rules, env.terminology));
    YAML::Node allergies = list("allergies");
    for (size_t i = 0; allergies && i < allergies.size(); ++i)
      body->allergies.push_back(ParseExpectedAllergy(allergies[i], gt_ctx.Key("allergies").Index(i)));
    YAML::Node flags = list("mental_flags");
    for (size_t i = 0; flags && i < flags.size(); ++i)
      body->mental_flags.push_back(ParseMentalFlag(flags[i], gt_ctx.Key("mental_flags").Index(i)));
    body->deferred_dx = StringList(list("deferred_dx"), gt_ctx.Key("deferred_dx"));
    YAML::Node traps = list("fabrication_traps");
    for (size_t i = 0; traps && i < traps.size(); ++i)
      body->traps.push_back(ParseTrap(traps[i], gt_ctx.Key("fabrication_traps").Index(i)));

    SchemaPath w_ctx = top.Key("weights");
    YAML::Node w = root["weights"];
    if (!w || w.IsNull()) w_ctx.Fail("is required");
    if (!w.IsMap()) w_ctx.Fail("expected a mapping {drug, mental, fabrication}");
    CheckKeys(w, w_ctx, {"drug", "mental", "fabrication"});
    body->weights.drug = Number(w["drug"], w_ctx.Key("drug"));
    body->weights.mental = Number(w["mental"], w_ctx.Key("mental"));
    body->weights.fabrication = Number(w["fabrication"], w_ctx.Key("fabrication"));
    double sum = body->weights.drug + body->weights.mental + body->weights.fabrication;
    if (std::fabs(sum - 1.0) > 1e-6) {
      std::ostringstream os;
      os << "must sum to 1.0, got " << sum;
      w_ctx.Fail(os.str());
    }

    if (YAML::Node cr = root["credit"]; cr && !cr.IsNull()) {
      SchemaPath c = top.Key("credit");
      if (!cr.IsMap()) c.Fail("expected a mapping {name, dose, frequency, route, action}");
      CheckKeys(cr, c, {"name", "dose", "frequency", "route", "action"});
      Credit credit{0, 0, 0, 0, 0};
      if (cr["name"]) credit.name = Number(cr["name"], c.Key("name"));
      if (cr["dose"]) credit.dose = Number(cr["dose"], c.Key("dose"));
      if (cr["frequency"]) credit.frequency = Number(cr["frequency"], c.Key("frequency"));
      if (cr["route"]) credit.route = Number(cr["route"], c.Key("route"));
      if (cr["action"]) credit.action = Number(cr["action"], c.Key("action"));
      double total = credit.name + credit.dose + credit.frequency + credit.route + credit.action;
      if (std::fabs(total - 1.0) > 1e-6) {
        std::ostringstream os;
        os << "must sum to 1.0, got " << total;
        c.Fail(os.str());
      }
      body->credit = credit;
      body->credit_overridden = true;
    }
    body->critical_errors = ParseCriticalRules(root["critical_errors"], top.Key("critical_errors"), env.rules, env.terminology);
    trial.body = std::move(body);
  }

  json GroundTruth(const Trial& trial) const override {
    const NoteTrial& t = NoteOf(trial);
    json meds = json::array(), allergies = json::array(), flags = json::array(), traps = json::array();
    for (const auto& m : t.meds) meds.push_back(ExpectedMedJson(m));
    for (const auto& a : t.allergies) allergies.push_back(ExpectedAllergyJson(a));
    for (const auto& f : t.mental_flags) flags.push_back(MentalFlagJson(f));
    for (const auto& tr : t.traps) traps.push_back(TrapJson(tr));
    return {{"meds", std::move(meds)}, {"allergies", std::move(allergies)}, {"mental_flags", std::move(flags)},
            {"deferred_dx", t.deferred_dx}, {"fabrication_traps", std::move(traps)}};
  }

  std::shared_ptr<const PreparedBody> Prepare(const Trial& trial, const Environment& env) const override {
    return std::make_shared<NotePrepared>(NoteOf(trial), trial, env);
  }

  std::unique_ptr<Outcome> Score(const Trial& trial, const PreparedBody& prepared, std::string_view output,
                                 GradeContext& ctx) const override {
    const NoteTrial& t = NoteOf(trial);
    const auto& p = static_cast<const NotePrepared&>(prepared);
    const Environment& env = p.env;
    auto o = std::make_unique<NoteOutcome>();
    o->note = AnalyzeText(output, env.rules, env.terminology, env.assertion);
    const AnalyzedText& note = o->note;

    const PhraseStarts starts = p.starts.Find(note.text.tokens);

    double drug_sum = 0;
    for (const ExpectedMed& em : t.meds) {
      o->meds.push_back(ScoreMed(em, t.credit, note, ctx.validator));
      drug_sum += o->meds.back().credit;
      if (auto err = DoseMagnitudeError(em, note)) o->critical_errors.push_back(std::move(*err));
    }
    double score_drug = t.meds.empty() ? 1.0 : drug_sum / static_cast<double>(t.meds.size());

    o->flags = p.flags.Score(note, o->critical_errors, starts);
    for (const auto& f : o->flags) o->captured += f.status == "captured";
    double score_mental = t.mental_flags.empty() ? 1.0 : static_cast<double>(o->captured) / t.mental_flags.size();

    o->allergies = p.allergies.Score(note, o->critical_errors, starts);

    o->traps = p.asserted.ScoreTraps(note, starts);
    o->deferred = p.asserted.ScoreDeferred(note, starts);
    for (const auto& r : o->traps) o->triggered += r.triggered;
    for (const auto& r : o->deferred) o->triggered += r.triggered;
    o->unsupported = FindUnsupportedDrugs(note, p.encounter, p.expected_keys, p.allergies.drug_keys(), ctx.validator);
    // Unsupported claims (docs/methodology.md §4): each counts as a trap the note set for itself,
    // in the numerator and the denominator. Content a fired trap already judged is not counted
    // twice.
    std::vector<std::pair<uint32_t, uint32_t>> judged;
    for (const auto* list : {&o->traps, &o->deferred})
      for (const auto& r : *list)
        for (const auto& h : r.hits)
          if (h.fires) judged.emplace_back(h.evidence.start_offset, h.evidence.end_offset);
    // ... and the sentences of a fired trap: "Chest x-ray: no infiltrate." is the trap's invention.
    for (const auto* list : {&o->traps, &o->deferred})
      for (const auto& r : *list)
        for (const auto& h : r.hits)
          if (h.fires) judged.push_back(SentenceSpanAt(note, h.evidence.start_offset));
    o->claims = p.claims.Find(note, judged);
    size_t trap_total = t.traps.size() + t.deferred_dx.size() + o->claims.size();
    double ratio = trap_total ? static_cast<double>(o->triggered + o->claims.size()) / trap_total : 0.0;
    double score_fab = std::max(0.0, 1.0 - ratio - kUnsupportedDrugPenalty * static_cast<double>(o->unsupported.size()));

    for (CriticalError& e : InventedPrescriptions(note, o->unsupported)) o->critical_errors.push_back(std::move(e));
    p.critical.Score(note, o->critical_errors, starts);
    AddInventedActions(o->claims, o->critical_errors);

    // A category with no items (no expected medications, no flags) is not applicable: the total
    // is the weighted mean of the applicable ones (fabrication always applies), so an empty
    // category with a weight never hands out free points. The total is computed from the
    // unrounded category scores; every score is rounded once.
    o->drug_applies = !t.meds.empty();
    o->mental_applies = !t.mental_flags.empty();
    double weighted = t.weights.fabrication * score_fab;
    o->weight_sum = t.weights.fabrication;
    if (o->drug_applies) { weighted += t.weights.drug * score_drug; o->weight_sum += t.weights.drug; }
    if (o->mental_applies) { weighted += t.weights.mental * score_mental; o->weight_sum += t.weights.mental; }
    o->score_total = Round4(o->weight_sum > 0 ? weighted / o->weight_sum : score_fab);
    o->score_drug = Round4(score_drug);
    o->score_mental = Round4(score_mental);
    o->score_fabrication = Round4(score_fab);
    return o;
  }

  void Render(const Trial& trial, const Outcome& outcome, JsonWriter& w) const override {
    const NoteTrial& t = NoteOf(trial);
    const auto& o = static_cast<const NoteOutcome&>(outcome);
    size_t correct = 0, missing = 0;
    for (const MedResult& m : o.meds) {
      correct += m.status == "correct";
      missing += m.status == "missing";
    }
    // Members in key order.
    w.Key("allergies");
    w.BeginArray();
    for (size_t i = 0; i < t.allergies.size(); ++i) WriteAllergy(w, t.allergies[i], o.allergies[i]);
    w.EndArray();
    auto category = [&](const char* name, bool applies, double weight, double score, size_t items) {
      w.Key(name);
      w.BeginObject();
      w.Key("applicable");
      w.Bool(applies);
      w.Key("effective_weight");
      w.Double(applies && o.weight_sum > 0 ? Round4(weight / o.weight_sum) : applies ? 1.0 : 0.0);
      w.Key("items");
      w.Uint(items);
      w.Key("score");
      if (applies) w.Double(score);
      else w.Null();
      w.Key("weight");
      w.Double(weight);
      w.EndObject();
    };
    w.Key("categories");
    w.BeginObject();
    category("drug", o.drug_applies, t.weights.drug, o.score_drug, t.meds.size());
    category("fabrication", true, t.weights.fabrication, o.score_fabrication,
             t.traps.size() + t.deferred_dx.size() + o.claims.size());
    category("mental", o.mental_applies, t.weights.mental, o.score_mental, t.mental_flags.size());
    w.EndObject();
    const std::pair<const char*, size_t> counts[] = {
        {"critical_errors", o.critical_errors.size()},
        {"flags_captured", o.captured},
        {"flags_expected", t.mental_flags.size()},
        {"meds_correct", correct},
        {"meds_expected", t.meds.size()},
        {"meds_missing", missing},
        {"traps_total", t.traps.size() + t.deferred_dx.size()},
        {"traps_triggered", o.triggered},
        {"unsupported_claims", o.claims.size()},
        {"unsupported_drugs", o.unsupported.size()}};
    w.Key("counts");
    w.BeginObject();
    for (const auto& [key, n] : counts) {
      w.Key(key);
      w.Uint(n);
    }
    w.EndObject();
    const std::pair<const char*, double> credit[] = {{"action", t.credit.action}, {"dose", t.credit.dose},
                                                     {"frequency", t.credit.frequency}, {"name", t.credit.name},
                                                     {"route", t.credit.route}};
    w.Key("credit");
    w.BeginObject();
    for (const auto& [key, value] : credit) {
      w.Key(key);
      w.Double(value);
    }
    w.EndObject();
    w.Key("deferred_dx");
    w.BeginArray();
    for (size_t i = 0; i < t.deferred_dx.size(); ++i) WriteDeferredResult(w, t.deferred_dx[i], o.deferred[i]);
    w.EndArray();
    w.Key("fabrication_traps");
    w.BeginArray();
    for (size_t i = 0; i < t.traps.size(); ++i) WriteTrapResult(w, t.traps[i], o.traps[i]);
    w.EndArray();
    w.Key("meds");
    w.BeginArray();
    for (size_t i = 0; i < t.meds.size(); ++i) WriteMed(w, t.meds[i], o.meds[i]);
    w.EndArray();
    w.Key("mental_flags");
    w.BeginArray();
    for (size_t i = 0; i < t.mental_flags.size(); ++i) WriteFlag(w, t.mental_flags[i], o.flags[i]);
    w.EndArray();
    w.Key("phantom_drugs");
    w.BeginArray();
    for (const UnsupportedDrug& u : o.unsupported)
      if (u.kind == "phantom") w.String(u.mention.mention);
    w.EndArray();
    w.Key("score_drug");
    w.Double(o.score_drug);
    w.Key("score_fabrication");
    w.Double(o.score_fabrication);
    w.Key("score_mental");
    w.Double(o.score_mental);
    // Listed up to the evidence cap (counts.unsupported_claims has them all), so a note of
    // invented lines cannot inflate its result.
    w.Key("unsupported_claims");
    w.BeginArray();
    for (size_t i = 0; i < o.claims.size() && i < kMaxEvidencePerItem; ++i) WriteUnsupportedClaim(w, o.claims[i]);
    w.EndArray();
    w.Key("unsupported_drugs");
    w.BeginArray();
    for (const UnsupportedDrug& u : o.unsupported) WriteUnsupportedDrug(w, u);
    w.EndArray();
    const std::pair<const char*, double> weights[] = {
        {"drug", t.weights.drug}, {"fabrication", t.weights.fabrication}, {"mental", t.weights.mental}};
    w.Key("weights");
    w.BeginObject();
    for (const auto& [key, value] : weights) {
      w.Key(key);
      w.Double(value);
    }
    w.EndObject();
  }

  // Critical errors, then medications not fully credited, flags and allergies not captured,
  // fabrication traps triggered, deferred diagnoses asserted, unsupported drugs and claims.
  std::vector<std::string> Reasons(const json& result, size_t limit) const override {
    std::vector<std::string> out = Kind::Reasons(result, limit);
    auto add = [&](std::string reason) {
      if (out.size() < limit) out.push_back(std::move(reason));
    };
    auto each = [&](const char* key, const auto& fn) {
      if (result.contains(key) && result[key].is_array())
        for (const json& e : result[key])
          if (e.is_object()) fn(e);
    };
    each("meds", [&](const json& m) {
      std::string status = m.value("status", "");
      if (status == "correct") return;
      std::string name = m.contains("expected") && m["expected"].is_object() ? m["expected"].value("name", "") : "";
      std::string wrong;
      if (m.contains("checks") && m["checks"].is_object())
        for (const auto& [part, why] : m["checks"].items())
          if (why.is_string() && why.get<std::string>().rfind("wrong", 0) == 0) wrong += (wrong.empty() ? "" : ", ") + part;
      add("medication " + name + ": " + status + (wrong.empty() ? "" : " (" + wrong + ")"));
    });
    each("mental_flags", [&](const json& f) {
      if (f.value("status", "") != "captured") add("flag " + f.value("flag", "") + ": " + f.value("status", ""));
    });
    each("allergies", [&](const json& a) {
      if (a.value("status", "") != "captured") add("allergy " + a.value("substance", "") + ": " + a.value("status", ""));
    });
    each("fabrication_traps", [&](const json& t) {
      if (t.value("triggered", false)) add("fabrication trap triggered: " + t.value("phrase", ""));
    });
    each("deferred_dx", [&](const json& d) {
      if (d.value("asserted", false)) add("deferred diagnosis asserted: " + d.value("diagnosis", ""));
    });
    each("unsupported_drugs", [&](const json& u) { add("unsupported drug: " + u.value("mention", "")); });
    each("unsupported_claims", [&](const json& c) {
      add("unsupported " + c.value("class", "") + ": " + c.value("subject", ""));
    });
    return out;
  }

  json Methodology() const override {
    return {{"kind", "note"},
            {"description", description()},
            {"scores",
             {{"drug", "mean credit over expected medications; default credit name 0.5, dose 0.25, frequency 0.25 (a trial may override); route and action reported"},
              {"mental", "captured flags / expected flags; a flag the note negates is contradicted: no credit and a critical error"},
              {"fabrication", "max(0, 1 - (triggered + unsupported claims)/(traps + deferred diagnoses + unsupported claims) "
                              "- 0.15 x unsupported drugs); an unsupported claim is a vital, exam finding, test, referral, "
                              "procedure, admission or lethal-means action the encounter does not support, once per class and subject"},
              {"total", "sum of weight x category score over the applicable categories, divided by their weights' sum "
                        "(a category with no items is not applicable; fabrication always applies); weights from the trial; "
                        "every score rounded to 4 decimals"}}},
            {"default_credit", {{"name", 0.5}, {"dose", 0.25}, {"frequency", 0.25}, {"route", 0.0}, {"action", 0.0}}},
            {"penalties", {{"unsupported_drug", kUnsupportedDrugPenalty}, {"dose_tolerance", 0.01}, {"dose_magnitude_critical_ratio", 10}}},
            {"critical_errors", {"contradicted_flag", "dropped_allergy", "contradicted_allergy", "dose_magnitude",
                                 "invented_prescription", "invented_action", "trial_rule"}}};
  }
};

}  // namespace

const Kind& NoteKind() {
  static Note kind;
  return kind;
}

}  // namespace scribe
