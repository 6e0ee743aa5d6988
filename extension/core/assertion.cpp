// assertion.cpp — trigger scopes over a tokenized text (see assertion.h).
#include "assertion.h"

#include <map>

namespace scribe {

std::string_view AssertionName(Assertion a) {
  switch (a) {
    case Assertion::kAffirmed: return "affirmed";
    case Assertion::kNegated: return "negated";
    case Assertion::kHistorical: return "historical";
    case Assertion::kHypothetical: return "hypothetical";
    case Assertion::kFamily: return "family";
  }
  return "affirmed";
}

AssertionAnalyzer::AssertionAnalyzer(const Rules& rules) {
  const AssertionTriggers& t = rules.assertion;
  std::map<std::string, uint16_t> phrases;
  auto add = [&](const std::vector<std::string>& list, uint16_t kind) {
    for (const std::string& p : list) phrases[NormalizePhrase(p)] |= kind;
  };
  add(t.negated_pre, kNegPre);
  add(t.negated_post, kNegPost);
  add(t.negated_pseudo, kPseudo);
  add(t.historical_pre, kHistPre);
  add(t.historical_post, kHistPost);
  add(t.hypothetical_pre, kHypPre);
  add(t.hypothetical_post, kHypPost);
  add(t.family_pre, kFamPre);
  add(t.family_post, kFamPost);
  add(t.terminators, kTerm);
  add(t.experiencer_terminators, kExpTerm);
  for (const auto& [phrase, kind] : phrases) {
    matcher_.Add(phrase, static_cast<int>(kinds_.size()));
    kinds_.push_back(kind);
  }
}

std::vector<uint8_t> AssertionAnalyzer::Analyze(const TokenizedText& text, std::vector<uint32_t>* clauses) const {
  const auto& toks = text.tokens;
  std::vector<uint8_t> bits(toks.size(), 0);
  if (clauses) clauses->assign(toks.size(), 0);
  uint32_t clause_no = 0;
  for (size_t s = 0; s < text.sentence_begin.size(); ++s) {
    size_t sb = text.sentence_begin[s], se = text.sentence_end[s];
    if (sb >= se) continue;
    std::vector<PatternMatch> matches = matcher_.FindAll(toks, sb, se);
    // Clause boundaries: ";" and terminators; experiencer boundaries add the experiencer terms.
    std::vector<size_t> clause_breaks, experiencer_breaks;
    for (size_t k = sb; k < se; ++k)
      if (toks[k].kind == TokenKind::kPunct && toks[k].norm == ";") clause_breaks.push_back(k);
    for (const PatternMatch& m : matches) {
      uint16_t kind = kinds_[m.id];
      if (kind & kTerm) clause_breaks.push_back(m.begin);
      if (kind & kExpTerm) experiencer_breaks.push_back(m.begin);
      for (size_t k = m.begin; k < m.end; ++k) bits[k] |= kBitTrigger;
    }
    if (clauses) {
      ++clause_no;
      std::vector<bool> is_break(se - sb, false);
      for (size_t b : clause_breaks) is_break[b - sb] = true;
      for (size_t k = sb; k < se; ++k) {
        if (is_break[k - sb] && k > sb) ++clause_no;
        (*clauses)[k] = clause_no;
      }
    }
    experiencer_breaks.insert(experiencer_breaks.end(), clause_breaks.begin(), clause_breaks.end());
    auto next_break = [&](const std::vector<size_t>& breaks, size_t from) {
      size_t best = se;
      for (size_t b : breaks)
        if (b >= from && b < best) best = b;
      return best;
    };
    auto prev_break = [&](const std::vector<size_t>& breaks, size_t before) {
      size_t best = sb;
      for (size_t b : breaks)
        if (b < before && b + 1 > best) best = b + 1;
      return best;
    };
    for (const PatternMatch& m : matches) {
      uint16_t kind = kinds_[m.id];
      auto mark_forward = [&](uint8_t bit, const std::vector<size_t>& breaks) {
        for (size_t k = m.end, e = next_break(breaks, m.end); k < e; ++k) bits[k] |= bit;
      };
      auto mark_backward = [&](uint8_t bit, const std::vector<size_t>& breaks) {
        for (size_t k = prev_break(breaks, m.begin); k < m.begin; ++k) bits[k] |= bit;
      };
      if ((kind & kNegPre) && !(kind & kPseudo)) mark_forward(kBitNegated, clause_breaks);
      if ((kind & kNegPost) && !(kind & kPseudo)) mark_backward(kBitNegated, clause_breaks);
      if (kind & kHistPre) mark_forward(kBitHistorical, clause_breaks);
      if (kind & kHistPost) mark_backward(kBitHistorical, clause_breaks);
      if (kind & kHypPre) mark_forward(kBitHypothetical, clause_breaks);
      if (kind & kHypPost) mark_backward(kBitHypothetical, clause_breaks);
      if (kind & kFamPre) mark_forward(kBitFamily, experiencer_breaks);
      if (kind & kFamPost) mark_backward(kBitFamily, experiencer_breaks);
    }
  }
  return bits;
}

Assertion AssertionAnalyzer::Resolve(const std::vector<uint8_t>& bits, size_t begin, size_t end) {
  uint8_t m = 0;
  for (size_t k = begin; k < end && k < bits.size(); ++k) m |= bits[k];
  if (m & kBitFamily) return Assertion::kFamily;
  if (m & kBitNegated) return Assertion::kNegated;
  if (m & kBitHypothetical) return Assertion::kHypothetical;
  if (m & kBitHistorical) return Assertion::kHistorical;
  return Assertion::kAffirmed;
}

const AssertionAnalyzer& DefaultAssertionAnalyzer() {
  static const AssertionAnalyzer analyzer(DefaultRules());
  return analyzer;
}

}  // namespace scribe
