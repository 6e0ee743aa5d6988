// sig.cpp — dose, frequency, route and action parsing (see sig.h).
#include "sig.h"

#include <algorithm>

namespace scribe {
namespace {

bool IsWord(const Token& t, std::string_view w) { return t.kind == TokenKind::kWord && t.norm == w; }
bool IsPunct(const Token& t, std::string_view p) { return t.kind == TokenKind::kPunct && t.norm == p; }

}  // namespace

std::string Dose::Text() const { return FormatNumber(value) + " " + unit; }

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
  for (size_t k = begin; k < end; ++k) {
    if (toks[k].kind != TokenKind::kNumber) continue;
    auto unit_match = rules_.unit_matcher.MatchAt(toks, k + 1, end);
    if (!unit_match) continue;
    const UnitRule& u = rules_.units[unit_match->id];
    size_t after = unit_match->end;
    Dose d;
    d.value = toks[k].number * u.factor;
    d.unit = u.canonical;
    d.family = u.family;
    d.implied_route = u.implied_route;
    d.begin = k;
    d.end = after;
    // "mg/dL", "mEq/L": a concentration or lab value; "mg/day": a daily total.
    if (after + 1 < toks.size() && IsPunct(toks[after], "/")) {
      const std::string& den = toks[after + 1].norm;
      if (rules_.denominators.count(den) || (toks[after + 1].kind == TokenKind::kNumber)) continue;
      if (rules_.per_day_denominators.count(den)) { d.per_day = true; d.end = after + 2; }
    }
    // counts: "two 200 mg tablets", "2 x 200 mg", "200 mg x 2"
    double count = 0;
    if (k > begin && IsWord(toks[k - 1], "x") && k >= begin + 2 && count_at(k - 2, count)) {
      d.value *= count;
      d.begin = k - 2;
    } else if (k > begin && count_at(k - 1, count) &&
               !(k >= begin + 2 && (IsPunct(toks[k - 2], "-") || IsWord(toks[k - 2], "to")))) {
      d.value *= count;
      d.begin = k - 1;
    } else if (d.end + 1 < end && IsWord(toks[d.end], "x") && toks[d.end + 1].kind == TokenKind::kNumber &&
               !(d.end + 2 < end && toks[d.end + 2].kind == TokenKind::kWord &&
                 (toks[d.end + 2].norm.rfind("day", 0) == 0 || toks[d.end + 2].norm.rfind("week", 0) == 0 ||
                  toks[d.end + 2].norm.rfind("month", 0) == 0))) {
      d.value *= toks[d.end + 1].number;
      d.end += 2;
    }
    doses.push_back(d);
  }
  // "500 mg 2 tabs", "500 mg, take 2 tablets": the count multiplies the strength.
  for (size_t i = 0; i + 1 < doses.size(); ++i) {
    const Dose& a = doses[i];
    const Dose& b = doses[i + 1];
    bool solid = b.unit == "tablet" || b.unit == "capsule";
    if (a.family == "mass" && solid && b.value != 1 && b.begin >= a.end && b.begin <= a.end + 2) {
      Dose total = a;
      total.value = a.value * b.value;
      total.end = b.end;
      doses.insert(doses.begin() + static_cast<std::ptrdiff_t>(i), total);
      break;
    }
  }
  // "from 50 mg to 100 mg", "50 mg -> 100 mg": the new dose comes first.
  for (size_t i = 1; i < doses.size(); ++i) {
    size_t b = doses[i].begin;
    if (b > begin && (IsWord(toks[b - 1], "to") || IsPunct(toks[b - 1], ">"))) {
      std::rotate(doses.begin(), doses.begin() + i, doses.begin() + i + 1);
      break;
    }
  }
  return doses;
}

std::optional<Dose> SigParser::Primary(const std::vector<Dose>& doses) {
  for (const Dose& d : doses)
    if (d.family != "count") return d;
  if (!doses.empty()) return doses.front();
  return std::nullopt;
}

Frequency SigParser::FindFrequency(const std::vector<Token>& toks, size_t begin, size_t end,
                                   std::string_view text) const {
  Frequency f;
  for (const PatternMatch& m : rules_.frequency_matcher.FindAll(toks, begin, end)) {
    const FrequencyRule& r = rules_.frequencies[m.id];
    if (r.prn) f.prn = true;
    if (!f.per_day && !r.per_day_expr.empty()) {
      f.per_day = Rules::PerDay(r.per_day_expr, m.lo, m.hi);
      f.begin = m.begin;
      f.end = m.end;
      f.text = std::string(text.substr(toks[m.begin].byte_begin, toks[m.end - 1].byte_end - toks[m.begin].byte_begin));
    }
  }
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

std::optional<Dose> SigParser::ParseDose(std::string_view s) const {
  std::vector<Token> toks = Tokenize(s);
  return Primary(FindDoses(toks, 0, toks.size()));
}

std::optional<Frequency> SigParser::ParseFrequency(std::string_view s) const {
  std::vector<Token> toks = Tokenize(s);
  Frequency f = FindFrequency(toks, 0, toks.size(), s);
  if (!f.per_day && !f.prn) return std::nullopt;
  f.text = std::string(Trim(s));
  return f;
}

std::optional<std::string> SigParser::ParseRoute(std::string_view s) const {
  std::vector<Token> toks = Tokenize(s);
  return FindRoute(toks, 0, toks.size());
}

}  // namespace scribe
