// extract.cpp — drug mention extraction (see extract.h).
#include "extract.h"

#include <algorithm>

namespace scribe {
namespace {

bool IsSeparator(const Token& t) {
  if (t.kind == TokenKind::kPunct) return t.norm == "," || t.norm == ";" || t.norm == "*" || t.norm == "(" || t.norm == ")";
  return t.kind == TokenKind::kWord && (t.norm == "and" || t.norm == "also" || t.norm == "plus" || t.norm == "then");
}

bool AllLetters(std::string_view w) {
  for (char c : w)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !w.empty();
}

// A word that could be an (unknown) drug name when a dose follows it.
bool PhantomCandidate(const Token& t, const Terminology& terminology) {
  return t.kind == TokenKind::kWord && t.norm.size() >= 4 && AllLetters(t.norm) && !t.all_caps &&
         !terminology.IsKnownWord(t.norm) && !terminology.IsNonRxnormSubstance(t.norm);
}

// "potassium 4.1", "glucose 180 mg/dL", "drinks water", "serum lithium level": a measurement
// or an everyday substance, not a medication (corpus/rules/lab_context.yaml).
bool IsMeasurement(const std::vector<Token>& toks, size_t begin, size_t end, size_t sentence_begin,
                   size_t sentence_end, const Rules& rules, const SigParser& sig) {
  std::string name;
  for (size_t k = begin; k < end; ++k) name += (name.empty() ? "" : " ") + toks[k].norm;
  if (rules.dose_required.count(name)) {
    auto doses = sig.FindDoses(toks, end, std::min(sentence_end, end + 4));
    return doses.empty() || doses.front().begin > end + 1;
  }
  if (!rules.lab_analytes.count(name)) return false;
  if (end < sentence_end) {
    const Token& next = toks[end];
    if (rules.lab_after.count(next.norm)) return true;
    if (next.kind == TokenKind::kNumber) {
      // a number that does not start a dose is a result ("potassium 4.1", "glucose 180 mg/dL")
      auto doses = sig.FindDoses(toks, end, std::min(sentence_end, end + 4));
      if (doses.empty() || doses.front().begin != end) return true;
    }
    if (next.kind == TokenKind::kPunct && (next.norm == ":" || next.norm == "=")) {
      if (end + 1 < sentence_end && toks[end + 1].kind == TokenKind::kNumber) return true;
    }
  }
  for (size_t back = 1; back <= 2 && begin >= sentence_begin + back; ++back) {
    std::string phrase;
    for (size_t k = begin - back; k < begin; ++k) phrase += (phrase.empty() ? "" : " ") + toks[k].norm;
    if (rules.lab_before.count(phrase)) return true;
  }
  return false;
}

}  // namespace

AnalyzedText AnalyzeText(std::string_view input, const Rules& rules, const Terminology& terminology,
                         const AssertionAnalyzer& assertion) {
  AnalyzedText out;
  out.text = Analyze(input, rules.assertion.abbreviations);
  std::vector<uint32_t> clause;
  out.assertion_bits = assertion.Analyze(out.text, &clause);
  const auto& toks = out.text.tokens;
  SigParser sig(rules);

  // 1. Mentions: longest terminology match, else a phantom (unknown word + dose).
  for (size_t k = 0; k < toks.size();) {
    size_t sentence_end = out.text.sentence_end[out.text.sentence_of[k]];
    size_t sentence_begin = out.text.sentence_begin[out.text.sentence_of[k]];
    if (toks[k].kind != TokenKind::kWord) { ++k; continue; }
    DrugMention m;
    auto match = terminology.MatchTokens(toks, k, sentence_end);
    if (match && IsMeasurement(toks, k, k + match->token_count, sentence_begin, sentence_end, rules, sig)) {
      k += match->token_count;
      continue;
    }
    if (match) {
      m.match = match;
      m.tok_begin = k;
      m.tok_end = k + match->token_count;
      const Concept& c = terminology.concept_at(match->concept_id);
      m.drug = terminology.IngredientNames(match->concept_id);
      m.key = terminology.IngredientKey(match->concept_id);
      for (const std::string& r : c.ingredients) m.rxcui += (m.rxcui.empty() ? "" : " / ") + r;
      m.matched_name = c.name;
    } else if (PhantomCandidate(toks[k], terminology)) {
      // the dose may follow directly, or after one short formulation word ("Zyntrafex XR 20 mg")
      size_t n = k + 1;
      if (n < sentence_end && toks[n].kind == TokenKind::kWord && toks[n].all_caps && toks[n].norm.size() <= 3) ++n;
      bool dose_follows = n + 1 < sentence_end && toks[n].kind == TokenKind::kNumber &&
                          rules.unit_matcher.MatchAt(toks, n + 1, sentence_end).has_value() &&
                          rules.units[rules.unit_matcher.MatchAt(toks, n + 1, sentence_end)->id].family != "count";
      if (!dose_follows) { ++k; continue; }
      m.phantom = true;
      m.tok_begin = k;
      m.tok_end = k + 1;
      m.key = "phantom:" + toks[k].norm;
    } else {
      ++k;
      continue;
    }
    m.char_begin = toks[m.tok_begin].char_begin;
    m.char_end = toks[m.tok_end - 1].char_end;
    m.mention = std::string(input.substr(toks[m.tok_begin].byte_begin,
                                         toks[m.tok_end - 1].byte_end - toks[m.tok_begin].byte_begin));
    k = m.tok_end;
    out.drugs.push_back(std::move(m));
  }

  // 2. Attributes from the windows around each mention.
  bool previous_action_before = false;
  for (size_t i = 0; i < out.drugs.size(); ++i) {
    DrugMention& m = out.drugs[i];
    bool action_before = false;
    uint32_t s = out.text.sentence_of[m.tok_begin];
    size_t sb = out.text.sentence_begin[s], se = out.text.sentence_end[s];
    size_t fwd_end = se;
    if (i + 1 < out.drugs.size() && out.drugs[i + 1].tok_begin < fwd_end) fwd_end = out.drugs[i + 1].tok_begin;
    size_t bwd_begin = sb;
    if (i > 0 && out.drugs[i - 1].tok_end > bwd_begin) bwd_begin = out.drugs[i - 1].tok_end;
    size_t list_begin = bwd_begin;  // after the last list separator
    for (size_t k = m.tok_begin; k > bwd_begin; --k)
      if (IsSeparator(toks[k - 1])) { list_begin = k; break; }

    std::vector<Dose> doses = sig.FindDoses(toks, m.tok_end, fwd_end);
    std::vector<Dose> before = sig.FindDoses(toks, list_begin, m.tok_begin);
    doses.insert(doses.end(), before.begin(), before.end());
    m.dose = SigParser::Primary(doses);
    m.doses = std::move(doses);

    m.frequency = sig.FindFrequency(toks, m.tok_end, fwd_end, input);
    if (!m.frequency.per_day) {
      Frequency back = sig.FindFrequency(toks, list_begin, m.tok_begin, input);
      if (back.per_day) {
        bool prn = m.frequency.prn || back.prn;
        m.frequency = back;
        m.frequency.prn = prn;
      } else if (back.prn) {
        m.frequency.prn = true;
      }
    }
    // PRN anywhere earlier in the drug's clause when no other drug stands between
    // ("As needed for pain, ibuprofen 400 mg q6h").
    if (!m.frequency.prn && bwd_begin == sb) {
      size_t clause_begin = m.tok_begin;
      while (clause_begin > sb && clause[clause_begin - 1] == clause[m.tok_begin]) --clause_begin;
      if (sig.FindFrequency(toks, clause_begin, m.tok_begin, input).prn) m.frequency.prn = true;
    }
    if (!m.frequency.per_day && m.dose && m.dose->per_day) {
      m.frequency.per_day = 1;
      m.frequency.text = "per day";
    }
    m.route = sig.FindRoute(toks, m.tok_end, fwd_end);
    if (!m.route) m.route = sig.FindRoute(toks, list_begin, m.tok_begin);
    if (!m.route && m.dose && !m.dose->implied_route.empty()) m.route = m.dose->implied_route;
    for (const Dose& d : m.doses)
      if (!m.route && !d.implied_route.empty()) m.route = d.implied_route;

    // Actions are read within the drug's clause: "Lisinopril 20 mg daily; the cough began soon
    // after it was started. Discontinued today." is not a start.
    size_t act_begin = list_begin, act_end = fwd_end;
    while (act_begin < m.tok_begin && clause[act_begin] != clause[m.tok_begin]) ++act_begin;
    for (size_t k = m.tok_end; k < act_end; ++k)
      if (clause[k] != clause[m.tok_end - 1]) { act_end = k; break; }
    if (auto a = sig.FindActionBefore(toks, act_begin, m.tok_begin)) {
      m.action = a->action;
      action_before = true;
    } else if (auto b = sig.FindActionAfter(toks, m.tok_end, act_end)) {
      m.action = b->action;
      action_before = false;
    } else if (i > 0 && previous_action_before && out.drugs[i - 1].action &&
               out.text.sentence_of[out.drugs[i - 1].tok_begin] == s) {
      // "Continue sertraline, metformin and lisinopril": a list shares its leading verb.
      m.action = out.drugs[i - 1].action;
      action_before = true;
    }
    previous_action_before = action_before;

    m.assertion = AssertionAnalyzer::Resolve(out.assertion_bits, m.tok_begin, m.tok_end);
  }
  return out;
}

AnalyzedText AnalyzeText(std::string_view text) {
  return AnalyzeText(text, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer());
}

}  // namespace scribe
