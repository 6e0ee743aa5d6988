// sig.h — dose, frequency, route and action: the parts of a medication "sig".
//
// The same normalisers read notes (within a token window around a drug mention) and ground
// truth strings ("two 200 mg tablets", "q4-6h prn"), so a trial and a note are compared in
// one vocabulary. All tables come from corpus/rules/ (units.tsv, frequencies.tsv, routes.tsv,
// actions.tsv).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules.h"
#include "text.h"

namespace scribe {

struct Dose {
  double value = 0;        // in `unit`
  std::string unit;        // canonical: mg, mcg, mL, unit, meq, tablet, capsule, puff, …
  std::string family;      // mass, volume, unit, meq, count
  std::string implied_route;
  bool per_day = false;    // written as a daily total ("200 mg/day")
  size_t begin = 0, end = 0;  // tokens
  // Value in the family's base unit (mass: mg), for comparisons across g/mg/mcg.
  double Base() const { return unit == "mcg" ? value / 1000.0 : value; }
  std::string Text() const;  // "400 mg"
};

struct Frequency {
  std::optional<double> per_day;
  bool prn = false;
  std::string text;        // the phrase as written
  size_t begin = 0, end = 0;
};

struct ActionHit {
  std::string action;
  size_t begin = 0, end = 0;
};

class SigParser {
 public:
  explicit SigParser(const Rules& rules) : rules_(rules) {}

  // Every dose in tokens [begin, end), in text order ("from 50 mg to 100 mg" yields the
  // second dose first).
  std::vector<Dose> FindDoses(const std::vector<Token>& toks, size_t begin, size_t end) const;
  // The dose a reader takes from a list: the first mass/volume/unit dose, else the first count.
  static std::optional<Dose> Primary(const std::vector<Dose>& doses);
  // First frequency with a per-day value, and PRN if any PRN phrase occurs.
  Frequency FindFrequency(const std::vector<Token>& toks, size_t begin, size_t end, std::string_view text) const;
  std::optional<std::string> FindRoute(const std::vector<Token>& toks, size_t begin, size_t end) const;
  // The action nearest to the drug: the last "before" phrase in a backward window, or the
  // first "after" phrase in a forward window.
  std::optional<ActionHit> FindActionBefore(const std::vector<Token>& toks, size_t begin, size_t end) const;
  std::optional<ActionHit> FindActionAfter(const std::vector<Token>& toks, size_t begin, size_t end) const;

  // Whole-string parsers for ground truth. nullopt when nothing recognisable is found.
  std::optional<Dose> ParseDose(std::string_view s) const;
  std::optional<Frequency> ParseFrequency(std::string_view s) const;
  std::optional<std::string> ParseRoute(std::string_view s) const;

 private:
  const Rules& rules_;
};

}  // namespace scribe
