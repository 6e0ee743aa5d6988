// sig.cpp — dose, frequency, route and action parsing (see sig.h, corpus/rules/sig_grammar.yaml).
#include "sig.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "embedded.h"
#include "terminology.h"

namespace scribe {

// The combination rules of sig_grammar.yaml, resolved against one Rules object.
struct SigGrammar {
  StringMap<double> quantity_words;
  StringSet dose_verbs, multiplied_counts, glue_pieces;
  StringMap<std::string> per_count;  // denominator token -> count unit
  std::vector<std::string> slot_of_rule;                   // frequency rule id -> time of day, or ""
  // Looked up by the words of every drug's window: under the tokens' hashes.
  WordTable<std::string> verb_routes;
  WordTable<char> limit_words, dispense_words, step_words;
  WordTable<int> weekdays;  // looked up by every word of a window without a frequency
  std::vector<std::string> vocabulary;                     // sig words for spelling tolerance, sorted
  // vocabulary indexes by each word and each of its one-letter deletions: two words one edit
  // (or one transposition) apart share one of these
  StringMap<std::vector<uint32_t>> vocabulary_deletes;
  StringSet vocabulary_set;
  StringSet glue_words, strong;      // pieces of glued words; strong: of the unit/frequency/route tables
  size_t longest_glue_word = 0;
  size_t min_typo_length = 3;
  // The words SingleAt may read as a quantity (quantity words, number words, "a", "an"): any
  // other word is rejected by one lookup under the token's hash.
  WordTable<char> quantity_starts;
  WordTable<char> sig_words;  // vocabulary_set and glue_pieces: IsSigWord in one lookup
  // SigParser::RepairWord's answers, up to kRepairMemoWords (then cleared): looked up under a
  // shared lock, a miss worked out outside the lock and added under an exclusive one.
  static constexpr size_t kRepairMemoWords = 1 << 14;
  mutable std::shared_mutex repair_mu;
  mutable WordTable<SigParser::WordRepair> repairs;
};

namespace {

bool IsWord(const Token& t, std::string_view w) { return t.kind == TokenKind::kWord && t.norm == w; }
bool Adjacent(const Token& a, const Token& b) { return a.byte_end == b.byte_begin; }

bool AllLetters(std::string_view w) {
  for (char c : w)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !w.empty();
}

// A word and every word one deleted letter shorter.
std::vector<std::string> OneDeletions(std::string_view w) {
  std::vector<std::string> out;
  out.reserve(w.size() + 1);
  out.emplace_back(w);
  for (size_t i = 0; i < w.size(); ++i) out.push_back(std::string(w.substr(0, i)).append(w.substr(i + 1)));
  return out;
}

std::vector<std::string> YamlList(const YAML::Node& root, const char* key) {
  std::vector<std::string> out;
  if (const YAML::Node n = root[key]) {
    if (!n.IsSequence()) throw std::runtime_error(std::string("sig_grammar.yaml: ") + key + ": expected a list");
    for (const auto& v : n) out.push_back(Lower(v.as<std::string>()));
  }
  return out;
}

std::unique_ptr<SigGrammar> BuildGrammar(const Rules& rules, std::string_view yaml) {
  auto g = std::make_unique<SigGrammar>();
  YAML::Node y = YAML::Load(std::string(yaml));
  if (const YAML::Node q = y["quantity_words"])
    for (const auto& kv : q) g->quantity_words[kv.first.as<std::string>()] = kv.second.as<double>();
  for (const std::string& v : YamlList(y, "dose_verbs")) g->dose_verbs.insert(v);
  for (const std::string& v : YamlList(y, "multiplied_counts")) g->multiplied_counts.insert(v);
  for (const std::string& v : YamlList(y, "glue_pieces")) g->glue_pieces.insert(v);
  if (const YAML::Node p = y["per_count"])
    for (const auto& kv : p) g->per_count[Lower(kv.first.as<std::string>())] = kv.second.as<std::string>();
  for (const UnitRule& u : rules.units)
    if (u.family == "count") g->per_count.emplace(u.token, u.canonical);
  if (const YAML::Node v = y["verb_routes"])
    for (const auto& kv : v) g->verb_routes[Lower(kv.first.as<std::string>())] = kv.second.as<std::string>();
  if (const YAML::Node m = y["min_typo_length"]) g->min_typo_length = m.as<size_t>();
  for (const std::string& v : YamlList(y, "limit_words")) g->limit_words[v] = 1;
  for (const std::string& v : YamlList(y, "step_words")) g->step_words[v] = 1;
  for (const std::string& v : YamlList(y, "dispense_words")) g->dispense_words[v] = 1;
  if (const YAML::Node w = y["weekdays"])
    for (const auto& kv : w) g->weekdays[Lower(kv.first.as<std::string>())] = kv.second.as<int>();

  g->slot_of_rule.assign(rules.frequencies.size(), "");
  std::unordered_map<std::string, size_t> rule_by_pattern;
  for (size_t i = 0; i < rules.frequencies.size(); ++i) rule_by_pattern[NormalizePhrase(rules.frequencies[i].pattern)] = i;
  if (const YAML::Node tod = y["time_of_day"]) {
    for (const auto& slot : tod) {
      for (const auto& phrase : slot.second) {
        auto it = rule_by_pattern.find(NormalizePhrase(phrase.as<std::string>()));
        if (it == rule_by_pattern.end())
          throw std::runtime_error("sig_grammar.yaml: time_of_day: '" + phrase.as<std::string>() +
                                   "' is not a pattern of frequencies.tsv");
        g->slot_of_rule[it->second] = slot.first.as<std::string>();
      }
    }
  }

  auto add = [&](std::string_view phrase, bool strong) {
    for (const std::string& w : PhraseWords(phrase)) {
      if (!AllLetters(w) || w.size() < 2) continue;
      g->glue_words.insert(w);
      if (strong) g->strong.insert(w);
      if (w.size() >= g->min_typo_length) g->vocabulary_set.insert(w);
    }
  };
  for (const std::string& w : g->glue_pieces) g->glue_words.insert(w);
  for (const UnitRule& u : rules.units) add(u.token, true);
  for (const FrequencyRule& f : rules.frequencies) add(f.pattern, true);
  for (const auto& r : rules.routes) add(r.first, true);
  for (const std::string& v : g->dose_verbs) add(v, false);
  for (const auto& [w, v] : g->quantity_words) add(w, false);
  for (const auto& [w, v] : rules.number_words) add(w, false);
  for (const std::string& w : YamlList(y, "weak_pieces")) g->strong.erase(w);
  g->vocabulary.assign(g->vocabulary_set.begin(), g->vocabulary_set.end());
  std::sort(g->vocabulary.begin(), g->vocabulary.end());
  for (uint32_t i = 0; i < g->vocabulary.size(); ++i)
    for (const std::string& d : OneDeletions(g->vocabulary[i])) {
      auto& ids = g->vocabulary_deletes[d];
      if (ids.empty() || ids.back() != i) ids.push_back(i);
    }
  for (const std::string& w : g->glue_words) g->longest_glue_word = std::max(g->longest_glue_word, w.size());
  for (const auto& [w, v] : g->quantity_words) g->quantity_starts[w] = 1;
  for (const auto& [w, v] : rules.number_words) g->quantity_starts[w] = 1;
  for (const char* w : {"a", "an"}) g->quantity_starts[w] = 1;
  for (const StringSet* set : {&g->vocabulary_set, &g->glue_pieces})
    for (const std::string& w : *set) g->sig_words[w] = 1;
  return g;
}

// One grammar per Rules object (normally the compiled-in one), built on first use.
const SigGrammar& GrammarFor(const Rules& rules) {
  static std::mutex mu;
  static std::map<const Rules*, std::unique_ptr<SigGrammar>> grammars;
  std::lock_guard<std::mutex> lock(mu);
  auto& g = grammars[&rules];
  if (!g) g = BuildGrammar(rules, embedded_file("corpus/rules/sig_grammar.yaml"));
  return *g;
}

// One adjacent transposition turns a into b.
bool OneTransposition(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || a == b) return false;
  size_t i = 0;
  while (a[i] == b[i]) ++i;
  return i + 1 < a.size() && a[i] == b[i + 1] && a[i + 1] == b[i] && a.substr(i + 2) == b.substr(i + 2);
}

}  // namespace

std::string Dose::Text() const {
  if (low) return FormatNumber(*low) + "-" + FormatNumber(value) + " " + unit;
  return FormatNumber(value) + " " + unit;
}

bool SameDose(const Dose& expected, const Dose& found, double tolerance) {
  if (expected.family != found.family) return false;
  if (expected.family == "count" && expected.unit != found.unit) return false;
  if (expected.IsRange() != found.IsRange()) return false;
  auto close = [&](double e, double f) { return std::fabs(e - f) <= tolerance * std::max(std::fabs(e), 1e-9); };
  return close(expected.Base(), found.Base()) && close(expected.BaseLow(), found.BaseLow());
}

SigParser::SigParser(const Rules& rules) : rules_(rules), grammar_(GrammarFor(rules)) {}

// ---------------------------------------------------------------- quantities

std::optional<double> SigParser::SingleAt(const std::vector<Token>& toks, size_t i, size_t end, size_t& next,
                                          bool& digits) const {
  if (i >= end) return std::nullopt;
  const Token& t = toks[i];
  // Only a number, a quantity word, a number word or an article starts a quantity: any other
  // token is turned away by one lookup under its hash, before a fraction is looked for.
  auto starts_quantity = [&](const Token& w) {
    return grammar_.quantity_starts.contains(w.norm, NormHash(w));
  };
  if (t.kind != TokenKind::kNumber && (t.kind != TokenKind::kWord || !starts_quantity(t))) return std::nullopt;
  // a proper fraction written as one group: "1/2", "3/4"
  auto fraction_at = [&](size_t j, double& f, size_t& after) {
    if (j + 2 < end + 1 && j + 2 < toks.size() && toks[j].kind == TokenKind::kNumber && IsPunct(toks[j + 1], '/') &&
        toks[j + 2].kind == TokenKind::kNumber && Adjacent(toks[j], toks[j + 1]) && Adjacent(toks[j + 1], toks[j + 2]) &&
        j + 2 < end) {
      double n = toks[j].number, d = toks[j + 2].number;
      if (n >= 1 && n < d && d <= 8 && n == std::floor(n) && d == std::floor(d)) {
        f = n / d;
        after = j + 3;
        return true;
      }
    }
    if (j < end && toks[j].kind == TokenKind::kWord && starts_quantity(toks[j])) {
      auto it = grammar_.quantity_words.find(toks[j].norm);
      if (it != grammar_.quantity_words.end() && it->second < 1 && toks[j].norm != "half" && toks[j].norm != "quarter") {
        f = it->second;
        after = j + 1;
        return true;
      }
    }
    return false;
  };
  double v = 0;
  size_t j = i + 1;
  double f = 0;
  size_t after = 0;
  if (fraction_at(i, f, after)) {
    v = f;
    j = after;
    digits = digits || t.kind == TokenKind::kNumber;
  } else if (t.kind == TokenKind::kNumber) {
    v = t.number;
    digits = true;
    if (fraction_at(j, f, after)) { v += f; j = after; }  // "1 1/2", "1½"
  } else if (t.kind == TokenKind::kWord) {
    if (auto q = grammar_.quantity_words.find(t.norm); q != grammar_.quantity_words.end()) {
      v = q->second;
    } else if (t.norm == "a" || t.norm == "an") {
      // "a half", "a quarter"; a bare article is one ("a tablet")
      if (j < end && (IsWord(toks[j], "half") || IsWord(toks[j], "quarter"))) {
        auto q = grammar_.quantity_words.find(toks[j].norm);
        if (q == grammar_.quantity_words.end()) throw std::out_of_range("sig grammar: no quantity word " + std::string(toks[j].norm));
        v = q->second;
        ++j;
      } else {
        v = 1;
      }
    } else if (auto n = rules_.number_words.find(t.norm);
               n != rules_.number_words.end() && t.norm != "once" && t.norm != "twice") {
      v = n->second;
      // "one half", "one-half"
      size_t h = j;
      if (h < end && IsPunct(toks[h], '-')) ++h;
      if (v == 1 && h < end && IsWord(toks[h], "half")) { v = 0.5; j = h + 1; }
    } else {
      return std::nullopt;
    }
    // "half a tablet", "half of a tablet"
    if (v < 1 && j < end && IsWord(toks[j], "of")) {
      if (j + 1 < end && (IsWord(toks[j + 1], "a") || IsWord(toks[j + 1], "an"))) j += 2;
    } else if (v < 1 && j < end && (IsWord(toks[j], "a") || IsWord(toks[j], "an"))) {
      ++j;
    }
  } else {
    return std::nullopt;
  }
  // "one and a half", "1 and 1/2", "2 and one-half"
  if (v >= 1 && j + 1 < end && IsWord(toks[j], "and")) {
    size_t h = j + 1;
    if (IsWord(toks[h], "a") || IsWord(toks[h], "one")) {
      size_t h2 = h + 1;
      if (h2 < end && IsPunct(toks[h2], '-')) ++h2;
      if (h2 < end && IsWord(toks[h2], "half")) { v += 0.5; j = h2 + 1; }
    } else if (fraction_at(h, f, after)) {
      v += f;
      j = after;
    }
  }
  next = j;
  return v;
}

Dose SigParser::CountDose(const Quantity& q) {
  Dose d;
  d.value = q.hi;
  if (q.lo != q.hi) d.low = q.lo;
  d.unit = "each";
  d.family = "count";
  d.begin = q.begin;
  d.end = q.end;
  return d;
}

std::optional<SigParser::Quantity> SigParser::QuantityAt(const std::vector<Token>& toks, size_t k, size_t end) const {
  size_t next = 0;
  bool digits = false;
  auto a = SingleAt(toks, k, end, next, digits);
  if (!a) return std::nullopt;
  Quantity q{*a, *a, k, next, digits};
  // range: "1-2", "1 to 2", "1 or 2", "1/2 to 1" ("from 50 to 100 mg" is a change, not a range)
  bool after_from = k > 0 && IsWord(toks[k - 1], "from");
  if (next + 1 < end && (IsPunct(toks[next], '-') || (IsWord(toks[next], "to") && !after_from) || IsWord(toks[next], "or")) &&
      !(toks[next + 1].kind == TokenKind::kWord && (toks[next + 1].norm == "a" || toks[next + 1].norm == "an"))) {
    size_t next2 = 0;
    bool digits2 = false;
    if (auto b = SingleAt(toks, next + 1, end, next2, digits2); b && *b != *a) {
      q.lo = std::min(*a, *b);
      q.hi = std::max(*a, *b);
      q.end = next2;
      q.digits = digits || digits2;
    }
  }
  return q;
}

// ---------------------------------------------------------------- doses

std::vector<Dose> SigParser::FindDoses(const std::vector<Token>& toks, size_t begin, size_t end) const {
  std::vector<Dose> doses;
  auto count_at = [&](size_t i, double& v) {
    if (toks[i].kind == TokenKind::kNumber) { v = toks[i].number; return true; }
    if (toks[i].kind == TokenKind::kWord) {
      auto it = rules_.number_words.find(toks[i].norm);
      if (it != rules_.number_words.end() && toks[i].norm != "a" && toks[i].norm != "an") { v = it->second; return true; }
    }
    return false;
  };
  for (size_t k = begin; k < end;) {
    auto q = QuantityAt(toks, k, end);
    std::optional<PatternMatch> unit_match = q ? rules_.unit_matcher.MatchAt(toks, q->end, end) : std::nullopt;
    if (!unit_match || (!q->digits && rules_.units[unit_match->id].family != "count")) {
      // A bare count before a route or frequency is a count of the product's own unit:
      // "take one daily", "1 po bid", "1-2 by mouth q6h" (not "2 x daily", where the number is
      // part of the frequency, nor a number after "/" or a large one).
      if (q && q->hi <= 12 && q->hi > 0 && !(toks[k].kind == TokenKind::kWord && (toks[k].norm == "a" || toks[k].norm == "an" ||
                                                                               toks[k].norm == "single")) &&
          !(k > 0 && (IsPunct(toks[k - 1], '/') || IsWord(toks[k - 1], "x") || IsWord(toks[k - 1], "every") ||
                      IsWord(toks[k - 1], "q") || IsWord(toks[k - 1], "for"))) &&
          !rules_.frequency_matcher.MatchAt(toks, k, end) && q->end < end &&
          (rules_.frequency_matcher.MatchAt(toks, q->end, end) || rules_.route_matcher.MatchAt(toks, q->end, end))) {
        doses.push_back(CountDose(*q));
        k = q->end;
        continue;
      }
      ++k;
      continue;
    }
    const UnitRule& u = rules_.units[unit_match->id];
    size_t after = unit_match->end;
    Dose d;
    d.value = q->hi * u.factor;
    if (q->lo != q->hi) d.low = q->lo * u.factor;
    d.unit = u.canonical;
    d.family = u.family;
    d.implied_route = u.implied_route;
    d.begin = q->begin;
    d.end = after;
    // "90 mcg/actuation": a strength per count unit; "mg/dL", "mEq/L": a concentration or lab
    // value; "mg/day": a daily total.
    if (after + 1 < toks.size() && IsPunct(toks[after], '/')) {
      const Token& den_tok = toks[after + 1];
      auto per = grammar_.per_count.find(den_tok.norm);
      if (per != grammar_.per_count.end() && u.family != "count") {
        d.per = per->second;
        d.end = after + 2;
      } else if (rules_.denominators.count(den_tok.norm) || den_tok.kind == TokenKind::kNumber) {
        ++k;
        continue;
      } else if (rules_.per_day_denominators.count(den_tok.norm)) {
        d.per_day = true;
        d.end = after + 2;
      }
    } else if (after + 1 < toks.size() && IsWord(toks[after], "per") && rules_.per_day_denominators.count(toks[after + 1].norm)) {
      d.per_day = true;  // "1.5 mg per day"
      d.end = after + 2;
    }
    // counts: "two 200 mg tablets", "2 x 200 mg", "200 mg x 2"
    size_t n = q->begin;
    bool plain = !d.IsRange() && q->end == n + 1 && toks[n].kind == TokenKind::kNumber;
    double count = 0;
    if (plain && n > begin && IsWord(toks[n - 1], "x") && n >= begin + 2 && count_at(n - 2, count)) {
      d.value *= count;
      d.begin = n - 2;
    } else if (plain && n > begin && count_at(n - 1, count) &&
               !(n >= begin + 2 && (IsPunct(toks[n - 2], '-') || IsWord(toks[n - 2], "to")))) {
      d.value *= count;
      d.begin = n - 1;
    } else if (d.end + 1 < end && IsWord(toks[d.end], "x") && toks[d.end + 1].kind == TokenKind::kNumber &&
               !(d.end + 2 < end && toks[d.end + 2].kind == TokenKind::kWord &&
                 (toks[d.end + 2].norm.rfind("day", 0) == 0 || toks[d.end + 2].norm.rfind("week", 0) == 0 ||
                  toks[d.end + 2].norm.rfind("month", 0) == 0))) {
      d.value *= toks[d.end + 1].number;
      d.end += 2;
    }
    // "max daily dose 8 tablets", "mdd 1.5 mg per day": a limit, not a dose
    bool limit = false;
    for (size_t b = d.begin >= 4 ? d.begin - 4 : 0; b < d.begin; ++b)
      if (toks[b].kind == TokenKind::kWord && grammar_.limit_words.contains(toks[b].norm, NormHash(toks[b]))) limit = true;
    // "dispense 21 tabs", "#30 tablets": a quantity to dispense
    for (size_t b = d.begin >= 2 ? d.begin - 2 : 0; b < d.begin && d.family == "count"; ++b)
      if (grammar_.dispense_words.contains(toks[b].norm, NormHash(toks[b]))) limit = true;
    if (!limit) doses.push_back(d);
    k = std::max(d.end, k + 1);
  }
  CombineCountsWithStrengths(toks, doses);
  // "from 50 mg to 100 mg", "50 mg -> 100 mg", "20 mg, increase to 40 mg": the new dose comes
  // first ("2 tablets daily for 14 days then decrease to 0.5 tablets" is a later step, not a change).
  for (size_t i = 1; i < doses.size(); ++i) {
    size_t b = doses[i].begin;
    if (b > begin && (IsWord(toks[b - 1], "to") || IsPunct(toks[b - 1], '>')) && doses[i - 1].end + 3 >= b) {
      std::rotate(doses.begin(), doses.begin() + i, doses.begin() + i + 1);
      break;
    }
  }
  return doses;
}

// "500 mg 2 tabs", "500 mg, take 2 tablets", "2 puffs (90 mcg/actuation)": the count multiplies the
// strength; the total goes first. A count written before a plain strength is not multiplied
// ("take 2 capsules 800 mg" states the total), nor a parenthetical count ("100 mg (2 tablets)").
void SigParser::CombineCountsWithStrengths(const std::vector<Token>& toks, std::vector<Dose>& doses) const {
  auto filler = [&](size_t b, size_t e) {
    if (e < b || e - b > 3) return false;
    for (size_t k = b; k < e; ++k) {
      const Token& t = toks[k];
      bool ok = IsPunctOf(t, ",:;-") ||
                IsDoseVerb(t) || IsWord(t, "of") || (t.kind == TokenKind::kWord && rules_.route_matcher.MatchAt(toks, k, k + 1));
      if (!ok) return false;
    }
    return true;
  };
  auto multiplies = [&](const Dose& strength, const Dose& count) {
    return strength.family == "mass" && !strength.IsRange() && !strength.per_day && count.family == "count" &&
           grammar_.multiplied_counts.count(count.unit) && (strength.per.empty() || strength.per == count.unit) &&
           (count.value != 1 || count.IsRange());
  };
  auto total = [](const Dose& strength, const Dose& count) {
    Dose t = strength;
    t.value = strength.value * count.value;
    if (count.low) t.low = strength.value * *count.low;
    t.per.clear();
    t.begin = std::min(strength.begin, count.begin);
    t.end = std::max(strength.end, count.end);
    return t;
  };
  for (size_t i = 0; i + 1 < doses.size(); ++i) {
    const Dose& a = doses[i];
    const Dose& b = doses[i + 1];
    if (multiplies(a, b) && b.begin >= a.end && filler(a.end, b.begin)) {
      doses.insert(doses.begin() + static_cast<std::ptrdiff_t>(i), total(a, b));
      return;
    }
    // a strength written per unit cannot be a total: "2 puffs (90 mcg/actuation)"
    if (!b.per.empty() && multiplies(b, a) && b.begin >= a.end && b.begin <= a.end + 1 &&
        (b.begin == a.end || IsPunct(toks[a.end], '(') || IsWord(toks[a.end], "of"))) {
      doses.insert(doses.begin() + static_cast<std::ptrdiff_t>(i), total(b, a));
      return;
    }
  }
}

std::optional<Dose> SigParser::Primary(const std::vector<Dose>& doses) {
  // the amount of drug before the amount of vehicle or of units: mass, units, mEq, volume, count;
  // a daily total only when nothing else is written
  for (const char* family : {"mass", "unit", "meq", "volume", "count"})
    for (const Dose& d : doses)
      if (d.family == family && !d.per_day) return d;
  if (!doses.empty()) return doses.front();
  return std::nullopt;
}

// ---------------------------------------------------------------- frequency, route, action

Frequency SigParser::FindFrequency(const std::vector<Token>& toks, size_t begin, size_t end,
                                   std::string_view text) const {
  Frequency f;
  std::vector<std::string> slots;  // times of day counted so far, while every frequency is one
  bool summing = false;
  size_t later_step = end;         // a step word after the first frequency starts a later step
  for (const PatternMatch& m : rules_.frequency_matcher.FindAll(toks, begin, end)) {
    const FrequencyRule& r = rules_.frequencies[m.id];
    if (f.per_day && later_step == end)
      for (size_t k = f.end; k < m.begin; ++k)
        if (toks[k].kind == TokenKind::kWord && grammar_.step_words.contains(toks[k].norm, NormHash(toks[k]))) { later_step = k; break; }
    if (r.prn && m.begin < later_step) f.prn = true;
    if (!r.per_day) continue;
    const std::string& slot = grammar_.slot_of_rule[m.id];
    if (!f.per_day) {
      f.per_day = r.per_day->Eval(m.lo, m.hi);
      f.begin = m.begin;
      f.end = m.end;
      summing = !slot.empty();
      if (summing) slots.push_back(slot);
    } else if (summing && !slot.empty()) {
      if (std::find(slots.begin(), slots.end(), slot) == slots.end()) {
        slots.push_back(slot);
        *f.per_day += 1;
        f.end = m.end;
      }
    } else {
      summing = false;
    }
  }
  // "on Monday, Wednesday and Friday": distinct weekdays a week
  if (!f.per_day) {
    std::vector<int> days;
    for (size_t k = begin; k < end; ++k) {
      if (toks[k].kind != TokenKind::kWord) continue;
      const int* day = grammar_.weekdays.find(toks[k].norm, NormHash(toks[k]));
      if (!day) continue;
      if (days.empty()) f.begin = k;
      f.end = k + 1;
      if (std::find(days.begin(), days.end(), *day) == days.end()) days.push_back(*day);
    }
    if (!days.empty()) f.per_day = static_cast<double>(days.size()) / 7.0;
  }
  if (f.per_day)
    f.text = std::string(text.substr(toks[f.begin].byte_begin, toks[f.end - 1].byte_end - toks[f.begin].byte_begin));
  if (!f.per_day && f.prn) f.text = "prn";
  return f;
}

std::optional<std::string> SigParser::FindRoute(const std::vector<Token>& toks, size_t begin, size_t end) const {
  auto matches = rules_.route_matcher.FindAll(toks, begin, end);
  if (matches.empty()) return std::nullopt;
  return rules_.routes[matches.front().id].second;
}

std::optional<ActionHit> SigParser::FindActionBefore(const std::vector<Token>& toks, size_t begin, size_t end) const {
  std::optional<ActionHit> hit;
  for (const PatternMatch& m : rules_.action_matcher.FindAll(toks, begin, end)) {
    const ActionRule& a = rules_.actions[m.id];
    if (a.where == "before" || a.where == "both") hit = ActionHit{a.action, m.begin, m.end};
  }
  return hit;
}

std::optional<ActionHit> SigParser::FindActionAfter(const std::vector<Token>& toks, size_t begin, size_t end) const {
  for (const PatternMatch& m : rules_.action_matcher.FindAll(toks, begin, end)) {
    const ActionRule& a = rules_.actions[m.id];
    if (a.where == "after" || a.where == "both") return ActionHit{a.action, m.begin, m.end};
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- one sig

Sig SigParser::ReadSig(const std::vector<Token>& toks, size_t before_begin, size_t drug_begin, size_t drug_end,
                       size_t after_end, std::string_view text) const {
  Sig s;
  std::vector<Dose> doses = FindDoses(toks, drug_end, after_end);
  std::vector<Dose> before = FindDoses(toks, before_begin, drug_begin);
  // "take 2 Tylenol", "Take 1 codeine": a bare count between a dose verb and the name.
  if (drug_begin < drug_end && (before.empty() || before.back().end < drug_begin)) {
    for (size_t st = drug_begin; st-- > before_begin && st + 6 > drug_begin;) {
      auto q = QuantityAt(toks, st, drug_begin);
      if (!q || q->end != drug_begin || st == 0 || !IsDoseVerb(toks[st - 1]) || q->hi > 12) continue;
      before.push_back(CountDose(*q));
      break;
    }
  }
  // "2 tablets of acetaminophen 500 mg", "half a tablet of metoprolol tartrate 50 mg": the count
  // right before the name multiplies the strength right after it.
  if (drug_begin < drug_end && !before.empty() && !doses.empty()) {
    const Dose& c = before.back();
    bool count_before = c.end == drug_begin || (c.end + 1 == drug_begin && IsWord(toks[c.end], "of"));
    const Dose* strength = nullptr;
    for (const Dose& d : doses)
      if (d.family == "mass") { strength = &d; break; }
    bool attached = strength && strength->begin <= drug_end + 2;
    for (size_t k = drug_end; attached && k < strength->begin; ++k)
      if (toks[k].kind == TokenKind::kNumber) attached = false;
    if (count_before && attached && c.family == "count" && (grammar_.multiplied_counts.count(c.unit) || c.unit == "each") &&
        !strength->IsRange() && !strength->per_day && (strength->per.empty() || strength->per == c.unit)) {
      Dose t = *strength;
      t.value = strength->value * c.value;
      if (c.low) t.low = strength->value * *c.low;
      t.per.clear();
      t.begin = c.begin;
      doses.insert(doses.begin(), t);
    }
  }
  // A count bound to the name ("1 tablet of atorvastatin every day and then 2 tablets every
  // week") is this mention's dose: it goes before the doses of later steps.
  bool bound_count = drug_begin < drug_end && !before.empty() && before.back().family == "count" &&
                     (before.back().end == drug_begin || (before.back().end + 1 == drug_begin && IsWord(toks[before.back().end], "of")));
  bool combined = !doses.empty() && !before.empty() && doses.front().begin == before.back().begin;
  if (bound_count && !combined) {
    doses.insert(doses.begin(), before.back());
    before.pop_back();
  }
  doses.insert(doses.end(), before.begin(), before.end());
  s.dose = Primary(doses);
  s.doses = std::move(doses);

  s.frequency = FindFrequency(toks, drug_end, after_end, text);
  if (!s.frequency.per_day) {
    Frequency back = FindFrequency(toks, before_begin, drug_begin, text);
    if (back.per_day) {
      bool prn = s.frequency.prn || back.prn;
      s.frequency = back;
      s.frequency.prn = prn;
    } else if (back.prn) {
      s.frequency.prn = true;
    }
  }
  if (!s.frequency.per_day && s.dose && s.dose->per_day) {
    s.frequency.per_day = 1;
    s.frequency.text = "per day";
  }

  // Route: a route phrase; else a unit's non-oral route; else a verb's; else a unit's oral route.
  std::optional<std::string> written = FindRoute(toks, drug_end, after_end);
  if (!written) written = FindRoute(toks, before_begin, drug_begin);
  std::optional<std::string> implied;
  if (s.dose && !s.dose->implied_route.empty()) implied = s.dose->implied_route;
  for (const Dose& d : s.doses)
    if (!implied && !d.implied_route.empty()) implied = d.implied_route;
  std::optional<std::string> verb;
  for (size_t k : {drug_end, before_begin}) {
    size_t e = k == drug_end ? after_end : drug_begin;
    for (; !verb && k < e; ++k)
      if (toks[k].kind == TokenKind::kWord)
        if (const std::string* v = grammar_.verb_routes.find(toks[k].norm, NormHash(toks[k]))) verb = *v;
  }
  if (written) {
    s.route = written;
    if (*written == "oral" && (implied == "inhaled" || verb == "inhaled")) s.route = "inhaled";  // "inhale … by mouth"
  } else if (implied && *implied != "oral") {
    s.route = implied;
  } else if (verb) {
    s.route = verb;
  } else {
    s.route = implied;
  }
  return s;
}

// ---------------------------------------------------------------- ground truth

std::optional<Dose> SigParser::ParseDose(std::string_view s) const {
  TokenList toks = Tokenize(s);
  return Primary(FindDoses(toks, 0, toks.size()));
}

std::optional<Frequency> SigParser::ParseFrequency(std::string_view s) const {
  TokenList toks = Tokenize(s);
  Frequency f = FindFrequency(toks, 0, toks.size(), s);
  if (!f.per_day && !f.prn) return std::nullopt;
  f.text = std::string(Trim(s));
  return f;
}

std::optional<std::string> SigParser::ParseRoute(std::string_view s) const {
  TokenList toks = Tokenize(s);
  return FindRoute(toks, 0, toks.size());
}

// ---------------------------------------------------------------- vocabulary

bool SigParser::IsSigWord(std::string_view word) const { return grammar_.sig_words.contains(word); }
bool SigParser::IsSigWord(const Token& word) const { return grammar_.sig_words.contains(word.norm, NormHash(word)); }

bool SigParser::IsGluePiece(std::string_view word) const { return grammar_.glue_words.count(word) > 0; }

bool SigParser::IsSigAbbreviation(const std::vector<Token>& toks, size_t k) const {
  if (k >= toks.size() || toks[k].kind != TokenKind::kWord) return false;
  for (const PhraseMatcher* m : {&rules_.unit_matcher, &rules_.route_matcher, &rules_.frequency_matcher})
    if (auto hit = m->MatchAt(toks, k, k + 1); hit && hit->end == k + 1) return true;
  return false;
}

bool SigParser::IsDoseVerb(const Token& t) const {
  return t.kind == TokenKind::kWord && grammar_.dose_verbs.count(t.norm) > 0;
}

std::string SigParser::CorrectSpelling(std::string_view word) const {
  if (!AllLetters(word) || word.size() < grammar_.min_typo_length || IsSigWord(word)) return {};
  // Candidates share the word or one of its one-letter deletions; each is then judged as a typo:
  // one edit away for words of five letters or more, one transposition for shorter ones.
  const size_t n = word.size();
  std::vector<uint32_t> candidates;
  for (const std::string& d : OneDeletions(word))
    if (auto it = grammar_.vocabulary_deletes.find(d); it != grammar_.vocabulary_deletes.end())
      candidates.insert(candidates.end(), it->second.begin(), it->second.end());
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::string found;
  for (uint32_t id : candidates) {
    const std::string& v = grammar_.vocabulary[id];
    bool hit = n >= 5 ? v.size() >= 5 && (v.size() > n ? v.size() - n : n - v.size()) <= 1 && EditDistance(word, v, 1) == 1
                      : OneTransposition(word, v);
    if (!hit) continue;
    if (!found.empty() && found != v) return {};  // two candidates: not a typo of either
    found = v;
  }
  return found;
}

SigParser::WordRepair SigParser::RepairWord(std::string_view word, uint64_t hash) const {
  assert(hash == HashWord(word));
  {
    std::shared_lock<std::shared_mutex> reading(grammar_.repair_mu);
    if (const WordRepair* known = grammar_.repairs.find(word, hash)) return *known;
  }
  WordRepair repair;
  std::vector<std::string> pieces = SplitGlued(word);
  bool all_known = !pieces.empty() && std::all_of(pieces.begin(), pieces.end(), [&](const std::string& p) {
    return IsGluePiece(p);
  });
  if (!all_known) repair.respelled = CorrectSpelling(word);
  if (repair.respelled.empty() && pieces.size() >= 2) repair.pieces = std::move(pieces);
  std::unique_lock<std::shared_mutex> writing(grammar_.repair_mu);
  if (!grammar_.repairs.find(word, hash)) {
    if (grammar_.repairs.size() >= SigGrammar::kRepairMemoWords) grammar_.repairs.clear();
    grammar_.repairs[word] = repair;
  }
  return repair;
}

std::vector<std::string> SigParser::SplitGlued(std::string_view word) const {
  const size_t n = word.size();
  if (!AllLetters(word) || n < 4 || n > 40 || IsSigWord(word)) return {};
  // piece[p * (longest + 1) + len]: 1 when word[p, p + len) is a glue word, 3 when also a strong one
  const size_t longest = std::min(grammar_.longest_glue_word, n);
  std::vector<uint8_t> piece(n * (longest + 1), 0);
  for (size_t p = 0; p < n; ++p)
    for (size_t len = 1; len <= longest && p + len <= n; ++len) {
      std::string_view s = word.substr(p, len);
      if (grammar_.glue_words.count(s)) piece[p * (longest + 1) + len] = grammar_.strong.count(s) ? 3 : 1;
    }
  // Fewest known pieces covering w[b, e) with at least one strong piece; empty when impossible.
  auto cover = [&](size_t b, size_t e) -> std::vector<std::string> {
    const size_t m = e - b;
    std::vector<int> best(m + 1, -1), from(m + 1, -1), strong(m + 1, 0);
    best[0] = 0;
    for (size_t i = 0; i < m; ++i) {
      if (best[i] < 0) continue;
      for (size_t j = i + 1; j <= m && j - i <= longest; ++j) {  // no longer piece is known
        uint8_t f = piece[(b + i) * (longest + 1) + (j - i)];
        if (!f) continue;
        int s = strong[i] + ((f & 2) ? 1 : 0);
        if (best[j] < 0 || best[i] + 1 < best[j] || (best[i] + 1 == best[j] && s > strong[j])) {
          best[j] = best[i] + 1;
          from[j] = static_cast<int>(i);
          strong[j] = s;
        }
      }
    }
    if (best[m] < 0 || strong[m] == 0) return {};
    std::vector<std::string> pieces;
    for (int j = static_cast<int>(m); j > 0; j = from[j]) pieces.emplace_back(word.substr(b + from[j], j - from[j]));
    std::reverse(pieces.begin(), pieces.end());
    return pieces;
  };
  std::vector<std::string> full = cover(0, n);
  if (full.size() >= 2) return full;
  // one unknown piece of two or more letters at the start or at the end ("intprnas", "tidwminstror"):
  // the shortest unknown piece, where each known piece of one or two letters counts as two unknown
  // letters ("prnanxiety" is prn + anxiety, not prn + an + x + iety); then the fewest pieces
  std::vector<std::string> best;
  size_t best_cost = 0;
  for (size_t unknown = 2; unknown + 2 <= n; ++unknown) {
    for (bool at_end : {true, false}) {
      std::vector<std::string> known = at_end ? cover(0, n - unknown) : cover(unknown, n);
      if (known.empty()) continue;
      size_t cost = unknown * 16 + known.size();
      for (const std::string& p : known) cost += p.size() <= 2 ? 2 * 16 : 0;
      if (!best.empty() && cost >= best_cost) continue;
      best_cost = cost;
      best = known;
      if (at_end) best.emplace_back(word.substr(n - unknown));
      else best.insert(best.begin(), std::string(word.substr(0, unknown)));
    }
  }
  return best;
}

}  // namespace scribe
