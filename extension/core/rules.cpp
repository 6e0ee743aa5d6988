// rules.cpp — parsing of corpus/rules/* and the token-sequence phrase matcher (see rules.h).
#include "rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "embedded.h"

namespace scribe {
namespace {

bool IsShortCaps(std::string_view raw) {
  if (raw.empty() || raw.size() > 4) return false;
  bool any_alpha = false;
  for (char c : raw) {
    if (c >= 'a' && c <= 'z') return false;
    if (c >= 'A' && c <= 'Z') any_alpha = true;
  }
  return any_alpha;
}

// Non-comment, non-blank lines of a TSV, split on tabs, with 1-based line numbers.
std::vector<std::pair<int, std::vector<std::string>>> TsvRows(std::string_view data) {
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  int line_no = 0;
  for (std::string_view line : Split(data, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // A comment starts with '#' and has no tab; "# times daily<TAB>#" is a frequency row.
    if (Trim(line).empty() || (line.front() == '#' && line.find('\t') == std::string_view::npos)) continue;
    std::vector<std::string> fields;
    for (std::string_view f : Split(line, '\t')) fields.emplace_back(Trim(f));
    rows.emplace_back(line_no, std::move(fields));
  }
  return rows;
}

[[noreturn]] void Fail(std::string_view file, int line, std::string_view what) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + std::string(what));
}

std::vector<std::string> StringList(const YAML::Node& node, std::string_view key) {
  std::vector<std::string> out;
  const YAML::Node list = node[std::string(key)];
  if (!list) return out;
  if (!list.IsSequence()) throw std::runtime_error("assertion.yaml: " + std::string(key) + ": expected a list");
  for (const auto& item : list) out.push_back(Lower(item.as<std::string>()));
  return out;
}

}  // namespace

// ---------------------------------------------------------------- PhraseMatcher

void PhraseMatcher::Add(std::string_view phrase, int id) {
  std::vector<Word> words;
  for (Token& t : Tokenize(phrase)) {
    if (IsPunct(t, '-')) continue;
    Word w;
    if (t.kind == TokenKind::kPunct && t.norm == "#") {
      w.slot = true;
    } else if (t.kind == TokenKind::kWord && IsShortCaps(t.raw())) {
      w.exact_case = true;
      w.text = std::string(t.raw());
    } else {
      w.text = fold_ && t.kind == TokenKind::kWord ? t.folded : t.norm;  // Tokenize folded it
    }
    if (!w.slot) w.hash = HashWord(w.text);
    words.push_back(std::move(w));
  }
  if (words.empty()) return;
  if (nodes_.empty()) nodes_.emplace_back();
  auto child = [&](uint32_t node, uint32_t edge) { return nodes_[node].edges[edge].child; };
  auto add_edge = [&](uint32_t node, Word w) {
    Node& n = nodes_[node];
    const auto e = static_cast<uint32_t>(n.edges.size());
    if (w.slot || w.exact_case) {
      n.others.push_back(e);
    } else {
      std::pair<uint64_t, uint32_t> key{w.hash, e};
      n.by_hash.insert(std::upper_bound(n.by_hash.begin(), n.by_hash.end(), key), key);
    }
    n.edges.push_back({std::move(w), static_cast<uint32_t>(nodes_.size())});
    nodes_.emplace_back();  // n is not used after this
    return e;
  };
  // the first word: a root edge, filed under its bucket
  const Word& first = words[0];
  const uint64_t first_hash = first.slot ? 0 : HashWord(first.exact_case ? Lower(first.text) : first.text);
  uint32_t edge = 0;
  if (first.slot) {
    auto same = std::find_if(slot_first_.begin(), slot_first_.end(),
                             [&](uint32_t e) { return nodes_[0].edges[e].word == first; });
    edge = same != slot_first_.end() ? *same : add_edge(0, first);
    if (same == slot_first_.end()) slot_first_.push_back(edge);
  } else {
    auto [begin, end] = FirstEdges(first_hash);
    auto same = std::find_if(begin, end, [&](const auto& p) { return nodes_[0].edges[p.second].word == first; });
    if (same != end) {
      edge = same->second;
    } else {
      edge = add_edge(0, first);
      first_.insert(first_.begin() + (end - first_.data()), {first_hash, edge});  // after the hash's others
      for (size_t b = FirstBucket(first_hash) + 1; b < first_index_.size(); ++b) ++first_index_[b];
    }
    first_bits_[(first_hash >> 6) & 63] |= uint64_t{1} << (first_hash & 63);
  }
  uint32_t node = child(0, edge);
  for (size_t wi = 1; wi < words.size(); ++wi) {
    const std::vector<Edge>& edges = nodes_[node].edges;
    auto it = std::find_if(edges.begin(), edges.end(), [&](const Edge& e) { return e.word == words[wi]; });
    uint32_t e = it != edges.end() ? static_cast<uint32_t>(it - edges.begin()) : add_edge(node, words[wi]);
    node = child(node, e);
  }
  int index = static_cast<int>(ids_.size());
  ids_.push_back(id);
  if (nodes_[node].pattern < 0) nodes_[node].pattern = index;
}

std::pair<const std::pair<uint64_t, uint32_t>*, const std::pair<uint64_t, uint32_t>*> PhraseMatcher::FirstEdges(
    uint64_t hash) const {
  const size_t b = FirstBucket(hash);
  const std::pair<uint64_t, uint32_t>* begin = first_.data() + first_index_[b];
  const std::pair<uint64_t, uint32_t>* end = first_.data() + first_index_[b + 1];
  begin = std::lower_bound(begin, end, hash, [](const auto& p, uint64_t h) { return p.first < h; });
  const std::pair<uint64_t, uint32_t>* stop = begin;
  while (stop != end && stop->first == hash) ++stop;
  return {begin, stop};
}

void PhraseMatcher::SetNumberWords(const StringMap<double>& words) {
  number_words_.clear();
  for (const auto& [word, value] : words) number_words_[word] = value;
}

bool PhraseMatcher::WordMatches(const Word& w, const Token& t) const {
  if (w.exact_case && t.kind != TokenKind::kPunct) return t.raw() == w.text;
  // the token's word as the pattern's words are written, and its hash (0 when not computed)
  bool folded = fold_ && t.kind == TokenKind::kWord;
  uint64_t hash = folded ? t.folded_hash : t.norm_hash;
  if (hash != 0 && hash != w.hash) return false;
  return SameWord(folded ? t.folded : t.norm, w.text);
}

std::optional<size_t> PhraseMatcher::MatchSlot(const std::vector<Token>& toks, size_t k, size_t limit,
                                               double& lo, double& hi) const {
  auto value_at = [&](size_t i, double& v) {
    if (i >= limit) return false;
    if (toks[i].kind == TokenKind::kNumber) { v = toks[i].number; return true; }
    if (toks[i].kind == TokenKind::kWord) {
      const Token& t = toks[i];
      if (const double* value = number_words_.find(t.norm, NormHash(t))) {
        v = *value;
        return true;
      }
    }
    return false;
  };
  double a = 0;
  if (!value_at(k, a)) return std::nullopt;
  lo = hi = a;
  size_t end = k + 1;
  // range: "4-6", "4 to 6", "4 or 6", "4–6"
  if (end + 1 < limit) {
    std::string_view between = toks[end].norm;
    if (between == "-" || between == "to" || between == "or") {
      double b = 0;
      if (value_at(end + 1, b)) {
        lo = std::min(a, b);
        hi = std::max(a, b);
        end += 2;
      }
    }
  }
  return end;
}

void PhraseMatcher::Walk(const std::vector<Token>& toks, size_t limit, uint32_t node, size_t pos, int group,
                         SlotValue slot, Best& best) const {
  const Node& n = nodes_[node];
  if (n.pattern >= 0 && (pos > best.end || (pos == best.end &&
                                            (group < best.group || (group == best.group && n.pattern < best.pattern)))))
    best = {pos, group, n.pattern, slot.has_number, slot.lo, slot.hi};
  // a hyphen or underscore between two words of the text is skipped before a word ("self-harm"
  // = "self harm", "suicidal_ideation" = "suicidal ideation"), not before a slot
  size_t word_pos = pos;
  while (word_pos < limit && toks[word_pos].kind == TokenKind::kPunct &&
         (std::string_view(toks[word_pos].norm) == "-" || std::string_view(toks[word_pos].norm) == "_"))
    ++word_pos;
  // The best match does not depend on the order the edges are tried in (ties go to the lower
  // pattern index).
  for (uint32_t i : n.others) {
    const Edge& e = n.edges[i];
    if (e.word.slot) {
      if (pos >= limit) continue;
      SlotValue value{true, 0, 0};
      if (auto end = MatchSlot(toks, pos, limit, value.lo, value.hi))
        Walk(toks, limit, e.child, *end, group, value, best);
    } else if (word_pos < limit && WordMatches(e.word, toks[word_pos])) {
      Walk(toks, limit, e.child, word_pos + 1, group, slot, best);
    }
  }
  if (word_pos >= limit || n.by_hash.empty()) return;
  const Token& t = toks[word_pos];
  const uint64_t hash = fold_ && t.kind == TokenKind::kWord ? FoldedHash(t) : NormHash(t);
  auto it = std::lower_bound(n.by_hash.begin(), n.by_hash.end(), std::pair<uint64_t, uint32_t>{hash, 0});
  for (; it != n.by_hash.end() && it->first == hash; ++it) {
    const Edge& e = n.edges[it->second];
    if (WordMatches(e.word, t)) Walk(toks, limit, e.child, word_pos + 1, group, slot, best);
  }
}

std::optional<PatternMatch> PhraseMatcher::MatchAt(const std::vector<Token>& toks, size_t k, size_t limit) const {
  if (k >= limit || nodes_.empty()) return std::nullopt;
  Best best;
  const Token& t = toks[k];
  auto [key, norm_hash] = FirstKeys(t);
  auto try_bucket = [&](uint64_t hash, int group) {
    if (!MayStart(hash)) return;
    auto [begin, end] = FirstEdges(hash);
    for (auto p = begin; p != end; ++p) {
      const Edge& edge = nodes_[0].edges[p->second];
      if (WordMatches(edge.word, t)) Walk(toks, limit, edge.child, k + 1, group, SlotValue{}, best);
    }
  };
  try_bucket(key, 0);
  if (key != norm_hash) try_bucket(norm_hash, 1);
  // a pattern that opens with a number slot needs a number or a number word at k
  if (!slot_first_.empty()) {
    SlotValue value{true, 0, 0};
    if (auto end = MatchSlot(toks, k, limit, value.lo, value.hi))
      for (uint32_t e : slot_first_) Walk(toks, limit, nodes_[0].edges[e].child, *end, 2, value, best);
  }
  if (best.pattern < 0) return std::nullopt;
  PatternMatch m;
  m.begin = k;
  m.end = best.end;
  m.id = ids_[static_cast<size_t>(best.pattern)];
  m.has_number = best.has_number;
  m.lo = best.lo;
  m.hi = best.hi;
  return m;
}

namespace {

// Room for the matches of a matcher in one text, made when the first is found: most find none,
// and growing from one match by doubling took three or four allocations where one does.
constexpr size_t kMatchesReserve = 8;

void Keep(std::vector<PatternMatch>& out, const PatternMatch& m) {
  if (out.capacity() == 0) out.reserve(kMatchesReserve);
  out.push_back(m);
}

}  // namespace

std::vector<PatternMatch> PhraseMatcher::FindAll(const std::vector<Token>& toks, size_t begin, size_t limit) const {
  std::vector<PatternMatch> out;
  FindAll(toks, begin, limit, out);
  return out;
}

void PhraseMatcher::FindAll(const std::vector<Token>& toks, size_t begin, size_t limit,
                            std::vector<PatternMatch>& out) const {
  for (size_t k = begin; k < limit;) {
    if (!MayStartAt(toks[k])) {  // most tokens: what MatchAt would find, without calling it
      ++k;
      continue;
    }
    if (auto m = MatchAt(toks, k, limit)) {
      Keep(out, *m);
      k = m->end;
    } else {
      ++k;
    }
  }
}

std::vector<PatternMatch> PhraseMatcher::FindAll(const std::vector<Token>& toks, size_t begin, size_t limit,
                                                 std::span<const uint32_t> starts) const {
  std::vector<PatternMatch> out;
  size_t next = begin;  // the end of the last match: matches do not overlap
  for (auto it = std::lower_bound(starts.begin(), starts.end(), begin); it != starts.end() && *it < limit; ++it) {
    size_t k = *it;
    if (k < next) continue;
    if (auto m = MatchAt(toks, k, limit)) {
      Keep(out, *m);
      next = m->end;
    }
  }
  return out;
}

// A match never runs past its sentence's end, which is where the next sentence begins: the
// sentences' matches are found in one pass, each token tried up to the end of its own sentence.
std::vector<PatternMatch> PhraseMatcher::FindAllInSentences(const TokenizedText& text) const {
  std::vector<PatternMatch> out;
  const std::vector<Token>& toks = text.tokens;
  for (size_t k = 0; k < toks.size();) {
    if (!MayStartAt(toks[k])) {
      ++k;
      continue;
    }
    if (auto m = MatchAt(toks, k, text.sentence_end[text.sentence_of[k]])) {
      Keep(out, *m);
      k = m->end;
    } else {
      ++k;
    }
  }
  return out;
}

std::vector<PatternMatch> PhraseMatcher::FindAllInSentences(const TokenizedText& text,
                                                            std::span<const uint32_t> starts) const {
  std::vector<PatternMatch> out;
  const std::vector<Token>& toks = text.tokens;
  size_t next = 0;  // the end of the last match
  for (uint32_t k : starts) {
    if (k < next) continue;
    if (auto m = MatchAt(toks, k, text.sentence_end[text.sentence_of[k]])) {
      Keep(out, *m);
      next = m->end;
    }
  }
  return out;
}

MatcherStarts::MatcherStarts(std::vector<const PhraseMatcher*> members)
    : members_(std::move(members)), first_bits_(1024, 0) {
  std::sort(members_.begin(), members_.end());
  members_.erase(std::unique(members_.begin(), members_.end()), members_.end());
  std::unordered_map<uint64_t, std::vector<uint32_t>> norm, folded;
  auto add = [&](std::unordered_map<uint64_t, std::vector<uint32_t>>& lists, uint64_t hash, uint32_t member) {
    std::vector<uint32_t>& list = lists[hash];
    if (list.empty() || list.back() != member) list.push_back(member);  // members come in order
    first_bits_[(hash >> 6) & 1023] |= uint64_t{1} << (hash & 63);
  };
  for (uint32_t i = 0; i < members_.size(); ++i) {
    const PhraseMatcher& m = *members_[i];
    // m's MatchAt looks its first words up under a token's norm and, folding, its folded word
    for (const auto& [hash, edge] : m.first_) {
      add(norm, hash, i);
      if (m.fold_) add(folded, hash, i);
    }
    if (!m.slot_first_.empty()) {  // a number, or one of m's number words (IsNumberWord)
      number_members_.push_back(i);
      m.number_words_.ForEach([&](std::string_view word, double) { add(norm, HashWord(word), i); });
    }
  }
  by_norm_.Build(norm);
  by_folded_.Build(folded);
}

void MatcherStarts::Lists::Build(const std::unordered_map<uint64_t, std::vector<uint32_t>>& lists) {
  size_t capacity = 16;
  while (capacity < lists.size() * 2) capacity *= 2;
  slots.assign(capacity, Slot{});
  members.clear();
  // in hash order, so that the table does not depend on the map's iteration order
  std::vector<uint64_t> hashes;
  for (const auto& [hash, list] : lists) hashes.push_back(hash);
  std::sort(hashes.begin(), hashes.end());
  for (uint64_t hash : hashes) {
    const std::vector<uint32_t>& list = lists.at(hash);
    size_t i = (hash * 0x9E3779B97F4A7C15ULL) & (capacity - 1);
    while (slots[i].end != 0) i = (i + 1) & (capacity - 1);
    slots[i] = {hash, static_cast<uint32_t>(members.size()), static_cast<uint32_t>(members.size() + list.size())};
    members.insert(members.end(), list.begin(), list.end());
  }
}

std::span<const uint32_t> MatcherStarts::Lists::Of(uint64_t hash) const {
  if (slots.empty()) return {};
  for (size_t i = (hash * 0x9E3779B97F4A7C15ULL) & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1)) {
    const Slot& s = slots[i];
    if (s.end == 0) return {};
    if (s.hash == hash) return {members.data() + s.begin, members.data() + s.end};
  }
}

MatcherStarts::Found MatcherStarts::Find(const std::vector<Token>& toks) const {
  Found found;
  found.group_ = this;
  const size_t n = members_.size();
  // (member, token) in token order, then grouped by member, each member's tokens still ascending
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  pairs.reserve(toks.size());
  std::vector<uint32_t> last(n, UINT32_MAX);  // the token a member was last given: no repeats
  auto add = [&](std::span<const uint32_t> list, uint32_t k) {
    for (uint32_t m : list)
      if (last[m] != k) {
        last[m] = k;
        pairs.emplace_back(m, k);
      }
  };
  for (size_t k = 0; k < toks.size(); ++k) {
    const Token& t = toks[k];  // tokens made outside Tokenize (tests) may lack their hashes
    const auto tk = static_cast<uint32_t>(k);
    const uint64_t norm_hash = NormHash(t);
    if (Has(norm_hash)) add(by_norm_.Of(norm_hash), tk);
    if (t.kind == TokenKind::kWord) {
      const uint64_t folded_hash = FoldedHash(t);
      if (folded_hash != norm_hash && Has(folded_hash)) add(by_folded_.Of(folded_hash), tk);
    } else if (t.kind == TokenKind::kNumber) {
      add(number_members_, tk);
    }
  }
  found.offsets_.assign(n + 1, 0);
  for (const auto& [m, k] : pairs) ++found.offsets_[m + 1];
  for (size_t i = 0; i < n; ++i) found.offsets_[i + 1] += found.offsets_[i];
  found.tokens_.resize(pairs.size());
  std::copy(found.offsets_.begin(), found.offsets_.end() - 1, last.begin());  // each member's next place
  for (const auto& [m, k] : pairs) found.tokens_[last[m]++] = k;
  return found;
}

std::span<const uint32_t> MatcherStarts::Found::Of(const PhraseMatcher& m) const {
  if (!group_) return {};
  const auto& members = group_->members_;
  auto it = std::lower_bound(members.begin(), members.end(), &m);
  if (it == members.end() || *it != &m) return {};
  const size_t i = static_cast<size_t>(it - members.begin());
  return {tokens_.data() + offsets_[i], tokens_.data() + offsets_[i + 1]};
}

// ---------------------------------------------------------------- Rules

std::optional<PerDayExpr> PerDayExpr::Parse(std::string_view expr) {
  if (expr.empty()) return std::nullopt;
  // term := number | '#' | number '#'
  auto term = [](std::string_view t) -> std::optional<Term> {
    t = Trim(t);
    if (t.empty()) return std::nullopt;
    Term out;
    out.slot = t.back() == '#';
    if (out.slot) t.remove_suffix(1);
    if (!t.empty()) {
      std::string s(t);
      char* end = nullptr;
      out.base = std::strtod(s.c_str(), &end);
      if (end == s.c_str() || *end != '\0') return std::nullopt;
    }
    return out;
  };
  PerDayExpr e;
  size_t slash = expr.find('/');
  auto num = term(expr.substr(0, slash));
  if (!num) return std::nullopt;
  e.num = *num;
  if (slash != std::string_view::npos) {
    auto den = term(expr.substr(slash + 1));
    if (!den) return std::nullopt;
    e.den = *den;
    e.has_den = true;
  }
  return e;
}

std::optional<double> PerDayExpr::Eval(double lo, double hi) const {
  auto at = [&](double slot) -> std::optional<double> {
    if (!has_den) return num.At(slot);
    double d = den.At(slot);
    if (d == 0) return std::nullopt;
    return num.At(slot) / d;
  };
  auto a = at(lo), b = at(hi);
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

std::optional<double> Rules::PerDay(const std::string& expr, double lo, double hi) {
  auto e = PerDayExpr::Parse(expr);
  return e ? e->Eval(lo, hi) : std::nullopt;
}

std::string Rules::CanonicalAction(std::string_view word) const {
  std::string w = NormalizePhrase(word);
  for (const char* a : {"start", "stop", "continue", "increase", "decrease"})
    if (w == a) return w;
  if (auto it = action_aliases.find(w); it != action_aliases.end()) return it->second;
  return {};
}

Rules LoadRules(std::string_view frequencies_tsv, std::string_view units_tsv, std::string_view routes_tsv,
                std::string_view actions_tsv, std::string_view assertion_yaml, std::string_view synonyms_tsv,
                std::string_view non_rxnorm_txt, std::string_view changelog_yaml,
                std::string_view lab_context_yaml) {
  Rules r;
  // units first: number words feed the '#' slots of frequency patterns
  for (auto& [line, f] : TsvRows(units_tsv)) {
    if (f[0] == "@denominator" && f.size() >= 2) { r.denominators.insert(f[1]); continue; }
    if (f[0] == "@per-day" && f.size() >= 2) { r.per_day_denominators.insert(f[1]); continue; }
    if (f[0] == "@count-word" && f.size() >= 3) { r.number_words[f[1]] = std::strtod(f[2].c_str(), nullptr); continue; }
    if (f.size() < 4) Fail("units.tsv", line, "expected token, canonical, factor, family");
    UnitRule u{Lower(f[0]), f[1], f[3], f.size() > 4 ? f[4] : "", std::strtod(f[2].c_str(), nullptr)};
    if (u.factor <= 0) Fail("units.tsv", line, "factor must be positive");
    r.units.push_back(u);
  }
  for (const UnitRule& u : r.units) r.unit_by_token[u.token] = &u;
  for (const auto& [word, value] : r.number_words) r.number_word_values.insert(word, value);
  r.frequency_matcher.SetNumberWords(r.number_words);

  for (auto& [line, f] : TsvRows(frequencies_tsv)) {
    FrequencyRule fr{f[0], f.size() > 1 ? f[1] : "", f.size() > 2 && f[2] == "1", std::nullopt};
    if (fr.per_day_expr.empty() && !fr.prn) Fail("frequencies.tsv", line, "a row needs per_day or prn");
    if (!fr.per_day_expr.empty()) {
      fr.per_day = PerDayExpr::Parse(fr.per_day_expr);
      if (!fr.per_day || !fr.per_day->Eval(2, 2))
        Fail("frequencies.tsv", line, "cannot evaluate per_day '" + fr.per_day_expr + "'");
    }
    r.frequency_matcher.Add(fr.pattern, static_cast<int>(r.frequencies.size()));
    r.frequencies.push_back(fr);
  }
  for (auto& [line, f] : TsvRows(routes_tsv)) {
    if (f.size() < 2) Fail("routes.tsv", line, "expected phrase, route");
    r.route_matcher.Add(f[0], static_cast<int>(r.routes.size()));
    r.routes.emplace_back(f[0], f[1]);
  }
  for (auto& [line, f] : TsvRows(actions_tsv)) {
    if (f.size() < 3) Fail("actions.tsv", line, "expected phrase, action, where");
    ActionRule a{f[0], f[1], f[2]};
    if (a.where == "alias") {
      r.action_aliases[NormalizePhrase(a.phrase)] = a.action;
      continue;
    }
    if (a.where != "before" && a.where != "after" && a.where != "both")
      Fail("actions.tsv", line, "where must be before, after, both or alias");
    r.action_matcher.Add(a.phrase, static_cast<int>(r.actions.size()));
    r.actions.push_back(a);
  }
  for (size_t i = 0; i < r.units.size(); ++i) r.unit_matcher.Add(r.units[i].token, static_cast<int>(i));

  YAML::Node y = YAML::Load(std::string(assertion_yaml));
  AssertionTriggers& t = r.assertion;
  auto pre_post = [&](const char* key, std::vector<std::string>& pre, std::vector<std::string>& post,
                      std::vector<std::string>& pseudo) {
    YAML::Node n = y[key];
    if (!n || !n.IsMap()) throw std::runtime_error(std::string("assertion.yaml: missing mapping '") + key + "'");
    pre = StringList(n, "pre");
    post = StringList(n, "post");
    pseudo = StringList(n, "pseudo");
  };
  pre_post("negated", t.negated_pre, t.negated_post, t.negated_pseudo);
  pre_post("historical", t.historical_pre, t.historical_post, t.historical_pseudo);
  pre_post("hypothetical", t.hypothetical_pre, t.hypothetical_post, t.hypothetical_pseudo);
  pre_post("family", t.family_pre, t.family_post, t.family_pseudo);
  t.negated_self = StringList(y["negated"], "self");
  t.negated_pseudo_list = StringList(y["negated"], "pseudo_list");
  t.negated_prefix = StringList(y["negated"], "prefix");
  t.historical_prefix = StringList(y["historical"], "prefix");
  t.historical_terminators = StringList(y["historical"], "terminators");
  t.family_through = StringList(y["family"], "through");
  t.terminators = StringList(y, "terminators");
  t.experiencer_terminators = StringList(y, "experiencer_terminators");
  t.qualifiers = StringList(y, "qualifiers");
  t.abbreviations = StringList(y, "abbreviations");
  t.allergy_cues = StringList(y, "allergy_cues");
  t.no_allergies = StringList(y, "no_allergies");
  t.no_drug_allergies = StringList(y, "no_drug_allergies");

  for (auto& [line, f] : TsvRows(synonyms_tsv)) {
    if (f.size() < 2) Fail("clinical_synonyms.tsv", line, "expected phrase, equivalent");
    r.clinical_synonyms.emplace_back(f[0], f[1]);
    r.clinical_synonyms_folded.emplace_back(" " + FoldedPhrase(f[0]) + " ", " " + FoldedPhrase(f[1]) + " ");
    r.synonyms_of[FoldedPhrase(f[0])].push_back(f[1]);
    r.synonyms_of[FoldedPhrase(f[1])].push_back(f[0]);
  }
  for (std::string_view line : Split(non_rxnorm_txt, '\n')) {
    line = Trim(line);
    if (!line.empty() && line.front() != '#') r.non_rxnorm_substances.push_back(NormalizePhrase(line));
  }
  YAML::Node lab = YAML::Load(std::string(lab_context_yaml));
  for (const std::string& w : StringList(lab, "analytes")) r.lab_analytes.insert(NormalizePhrase(w));
  for (const std::string& w : StringList(lab, "after")) r.lab_after.insert(NormalizePhrase(w));
  for (const std::string& w : StringList(lab, "before")) r.lab_before.insert(NormalizePhrase(w));
  for (const std::string& w : StringList(lab, "dose_required")) r.dose_required.insert(NormalizePhrase(w));
  YAML::Node c = YAML::Load(std::string(changelog_yaml));
  r.grader_version = c["grader_version"].as<std::string>();
  r.methodology_version = c["methodology_version"].as<std::string>();
  r.changelog_yaml = std::string(changelog_yaml);
  return r;
}

const Rules& DefaultRules() {
  static const Rules rules = LoadRules(
      embedded_file("corpus/rules/frequencies.tsv"), embedded_file("corpus/rules/units.tsv"),
      embedded_file("corpus/rules/routes.tsv"), embedded_file("corpus/rules/actions.tsv"),
      embedded_file("corpus/rules/assertion.yaml"), embedded_file("corpus/rules/clinical_synonyms.tsv"),
      embedded_file("corpus/rules/non_rxnorm_substances.txt"), embedded_file("corpus/rules/changelog.yaml"),
      embedded_file("corpus/rules/lab_context.yaml"));
  return rules;
}

}  // namespace scribe
