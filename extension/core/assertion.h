// assertion.h — ConText-style assertion: is a finding affirmed, negated, historical,
// hypothetical, or about someone else (family)?
//
// Triggers come from corpus/rules/assertion.yaml. One pass over a text marks, per token, the
// scopes it falls in; a finding's assertion is the strongest mark over its tokens:
// family > negated > hypothetical > historical > affirmed.
//
//   TokenizedText tt = Analyze(text, DefaultRules().assertion.abbreviations);
//   std::vector<AssertionCue> cues;                       // optional: which trigger decided
//   auto bits = DefaultAssertionAnalyzer().Analyze(tt, nullptr, &cues);
//   Assertion a = AssertionAnalyzer::Resolve(bits, begin, end);
//   AssertionCue why = AssertionAnalyzer::DecidingCue(bits, cues, begin, end);  // empty if affirmed
//
// Cost is linear in tokens + trigger matches (scopes are swept once per sentence, never
// rescanned per trigger), so no text can make the analysis quadratic.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rules.h"
#include "text.h"

namespace scribe {

enum class Assertion : uint8_t { kAffirmed, kNegated, kHistorical, kHypothetical, kFamily };

std::string_view AssertionName(Assertion a);

// Bit flags per token.
enum AssertionBits : uint8_t {
  kBitNegated = 1,
  kBitHistorical = 2,
  kBitHypothetical = 4,
  kBitFamily = 8,
  kBitTrigger = 16,
};

// The tokens [begin, end) of the trigger that decided a token's assertion; empty when affirmed.
struct AssertionCue {
  uint32_t begin = 0, end = 0;
  bool empty() const { return begin >= end; }
  bool operator==(const AssertionCue&) const = default;
};

class AssertionAnalyzer {
 public:
  explicit AssertionAnalyzer(const Rules& rules);
  // Per-token scope bits for an analysed text. When `clauses` is given it receives the clause
  // number of every token (clauses end at sentence ends, ";" and terminators). When `cues` is
  // given it receives, for every token, the trigger that set the token's strongest bit (the
  // nearest one when several scopes cover it); only then is that bookkeeping done.
  // With `sentences` (one flag per sentence of `text`), only the flagged sentences are read: the
  // others keep no bits, no cues and clause 0. Every sentence is read alone, so a flagged
  // sentence gets the bits and cues it gets when all are read, and its clauses are numbered
  // apart from every other sentence's (the numbers themselves may differ).
  std::vector<uint8_t> Analyze(const TokenizedText& text, std::vector<uint32_t>* clauses = nullptr,
                               std::vector<AssertionCue>* cues = nullptr,
                               const std::vector<uint8_t>* sentences = nullptr) const;
  // The assertion of tokens [begin, end) given Analyze()'s bits.
  static Assertion Resolve(const std::vector<uint8_t>& bits, size_t begin, size_t end);
  // The trigger behind Resolve(bits, begin, end): the cue of the first token in the range that
  // carries the winning bit; empty when the range is affirmed.
  static AssertionCue DecidingCue(const std::vector<uint8_t>& bits, const std::vector<AssertionCue>& cues, size_t begin,
                                  size_t end);
  // The cue as written, with a sign glued to its first word ("-ve", "+ve"); empty for none.
  static std::string_view CueText(const TokenizedText& text, AssertionCue cue);

 private:
  enum Kind : uint32_t {
    kNegPre = 1u << 0,
    kNegPost = 1u << 1,
    kNegPseudo = 1u << 2,
    kHistPre = 1u << 3,
    kHistPost = 1u << 4,
    kHypPre = 1u << 5,
    kHypPost = 1u << 6,
    kFamPre = 1u << 7,
    kFamPost = 1u << 8,
    kTerm = 1u << 9,
    kExpTerm = 1u << 10,
    kNegSelf = 1u << 11,
    kNegList = 1u << 12,
    kNegPrefix = 1u << 13,
    kHistPrefix = 1u << 14,
    kHistPseudo = 1u << 15,
    kHypPseudo = 1u << 16,
    kFamPseudo = 1u << 17,
    kFamThrough = 1u << 18,
    kHistTerm = 1u << 19,
  };
  struct Scope;
  struct Workspace;
  void AnalyzeSentence(const TokenizedText& text, size_t sb, size_t se, Workspace& ws, std::vector<uint8_t>& bits,
                       std::vector<uint32_t>* clauses, uint32_t& clause_no, std::vector<AssertionCue>* cues) const;
  // Sentence [sb, se) numbered into clauses at ";" alone, from ++clause_no.
  static void NumberClauses(const std::vector<Token>& toks, size_t sb, size_t se, std::vector<uint32_t>& clauses,
                            uint32_t& clause_no);
  PhraseMatcher matcher_;
  std::vector<uint32_t> kinds_;  // matcher id -> Kind bits
};

// The analyzer for DefaultRules().
const AssertionAnalyzer& DefaultAssertionAnalyzer();

}  // namespace scribe
