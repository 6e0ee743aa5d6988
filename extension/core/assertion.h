// assertion.h — ConText-style assertion: is a finding affirmed, negated, historical,
// hypothetical, or about someone else (family)?
//
// Triggers come from corpus/rules/assertion.yaml. One pass over a text marks, per token, the
// scopes it falls in; a finding's assertion is the strongest mark over its tokens:
// family > negated > hypothetical > historical > affirmed.
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
  kBitNegated = 1, kBitHistorical = 2, kBitHypothetical = 4, kBitFamily = 8, kBitTrigger = 16,
};

class AssertionAnalyzer {
 public:
  explicit AssertionAnalyzer(const Rules& rules);
  // Per-token scope bits for an analysed text; when `clauses` is given it receives the clause
  // number of every token (clauses end at sentence ends, ";" and terminators).
  std::vector<uint8_t> Analyze(const TokenizedText& text, std::vector<uint32_t>* clauses = nullptr) const;
  // The assertion of tokens [begin, end) given Analyze()'s bits.
  static Assertion Resolve(const std::vector<uint8_t>& bits, size_t begin, size_t end);

 private:
  enum Kind : uint16_t {
    kNegPre = 1, kNegPost = 2, kPseudo = 4, kHistPre = 8, kHistPost = 16, kHypPre = 32,
    kHypPost = 64, kFamPre = 128, kFamPost = 256, kTerm = 512, kExpTerm = 1024,
  };
  PhraseMatcher matcher_;
  std::vector<uint16_t> kinds_;  // matcher id -> Kind bits
};

// The analyzer for DefaultRules().
const AssertionAnalyzer& DefaultAssertionAnalyzer();

}  // namespace scribe
