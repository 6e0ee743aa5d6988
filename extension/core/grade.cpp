// grade.cpp — scoring (see grade.h and docs/methodology.md).
#include "grade.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace scribe {
namespace {

using nlohmann::json;

constexpr double kUnsupportedDrugPenalty = 0.15;
constexpr double kDoseTolerance = 0.01;
constexpr double kMagnitudeRatio = 10.0;

bool ForPatient(Assertion a) { return a == Assertion::kAffirmed || a == Assertion::kHistorical; }

std::string Slice(const TokenizedText& t, size_t begin, size_t end) {
  if (begin >= end || end > t.tokens.size()) return {};
  return std::string(t.text.substr(t.tokens[begin].byte_begin, t.tokens[end - 1].byte_end - t.tokens[begin].byte_begin));
}

json Evidence(const AnalyzedText& a, size_t begin, size_t end) {
  return {{"text", Slice(a.text, begin, end)},
          {"start_offset", a.text.tokens[begin].char_begin},
          {"end_offset", a.text.tokens[end - 1].char_end},
          {"assertion", AssertionName(AssertionAnalyzer::Resolve(a.assertion_bits, begin, end))}};
}

// The sentence containing a token, for short context in messages.
std::string SentenceOf(const AnalyzedText& a, size_t token) {
  uint32_t s = a.text.sentence_of[token];
  std::string text = Slice(a.text, a.text.sentence_begin[s], a.text.sentence_end[s]);
  if (text.size() > 160) text = text.substr(0, 157) + "...";
  return text;
}

// Every equivalent phrasing of a phrase: itself, whole-phrase synonyms, and one sub-phrase
// substitution ("passive suicidal ideation" -> "passive SI").
std::vector<std::string> Expand(const std::string& phrase, const Rules& rules) {
  std::vector<std::string> out{phrase};
  std::string norm = FoldedPhrase(phrase);
  if (auto it = rules.synonyms_of.find(norm); it != rules.synonyms_of.end())
    out.insert(out.end(), it->second.begin(), it->second.end());
  std::string padded = " " + norm + " ";
  for (const auto& [a, b] : rules.clinical_synonyms) {
    for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      std::string f = " " + FoldedPhrase(from) + " ";
      size_t p = padded.find(f);
      if (p == std::string::npos || f.size() == padded.size()) continue;
      std::string replaced = padded.substr(0, p) + " " + to + " " + padded.substr(p + f.size());
      out.push_back(std::string(Trim(replaced)));
    }
  }
  return out;
}

bool DoseMatches(const Dose& expected, const Dose& found) {
  if (expected.family != found.family) return false;
  if (expected.family == "count" && expected.unit != found.unit) return false;
  double e = expected.Base(), f = found.Base();
  return std::fabs(e - f) <= kDoseTolerance * std::max(std::fabs(e), 1e-9);
}

bool FrequencyMatches(const Frequency& expected, const Frequency& found) {
  if (expected.prn != found.prn) return false;
  if (!expected.per_day) return true;
  if (!found.per_day) return false;
  return std::fabs(*expected.per_day - *found.per_day) <= kDoseTolerance * *expected.per_day;
}

std::string PerDayText(const Frequency& f) {
  std::string s = f.per_day ? FormatNumber(Round4(*f.per_day)) + "/day" : "no fixed frequency";
  if (f.prn) s += " prn";
  return s;
}

json DoseJson(const std::optional<Dose>& d) {
  if (!d) return nullptr;
  return {{"value", Round4(d->value)}, {"unit", d->unit}, {"text", d->Text()}};
}

json MentionJson(const DrugMention& m) {
  return {{"mention", m.mention},
          {"drug", m.drug.empty() ? json(nullptr) : json(m.drug)},
          {"rxcui", m.rxcui.empty() ? json(nullptr) : json(m.rxcui)},
          {"match", m.phantom ? "phantom" : std::string(MatchKindName(m.match->kind))},
          {"dose", DoseJson(m.dose)},
          {"frequency", m.frequency.text.empty() ? json(nullptr) : json(m.frequency.text)},
          {"per_day", m.frequency.per_day ? json(Round4(*m.frequency.per_day)) : json(nullptr)},
          {"prn", m.frequency.prn},
          {"route", m.route ? json(*m.route) : json(nullptr)},
          {"action", m.action ? json(*m.action) : json(nullptr)},
          {"assertion", AssertionName(m.assertion)},
          {"start_offset", m.char_begin},
          {"end_offset", m.char_end}};
}

struct Component {
  const char* name;
  double weight;
  bool pass;
  std::string why;
};

}  // namespace

// ---------------------------------------------------------------- PhraseSet

PhraseSet::PhraseSet(const std::vector<std::string>& phrases, const Rules& rules) : matcher_(true) {
  int id = 0;
  for (const std::string& p : phrases)
    for (const std::string& e : Expand(p, rules)) matcher_.Add(e, id++);
}

std::vector<PhraseSet::Hit> PhraseSet::Find(const TokenizedText& text) const {
  std::vector<Hit> hits;
  for (const PatternMatch& m : matcher_.FindAll(text.tokens, 0, text.tokens.size())) hits.push_back({m.begin, m.end});
  return hits;
}

// ---------------------------------------------------------------- PreparedTrial

PreparedTrial::PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology,
                             const AssertionAnalyzer& assertion)
    : trial_(std::move(trial)), rules_(rules), terminology_(terminology), assertion_(assertion) {
  encounter = AnalyzeText(trial_.encounter_text, rules, terminology, assertion);
  for (const DrugMention& m : encounter.drugs) encounter_drug_keys.insert(m.key);
  for (const Token& t : encounter.text.tokens)
    if (t.kind == TokenKind::kWord) encounter_words.insert(t.norm);
  for (const MentalFlag& f : trial_.mental_flags) {
    std::vector<std::string> phrases{f.flag};
    phrases.insert(phrases.end(), f.keywords.begin(), f.keywords.end());
    flag_phrases.emplace_back(phrases, rules);
    flag_words.push_back(PhraseWords(f.flag));
  }
  for (const Trap& t : trial_.traps) {
    std::vector<std::string> phrases{t.phrase};
    phrases.insert(phrases.end(), t.variants.begin(), t.variants.end());
    trap_phrases.emplace_back(phrases, rules);
  }
  for (const std::string& d : trial_.deferred_dx) deferred_phrases.emplace_back(std::vector<std::string>{d}, rules);
  for (const ExpectedAllergy& a : trial_.allergies) {
    allergy_phrases.emplace_back(std::vector<std::string>{a.substance}, rules);
    auto m = terminology.Lookup(a.substance);
    bool drug = m && m->kind != MatchKind::kApproximate;
    allergy_keys.push_back(drug ? terminology.IngredientKey(m->concept_id) : "");
    allergy_is_drug.push_back(!terminology.IsNonRxnormSubstance(NormalizePhrase(a.substance)));
  }
  for (const CriticalRule& r : trial_.critical_errors) critical_phrases.emplace_back(r.asserts, rules);
  allergy_cues = PhraseSet(rules.assertion.allergy_cues, rules);
  no_allergies = PhraseSet(rules.assertion.no_allergies, rules);
  no_drug_allergies = PhraseSet(rules.assertion.no_drug_allergies, rules);
  qualifiers.insert(rules.assertion.qualifiers.begin(), rules.assertion.qualifiers.end());
}

// ---------------------------------------------------------------- Grade

json Grade(const PreparedTrial& p, std::string_view note_text, const std::string& corpus_hash,
           DrugValidator& validator) {
  const Trial& trial = p.trial();
  const Rules& rules = p.rules();
  const AnalyzedText note = AnalyzeText(note_text, rules, p.terminology(), p.assertion());
  const auto& toks = note.text.tokens;
  json critical = json::array();
  auto add_critical = [&](const std::string& kind, const std::string& message, json evidence = nullptr) {
    critical.push_back({{"kind", kind}, {"message", message}, {"evidence", evidence}});
  };

  // --- Drug Accuracy
  std::set<std::string> expected_keys;
  for (const ExpectedMed& m : trial.meds) expected_keys.insert(m.keys.begin(), m.keys.end());
  const Credit& cw = trial.credit;
  json meds = json::array();
  double drug_sum = 0;
  for (const ExpectedMed& em : trial.meds) {
    auto same_drug = [&](const DrugMention& m) {
      std::string key = m.phantom ? "name:" + m.key.substr(8) : m.key;
      return std::find(em.keys.begin(), em.keys.end(), key) != em.keys.end();
    };
    const DrugMention* best = nullptr;
    double best_credit = -1;
    int best_passes = -1;
    std::vector<Component> best_parts;
    std::vector<const DrugMention*> other_mentions;
    for (const DrugMention& m : note.drugs) {
      if (!same_drug(m)) continue;
      if (!ForPatient(m.assertion)) { other_mentions.push_back(&m); continue; }
      std::vector<Component> parts;
      parts.push_back({"name", cw.name, true, "same ingredient: " + (m.drug.empty() ? m.mention : m.drug) +
                                                   (m.match && m.match->kind == MatchKind::kApproximate
                                                        ? " (approximate match of \"" + m.mention + "\")" : "")});
      // dose
      if (!em.dose) {
        parts.push_back({"dose", cw.dose, true, "no dose expected"});
      } else {
        const Dose* hit = nullptr;
        for (const Dose& d : m.doses)
          if (DoseMatches(*em.dose, d)) { hit = &d; break; }
        if (hit) parts.push_back({"dose", cw.dose, true, "expected " + em.dose->Text() + ", found " + hit->Text()});
        else if (m.dose) parts.push_back({"dose", cw.dose, false, "expected " + em.dose->Text() + ", found " + m.dose->Text()});
        else parts.push_back({"dose", cw.dose, false, "expected " + em.dose->Text() + ", no dose found"});
      }
      // frequency
      if (!em.frequency) {
        parts.push_back({"frequency", cw.frequency, true, "no frequency expected"});
      } else {
        bool ok = FrequencyMatches(*em.frequency, m.frequency);
        std::string found = m.frequency.per_day || m.frequency.prn
                                ? "\"" + m.frequency.text + "\" (" + PerDayText(m.frequency) + ")"
                                : std::string("no frequency");
        parts.push_back({"frequency", cw.frequency, ok,
                         "expected \"" + em.frequency->text + "\" (" + PerDayText(*em.frequency) + "), found " + found});
      }
      // route and action: always compared, scored only when the trial gives them credit
      if (!em.route) parts.push_back({"route", cw.route, true, "no route expected"});
      else parts.push_back({"route", cw.route, m.route && *m.route == *em.route,
                            "expected " + *em.route + ", found " + (m.route ? *m.route : std::string("no route"))});
      if (!em.action) parts.push_back({"action", cw.action, true, "no action expected"});
      else parts.push_back({"action", cw.action, m.action && *m.action == *em.action,
                             "expected " + *em.action + ", found " + (m.action ? *m.action : std::string("no action"))});
      double credit = 0;
      int passes = 0;  // tie-break on every component, weighted or not (route, action)
      for (const Component& c : parts) {
        credit += c.pass ? c.weight : 0;
        passes += c.pass ? 1 : 0;
      }
      if (credit > best_credit + 1e-12 || (std::fabs(credit - best_credit) <= 1e-12 && passes > best_passes)) {
        best_credit = credit;
        best_passes = passes;
        best = &m;
        best_parts = parts;
      }
    }
    json entry;
    entry["expected"] = {{"name", em.name}, {"drug", em.drug}, {"rxcui", em.rxcui.empty() ? json(nullptr) : json(em.rxcui)},
                         {"dose", em.dose_text.empty() ? json(nullptr) : json(em.dose_text)},
                         {"frequency", em.frequency_text.empty() ? json(nullptr) : json(em.frequency_text)},
                         {"per_day", em.frequency && em.frequency->per_day ? json(Round4(*em.frequency->per_day)) : json(nullptr)},
                         {"prn", em.frequency ? em.frequency->prn : false},
                         {"route", em.route ? json(*em.route) : json(nullptr)},
                         {"action", em.action ? json(*em.action) : json(nullptr)}};
    json credit = {{"name", 0.0}, {"dose", 0.0}, {"frequency", 0.0}, {"route", 0.0}, {"action", 0.0}, {"total", 0.0}};
    json checks = json::object();
    if (best) {
      for (const Component& c : best_parts) {
        credit[c.name] = Round4(c.pass ? c.weight : 0.0);
        checks[c.name] = (c.pass ? "ok: " : "wrong: ") + c.why;
      }
      credit["total"] = Round4(best_credit);
      drug_sum += best_credit;
      entry["found"] = MentionJson(*best);
      entry["status"] = best_credit >= 1.0 - 1e-9 ? "correct" : "partial";
      entry["validation"] = validator.Validate(best->mention, best->match).ToJson();
    } else {
      entry["found"] = nullptr;
      entry["status"] = "missing";
      std::string why = "not found in the note";
      if (!other_mentions.empty())
        why = "mentioned only as " + std::string(AssertionName(other_mentions.front()->assertion)) + ": \"" +
              SentenceOf(note, other_mentions.front()->tok_begin) + "\"";
      checks["name"] = "missing: " + why;
      entry["validation"] = validator.Validate(em.name, std::nullopt).ToJson();
    }
    entry["credit"] = credit;
    entry["checks"] = checks;
    // dose magnitude: the first mention of this drug for the patient with a dose >= 10x off
    auto magnitude_error = [&]() -> bool {
      if (!em.dose) return false;
      for (const DrugMention& m : note.drugs) {
        if (!same_drug(m) || !ForPatient(m.assertion)) continue;
        for (const Dose& d : m.doses) {
          if (d.family != em.dose->family || em.dose->Base() <= 0 || d.Base() <= 0) continue;
          double ratio = d.Base() / em.dose->Base();
          if (ratio < kMagnitudeRatio - 1e-9 && ratio > 1.0 / kMagnitudeRatio + 1e-12) continue;
          std::string times = ratio >= 1 ? FormatNumber(Round4(ratio)) + "x" : "1/" + FormatNumber(Round4(1.0 / ratio));
          std::string unit_swap = d.unit != em.dose->unit ? " (" + d.unit + " written for " + em.dose->unit + ")" : "";
          add_critical("dose_magnitude", em.name + ": note says " + d.Text() + ", expected " + em.dose->Text() + " — " +
                                             times + " the expected dose" + unit_swap,
                       Evidence(note, d.begin, d.end));
          return true;
        }
      }
      return false;
    };
    magnitude_error();
    meds.push_back(entry);
  }
  double score_drug = trial.meds.empty() ? 1.0 : drug_sum / static_cast<double>(trial.meds.size());

  // --- Mental-Health Capture
  json flags = json::array();
  size_t captured = 0;
  for (size_t i = 0; i < trial.mental_flags.size(); ++i) {
    const MentalFlag& f = trial.mental_flags[i];
    const auto& fw = p.flag_words[i];
    bool flag_has_qualifier = std::any_of(fw.begin(), fw.end(), [&](const std::string& w) { return p.qualifiers.count(w) > 0; });
    json evidence = json::array();
    bool affirmed = false, negated = false;
    for (const auto& hit : p.flag_phrases[i].Find(note.text)) {
      // "denies active SI" is about another thing than "passive suicidal ideation"
      if (hit.begin > 0 && toks[hit.begin - 1].kind == TokenKind::kWord && p.qualifiers.count(toks[hit.begin - 1].norm) &&
          flag_has_qualifier && std::find(fw.begin(), fw.end(), toks[hit.begin - 1].norm) == fw.end())
        continue;
      Assertion a = AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end);
      if (ForPatient(a)) affirmed = true;
      if (a == Assertion::kNegated) negated = true;
      evidence.push_back(Evidence(note, hit.begin, hit.end));
    }
    std::string status = affirmed ? "captured" : negated ? "contradicted" : "missed";
    if (affirmed) ++captured;
    if (status == "contradicted") {
      json ev = nullptr;
      for (const auto& e : evidence)
        if (e["assertion"] == "negated") { ev = e; break; }
      add_critical("contradicted_flag", "the note negates \"" + f.flag + "\", which the patient has", ev);
    }
    flags.push_back({{"flag", f.flag}, {"status", status}, {"evidence", evidence}});
  }
  double score_mental = trial.mental_flags.empty() ? 1.0 : static_cast<double>(captured) / trial.mental_flags.size();

  // --- Allergies (critical errors only)
  json allergies = json::array();
  const auto cue_hits = trial.allergies.empty() ? std::vector<PhraseSet::Hit>{} : p.allergy_cues.Find(note.text);
  auto in_allergy_context = [&](size_t token) {
    uint32_t s = note.text.sentence_of[token];
    size_t sb = note.text.sentence_begin[s], se = note.text.sentence_end[s];
    for (const auto& hit : cue_hits)
      if (hit.begin >= sb && hit.begin < se) return true;
    // or under a heading line ("Allergies:") above, within the same block
    for (size_t k = sb; k-- > 0;) {
      if (toks[k].blank_line_before && toks[k].line_start) {
        // heading of this block?
        for (const auto& hit : cue_hits)
          if (hit.begin == k) return true;
        return false;
      }
      if (toks[k].line_start) {
        size_t e = k;
        while (e < toks.size() && !(e > k && toks[e].line_start)) ++e;
        bool heading = e > k && toks[e - 1].kind == TokenKind::kPunct && toks[e - 1].norm == ":";
        if (heading) {
          for (const auto& hit : cue_hits)
            if (hit.begin >= k && hit.begin < e) return true;
          return false;
        }
      }
    }
    return false;
  };
  auto no_all = p.no_allergies.Find(note.text);
  auto no_drug = p.no_drug_allergies.Find(note.text);
  for (size_t i = 0; i < trial.allergies.size(); ++i) {
    const ExpectedAllergy& a = trial.allergies[i];
    json evidence = json::array();
    bool recorded = false, negated = false;
    std::vector<std::pair<size_t, size_t>> hits;
    for (const auto& hit : p.allergy_phrases[i].Find(note.text)) hits.emplace_back(hit.begin, hit.end);
    if (!p.allergy_keys[i].empty())
      for (const DrugMention& m : note.drugs)
        if (m.key == p.allergy_keys[i]) hits.emplace_back(m.tok_begin, m.tok_end);
    std::sort(hits.begin(), hits.end());
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    for (const auto& [b, e] : hits) {
      if (!in_allergy_context(b)) continue;
      Assertion as = AssertionAnalyzer::Resolve(note.assertion_bits, b, e);
      if (ForPatient(as)) recorded = true;
      if (as == Assertion::kNegated) negated = true;
      evidence.push_back(Evidence(note, b, e));
    }
    std::string status = recorded ? "captured" : "missed";
    json contra = nullptr;
    if (!no_all.empty()) contra = Evidence(note, no_all.front().begin, no_all.front().end);
    else if (!no_drug.empty() && p.allergy_is_drug[i]) contra = Evidence(note, no_drug.front().begin, no_drug.front().end);
    if (!contra.is_null() || (negated && !recorded)) {
      status = "contradicted";
      if (contra.is_null())
        for (const auto& e : evidence)
          if (e["assertion"] == "negated") { contra = e; break; }
      add_critical("contradicted_allergy", "the note denies the patient's " + a.substance + " allergy", contra);
    } else if (!recorded) {
      add_critical("dropped_allergy", "the " + a.substance + " allergy" + (a.reaction.empty() ? "" : " (" + a.reaction + ")") +
                                          " is not recorded as an allergy");
    }
    allergies.push_back({{"substance", a.substance}, {"reaction", a.reaction.empty() ? json(nullptr) : json(a.reaction)},
                         {"status", status}, {"evidence", evidence}});
  }

  // --- Fabrication
  json traps = json::array();
  size_t triggered = 0;
  for (size_t i = 0; i < trial.traps.size(); ++i) {
    const Trap& t = trial.traps[i];
    json evidence = json::array();
    bool hit_any = false;
    for (const auto& hit : p.trap_phrases[i].Find(note.text)) {
      Assertion a = AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end);
      bool fires = t.match_any || ForPatient(a);
      json ev = Evidence(note, hit.begin, hit.end);
      ev["triggers"] = fires;
      evidence.push_back(ev);
      hit_any = hit_any || fires;
    }
    if (hit_any) ++triggered;
    traps.push_back({{"phrase", t.phrase}, {"match", t.match_any ? "any" : "affirmed"}, {"triggered", hit_any},
                     {"evidence", evidence}});
  }
  json deferred = json::array();
  for (size_t i = 0; i < trial.deferred_dx.size(); ++i) {
    json evidence = json::array();
    bool asserted = false;
    for (const auto& hit : p.deferred_phrases[i].Find(note.text)) {
      Assertion a = AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end);
      json ev = Evidence(note, hit.begin, hit.end);
      ev["asserted"] = ForPatient(a);
      asserted = asserted || ForPatient(a);
      evidence.push_back(ev);
    }
    if (asserted) ++triggered;
    deferred.push_back({{"diagnosis", trial.deferred_dx[i]}, {"asserted", asserted}, {"evidence", evidence}});
  }
  json unsupported = json::array();
  json phantom_names = json::array();
  std::set<std::string> counted;
  for (const DrugMention& m : note.drugs) {
    if (!ForPatient(m.assertion)) continue;
    std::string key = m.phantom ? "name:" + m.key.substr(8) : m.key;
    if (expected_keys.count(key) || counted.count(key)) continue;
    if (std::find(p.allergy_keys.begin(), p.allergy_keys.end(), key) != p.allergy_keys.end()) continue;
    if (m.phantom) {
      if (p.encounter_words.count(Lower(m.mention))) continue;  // named in the encounter, just unknown to RxNorm
      Validation v = validator.Validate(m.mention, std::nullopt);
      counted.insert(key);
      std::string kind = v.found ? "unsupported" : "phantom";
      if (!v.found) phantom_names.push_back(m.mention);
      json j = MentionJson(m);
      j["kind"] = kind;
      j["reason"] = v.found ? "\"" + m.mention + "\" is a real drug (" + v.name + ") never named in the encounter"
                            : "\"" + m.mention + "\" has no good RxNorm match and is not in the ground truth";
      j["validation"] = v.ToJson();
      unsupported.push_back(j);
      continue;
    }
    if (p.encounter_drug_keys.count(m.key)) continue;
    counted.insert(key);
    json j = MentionJson(m);
    j["kind"] = "unsupported";
    j["reason"] = m.drug + " is never named in the encounter";
    j["validation"] = validator.Validate(m.mention, m.match).ToJson();
    unsupported.push_back(j);
  }
  size_t trap_total = trial.traps.size() + trial.deferred_dx.size();
  double ratio = trap_total ? static_cast<double>(triggered) / trap_total : 0.0;
  double score_fab = std::max(0.0, 1.0 - ratio - kUnsupportedDrugPenalty * static_cast<double>(unsupported.size()));

  // --- Trial-specific critical errors
  for (size_t i = 0; i < trial.critical_errors.size(); ++i) {
    const CriticalRule& r = trial.critical_errors[i];
    json ev = nullptr;
    if (!r.med.empty()) {
      for (const DrugMention& m : note.drugs) {
        if (!ForPatient(m.assertion) || !m.action) continue;
        if (std::find(r.med_keys.begin(), r.med_keys.end(), m.key) == r.med_keys.end()) continue;
        if (std::find(r.actions.begin(), r.actions.end(), *m.action) == r.actions.end()) continue;
        ev = Evidence(note, m.tok_begin, m.tok_end);
        ev["context"] = SentenceOf(note, m.tok_begin);
        break;
      }
    } else {
      for (const auto& hit : p.critical_phrases[i].Find(note.text)) {
        if (!ForPatient(AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end))) continue;
        ev = Evidence(note, hit.begin, hit.end);
        break;
      }
    }
    if (!ev.is_null()) {
      add_critical("trial_rule", r.description, ev);
      critical.back()["id"] = r.id;
    }
  }

  // The total is computed from the unrounded category scores; every score is rounded once.
  double total = Round4(trial.weights.drug * score_drug + trial.weights.mental * score_mental +
                        trial.weights.fabrication * score_fab);
  score_drug = Round4(score_drug);
  score_mental = Round4(score_mental);
  score_fab = Round4(score_fab);
  json result = {
      {"script_id", trial.id},
      {"trial_title", trial.title},
      {"difficulty", trial.difficulty},
      {"score_total", total},
      {"score_drug", score_drug},
      {"score_mental", score_mental},
      {"score_fabrication", score_fab},
      {"unsafe", !critical.empty()},
      {"critical_errors", critical},
      {"weights", {{"drug", trial.weights.drug}, {"mental", trial.weights.mental}, {"fabrication", trial.weights.fabrication}}},
      {"credit", {{"name", trial.credit.name}, {"dose", trial.credit.dose}, {"frequency", trial.credit.frequency},
                  {"route", trial.credit.route}, {"action", trial.credit.action}}},
      {"meds", meds},
      {"mental_flags", flags},
      {"allergies", allergies},
      {"fabrication_traps", traps},
      {"deferred_dx", deferred},
      {"unsupported_drugs", unsupported},
      {"phantom_drugs", phantom_names},
      {"counts", {{"meds_expected", trial.meds.size()},
                  {"meds_correct", std::count_if(meds.begin(), meds.end(), [](const json& m) { return m["status"] == "correct"; })},
                  {"meds_missing", std::count_if(meds.begin(), meds.end(), [](const json& m) { return m["status"] == "missing"; })},
                  {"flags_expected", trial.mental_flags.size()},
                  {"flags_captured", captured},
                  {"traps_triggered", triggered},
                  {"traps_total", trap_total},
                  {"unsupported_drugs", unsupported.size()},
                  {"critical_errors", critical.size()}}},
      {"grader_version", rules.grader_version},
      {"methodology_version", rules.methodology_version},
      {"corpus_hash", corpus_hash},
      {"trial_version_hash", trial.version_hash},
      {"terminology", validator.Versions()},
      {"note_chars", CodePointCount(note_text)},
      {"sealed", trial.sealed},
  };
  if (trial.sealed) {
    // Sealed: scores and counts only; nothing that would reveal the answer key.
    for (const char* key : {"meds", "mental_flags", "allergies", "fabrication_traps", "deferred_dx"}) result.erase(key);
    for (json& c : result["critical_errors"]) {
      c["message"] = "details withheld: sealed trial";
      c["evidence"] = nullptr;
      c.erase("id");
    }
    result["ground_truth"] = nullptr;
  } else {
    result["ground_truth"] = GroundTruthJson(trial);
  }
  return result;
}

}  // namespace scribe
