// sig.h — dose, frequency, route and action: the parts of a medication "sig".
//
// The same normalisers read notes (within a token window around a drug mention) and ground
// truth strings ("two 200 mg tablets", "q4-6h prn"), so a trial and a note are compared in
// one vocabulary. All tables come from corpus/rules/ (units.tsv, frequencies.tsv, routes.tsv,
// actions.tsv, and sig_grammar.yaml for how they combine: fractions, counts times strengths,
// times of day, verb-implied routes, spelling tolerance).
//
// A dose range ("1-2 tablets", "5-10 mg") keeps its upper end in `value` (the most one
// administration may be, the value every existing comparison uses) and its lower end in `low`;
// SameDose() compares both ends, so a range never equals a fixed dose.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules.h"
#include "text.h"

namespace scribe {

struct Dose {
  double value = 0;          // in `unit`; for a range, its upper end
  std::optional<double> low; // the lower end of a range ("1-2 tablets": 1), in `unit`; empty when fixed
  std::string unit;          // canonical: mg, mcg, mL, unit, meq, tablet, capsule, puff, …, each
  std::string family;        // mass, volume, unit, meq, count
  std::string implied_route;
  std::string per;           // the count unit a strength is written per ("90 mcg/actuation": puff), or empty
  bool per_day = false;      // written as a daily total ("200 mg/day")
  size_t begin = 0, end = 0; // tokens
  // Value in the family's base unit (mass: mg), for comparisons across g/mg/mcg.
  double Base() const { return unit == "mcg" ? value / 1000.0 : value; }
  double BaseLow() const { double v = low.value_or(value); return unit == "mcg" ? v / 1000.0 : v; }
  bool IsRange() const { return low.has_value(); }
  std::string Text() const;  // "400 mg", "1-2 tablet"
  bool operator==(const Dose&) const = default;
};

// Whether two doses state the same amount per administration: same family (and the same unit for
// counts) and both ends within `tolerance` (relative to the expected end). A range equals only a
// range with the same ends.
bool SameDose(const Dose& expected, const Dose& found, double tolerance);

struct Frequency {
  std::optional<double> per_day;
  bool prn = false;
  std::string text;        // the phrase as written
  size_t begin = 0, end = 0;
  bool operator==(const Frequency&) const = default;
};

struct ActionHit {
  std::string action;
  size_t begin = 0, end = 0;
};

// One reading of a sig: what one administration is, how often, by which route.
struct Sig {
  std::vector<Dose> doses;     // every dose, the one a reader takes first
  std::optional<Dose> dose;    // Primary(doses)
  Frequency frequency;
  std::optional<std::string> route;
};

struct SigGrammar;

class SigParser {
 public:
  explicit SigParser(const Rules& rules);

  // Every dose in tokens [begin, end), in text order ("from 50 mg to 100 mg" yields the
  // second dose first; "500 mg, take 2 tablets" yields the 1000 mg total first).
  std::vector<Dose> FindDoses(const std::vector<Token>& toks, size_t begin, size_t end) const;
  // The dose a reader takes from a list: the first mass/volume/unit dose, else the first count.
  static std::optional<Dose> Primary(const std::vector<Dose>& doses);
  // First frequency with a per-day value (distinct times of day joined in one sig add up:
  // "in the morning and at bedtime" = 2), and PRN if any PRN phrase occurs.
  Frequency FindFrequency(const std::vector<Token>& toks, size_t begin, size_t end, std::string_view text) const;
  std::optional<std::string> FindRoute(const std::vector<Token>& toks, size_t begin, size_t end) const;
  // The action nearest to the drug: the last "before" phrase in a backward window, or the
  // first "after" phrase in a forward window.
  std::optional<ActionHit> FindActionBefore(const std::vector<Token>& toks, size_t begin, size_t end) const;
  std::optional<ActionHit> FindActionAfter(const std::vector<Token>& toks, size_t begin, size_t end) const;

  // The sig of a drug named at tokens [drug_begin, drug_end): read forward up to `after_end`, then
  // backward to `before_begin`. A count written right before the name multiplies the strength right
  // after it ("2 tablets of acetaminophen 500 mg" = 1000 mg). With drug_begin == drug_end the
  // tokens are read as a sig of no named drug.
  Sig ReadSig(const std::vector<Token>& toks, size_t before_begin, size_t drug_begin, size_t drug_end,
              size_t after_end, std::string_view text) const;

  // Whole-string parsers for ground truth. nullopt when nothing recognisable is found.
  std::optional<Dose> ParseDose(std::string_view s) const;
  std::optional<Frequency> ParseFrequency(std::string_view s) const;
  std::optional<std::string> ParseRoute(std::string_view s) const;

  // Sig vocabulary, for the extractor's spelling tolerance (sig_grammar.yaml). Words are lower case.
  bool IsSigWord(std::string_view word) const;
  bool IsSigWord(const Token& word) const;  // the same for the token's norm, by its norm_hash
  // Whether token k alone is a whole unit, route or frequency phrase ("inh", "po", "bid", "tabs").
  bool IsSigAbbreviation(const std::vector<Token>& toks, size_t k) const;
  // Whether token k is a dose verb ("take", "inhale").
  bool IsDoseVerb(const Token& t) const;
  // The sig word a misspelled word stands for ("tiems" -> "times"), or empty.
  std::string CorrectSpelling(std::string_view word) const;
  // Whether a word may be a piece of a glued word (a sig word of two or more letters, a connective).
  bool IsGluePiece(std::string_view word) const;
  // The pieces a glued word is made of ("tidprnas" -> tid, prn, as; "dailyx" -> daily, x), or
  // empty when it is not one.
  std::vector<std::string> SplitGlued(std::string_view word) const;

  // How the extractor reads a lower-case word that is no known word: the sig word it misspells
  // (CorrectSpelling, unless SplitGlued finds only glue pieces in it), else the pieces it glues
  // together (two or more), else neither (both empty). Remembered for the process per grammar,
  // since notes repeat their words and the answer never changes.
  struct WordRepair {
    std::string respelled;
    std::vector<std::string> pieces;
  };
  WordRepair RepairWord(std::string_view word) const { return RepairWord(word, HashWord(word)); }
  // The same, with the word's HashWord already known (a token's norm_hash).
  WordRepair RepairWord(std::string_view word, uint64_t hash) const;

 private:
  struct Quantity {
    double lo = 0, hi = 0;
    size_t begin = 0, end = 0;
    bool digits = false;  // written with a numeral
  };
  std::optional<Quantity> QuantityAt(const std::vector<Token>& toks, size_t k, size_t end) const;
  static Dose CountDose(const Quantity& q);  // "2 tablets", "1-2 puffs": a count of units
  std::optional<double> SingleAt(const std::vector<Token>& toks, size_t k, size_t end, size_t& next, bool& digits) const;
  void CombineCountsWithStrengths(const std::vector<Token>& toks, std::vector<Dose>& doses) const;
  const Rules& rules_;
  const SigGrammar& grammar_;
};

}  // namespace scribe
