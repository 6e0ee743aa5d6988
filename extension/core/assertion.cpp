// assertion.cpp — trigger scopes over a tokenized text (see assertion.h).
//
// Per sentence: the trigger matches (PhraseMatcher: longest first, left to right), the scope
// breaks (";", terminators, mid-sentence section headings; experiencer terminators for family
// scopes), then one scope interval per trigger and category. Intervals are bucketed by the
// token where a sweep meets them and swept once forward (pre-triggers: which scope reaches
// this token?) and once backward (post-triggers), so the cost is O(tokens + matches).
#include "assertion.h"

#include <cassert>
#include <limits>
#include <map>

namespace scribe {
namespace {

// Scope categories, in the order of their bit index.
constexpr uint8_t kScopeBit[] = {kBitNegated, kBitHistorical, kBitHypothetical, kBitFamily};
constexpr int kNeg = 0, kHist = 1, kHyp = 2, kFam = 3, kCategories = 4;

// The category index of a token's strongest bit (family > negated > hypothetical > historical), -1 if none.
int Strongest(uint8_t bits) {
  if (bits & kBitFamily) return kFam;
  if (bits & kBitNegated) return kNeg;
  if (bits & kBitHypothetical) return kHyp;
  if (bits & kBitHistorical) return kHist;
  return -1;
}

int Letters(const Token& t) {
  int n = 0;
  for (char c : t.norm) n += (c >= 'a' && c <= 'z') ? 1 : 0;
  return n;
}

// Small words inside a title-case heading ("History of Present Illness:").
bool IsHeadingConnector(const Token& t) {
  if (t.kind == TokenKind::kPunct) return IsPunctOf(t, "/&-");
  if (t.kind != TokenKind::kWord || t.capitalized) return false;
  for (std::string_view w : {"of", "and", "or", "the", "to", "for", "in", "on", "with"})
    if (t.norm == w) return true;
  return false;
}

}  // namespace

struct AssertionAnalyzer::Scope {
  uint32_t begin, end;  // sentence-relative tokens covered, end exclusive
  int32_t match;        // index into the sentence's matches
  uint8_t category;
};

// Per-sentence buffers, reused across sentences (indexes are sentence-relative).
struct AssertionAnalyzer::Workspace {
  std::vector<uint8_t> is_trigger, forward_only_end, clause_break, family_through, heading, extra_break[kCategories];
  std::vector<uint8_t> breaks;  // per token, one bit per category whose scopes it ends
  // Per category: where a forward scope from token i stops, where a backward scope ending at i starts.
  std::vector<uint32_t> next_break[kCategories], prev_start[kCategories], next_comma;
  std::vector<Scope> forward, backward;
  std::vector<int32_t> forward_head, forward_next, backward_head, backward_next;
  std::vector<int32_t> forward_choice;  // token * kCategories + category -> match, -1 none
  std::vector<PatternMatch> matches;     // the sentence's trigger matches
};

std::string_view AssertionName(Assertion a) {
  switch (a) {
    case Assertion::kAffirmed:
      return "affirmed";
    case Assertion::kNegated:
      return "negated";
    case Assertion::kHistorical:
      return "historical";
    case Assertion::kHypothetical:
      return "hypothetical";
    case Assertion::kFamily:
      return "family";
  }
  return "affirmed";
}

AssertionAnalyzer::AssertionAnalyzer(const Rules& rules) {
  const AssertionTriggers& t = rules.assertion;
  std::map<std::string, uint32_t> phrases;
  auto add = [&](const std::vector<std::string>& list, uint32_t kind) {
    for (const std::string& p : list) phrases[NormalizePhrase(p)] |= kind;
  };
  add(t.negated_pre, kNegPre);
  add(t.negated_post, kNegPost);
  add(t.negated_pseudo, kNegPseudo);
  add(t.negated_pseudo_list, kNegPseudo | kNegList);
  add(t.negated_self, kNegSelf);
  add(t.negated_prefix, kNegPrefix);
  add(t.historical_pre, kHistPre);
  add(t.historical_post, kHistPost);
  add(t.historical_pseudo, kHistPseudo);
  add(t.historical_prefix, kHistPrefix);
  add(t.hypothetical_pre, kHypPre);
  add(t.hypothetical_post, kHypPost);
  add(t.hypothetical_pseudo, kHypPseudo);
  add(t.family_pre, kFamPre);
  add(t.family_post, kFamPost);
  add(t.family_pseudo, kFamPseudo);
  add(t.terminators, kTerm);
  add(t.family_through, kFamThrough);
  add(t.experiencer_terminators, kExpTerm);
  add(t.historical_terminators, kHistTerm);
  for (const auto& [phrase, kind] : phrases) {
    matcher_.Add(phrase, static_cast<int>(kinds_.size()));
    kinds_.push_back(kind);
  }
}

std::vector<uint8_t> AssertionAnalyzer::Analyze(const TokenizedText& text, std::vector<uint32_t>* clauses,
                                                std::vector<AssertionCue>* cues,
                                                const std::vector<uint8_t>* sentences) const {
  std::vector<uint8_t> bits(text.tokens.size(), 0);
  if (clauses) clauses->assign(text.tokens.size(), 0);
  if (cues) cues->assign(text.tokens.size(), AssertionCue{});
  assert(!sentences || sentences->size() == text.sentence_begin.size());
  Workspace ws;
  uint32_t clause_no = 0;
  for (size_t s = 0; s < text.sentence_begin.size(); ++s) {
    size_t sb = text.sentence_begin[s], se = text.sentence_end[s];
    if (sb < se && (!sentences || (*sentences)[s])) AnalyzeSentence(text, sb, se, ws, bits, clauses, clause_no, cues);
  }
  return bits;
}

void AssertionAnalyzer::NumberClauses(const std::vector<Token>& toks, size_t sb, size_t se,
                                      std::vector<uint32_t>& clauses, uint32_t& clause_no) {
  ++clause_no;
  for (size_t k = sb; k < se; ++k) {
    if (k > sb && IsPunct(toks[k], ';')) ++clause_no;
    clauses[k] = clause_no;
  }
}

void AssertionAnalyzer::AnalyzeSentence(const TokenizedText& text, size_t sb, size_t se, Workspace& ws,
                                        std::vector<uint8_t>& bits, std::vector<uint32_t>* clauses, uint32_t& clause_no,
                                        std::vector<AssertionCue>* cues) const {
  const auto& toks = text.tokens;
  const size_t n = se - sb;
  ws.matches.clear();
  matcher_.FindAll(toks, sb, se, ws.matches);
  const std::vector<PatternMatch>& matches = ws.matches;
  if (matches.empty()) {
    // No trigger, no scope and no terminator: the sentence is only numbered into clauses at ";".
    if (clauses) NumberClauses(toks, sb, se, *clauses, clause_no);
    return;
  }
  for (auto* v : {&ws.is_trigger, &ws.forward_only_end, &ws.clause_break, &ws.family_through, &ws.heading})
    v->assign(n, 0);
  for (auto& v : ws.extra_break) v.assign(n, 0);

  // 1. Triggers and clause breaks: ";" and terminators.
  for (const PatternMatch& m : matches) {
    uint32_t kind = kinds_[m.id];
    if (kind & kTerm) ws.clause_break[m.begin - sb] = 1;
    if (kind & kFamThrough) ws.family_through[m.begin - sb] = 1;
    if (kind & kExpTerm) ws.extra_break[kFam][m.begin - sb] = 1;
    if (kind & kHistTerm) ws.extra_break[kHist][m.begin - sb] = 1;
    for (size_t k = m.begin; k < m.end; ++k) {
      bits[k] |= kBitTrigger;
      ws.is_trigger[k - sb] = 1;
    }
    constexpr uint32_t kForward = kNegPre | kNegPrefix | kHistPre | kHistPrefix | kHypPre | kFamPre;
    constexpr uint32_t kBackward = kNegPost | kHistPost | kHypPost | kFamPost;
    if ((kind & kForward) && !(kind & kBackward)) ws.forward_only_end[m.end - 1 - sb] = 1;
  }
  for (size_t i = 0; i < n; ++i)
    if (IsPunct(toks[sb + i], ';')) ws.clause_break[i] = 1;
  if (clauses) {
    ++clause_no;
    for (size_t i = 0; i < n; ++i) {
      if (ws.clause_break[i] && i > 0) ++clause_no;
      (*clauses)[sb + i] = clause_no;
    }
  }

  // 2. Mid-sentence section headings ("COMPLICATIONS: None POSTOPERATIVE DIAGNOSIS: 1) …" when
  // line breaks were lost): the run of capitalised words right before a ":" starts a new scope.
  // An ALL-CAPS run needs 4 letters ("Denies SI:" is no heading); no run follows a trigger that
  // only looks forward ("No Fever:" is the denied finding); trigger words never belong to a
  // heading, so "None" stays the value of the heading before it.
  for (size_t c = 1; c < n; ++c) {
    if (!IsPunct(toks[sb + c], ':')) continue;
    const Token& last = toks[sb + c - 1];
    if (last.kind != TokenKind::kWord || ws.is_trigger[c - 1] || !last.capitalized) continue;
    const bool caps = last.all_caps;
    size_t first = c;
    int letters = 0;
    for (size_t k = c; k > 0 && c - k < 8; --k) {
      const Token& t = toks[sb + k - 1];
      if (ws.is_trigger[k - 1]) break;
      bool word = t.kind == TokenKind::kWord && (caps ? t.all_caps : t.capitalized);
      if (word) {
        first = k - 1;
        letters += Letters(t);
      } else if (!(caps ? t.kind == TokenKind::kPunct && IsHeadingConnector(t) : IsHeadingConnector(t))) {
        break;
      }
    }
    if (first == 0 || first == c) continue;  // at the sentence start the sentence bounds the scopes
    if ((caps && letters < 4) || ws.forward_only_end[first - 1]) continue;
    ws.heading[first] = 1;
  }

  // 3. Where scopes end, per category: clause breaks and headings for all (a family scope runs
  // through "who", "positive for" …), plus experiencer terminators for family and the
  // present-tense terminators of historical scopes. Forward scopes stop before a break;
  // backward scopes start after a clause break, or at the first word of a heading.
  ws.next_comma.assign(n + 1, static_cast<uint32_t>(n));
  for (size_t i = n; i-- > 0;)
    ws.next_comma[i] = IsPunct(toks[sb + i], ',') ? static_cast<uint32_t>(i) : ws.next_comma[i + 1];
  // Bit c of breaks[i]: token i is a break for category c.
  ws.breaks.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint8_t b = ws.clause_break[i] || ws.heading[i] ? 0xF : 0;
    if (ws.clause_break[i] && ws.family_through[i] && !ws.heading[i]) b &= ~(1u << kFam);
    b |= ws.extra_break[kHist][i] << kHist | ws.extra_break[kFam][i] << kFam;  // the only extra breaks
    ws.breaks[i] = b;
  }
  // Only the categories some trigger of the sentence opens a scope in read their bounds.
  uint32_t opened = 0;
  for (const PatternMatch& m : matches) opened |= kinds_[m.id];
  const bool needs[kCategories] = {(opened & (kNegPre | kNegPost | kNegPrefix | kNegList)) != 0,
                                   (opened & (kHistPre | kHistPost | kHistPrefix)) != 0,
                                   (opened & (kHypPre | kHypPost)) != 0, (opened & (kFamPre | kFamPost)) != 0};
  for (int c = 0; c < kCategories; ++c) {
    if (!needs[c]) continue;
    auto is_break = [&](size_t i) { return (ws.breaks[i] >> c) & 1; };
    auto& next = ws.next_break[c];
    auto& prev = ws.prev_start[c];
    next.assign(n + 1, static_cast<uint32_t>(n));
    prev.assign(n + 1, 0);
    for (size_t i = n; i-- > 0;) next[i] = is_break(i) ? static_cast<uint32_t>(i) : next[i + 1];
    uint32_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      prev[i] = start;
      if (is_break(i)) {
        bool heading_only = ws.heading[i] && !ws.clause_break[i] && !ws.extra_break[c][i];
        start = std::max(start, static_cast<uint32_t>(heading_only ? i : i + 1));
      }
    }
    prev[n] = start;
  }

  // 4. One interval per trigger and category.
  ws.forward.clear();
  ws.backward.clear();
  for (size_t mi = 0; mi < matches.size(); ++mi) {
    const uint32_t kind = kinds_[matches[mi].id];
    const auto b = static_cast<uint32_t>(matches[mi].begin - sb), e = static_cast<uint32_t>(matches[mi].end - sb);
    const auto match = static_cast<int32_t>(mi);
    auto forward = [&](uint8_t category, uint32_t from) {
      const auto& next = ws.next_break[category];
      if (from < next[from]) ws.forward.push_back({from, next[from], match, category});
    };
    auto backward = [&](uint8_t category) {
      uint32_t from = ws.prev_start[category][b];
      if (from < b) ws.backward.push_back({from, b, match, category});
    };
    auto prefix = [&](uint8_t category) {  // the one word joined to the prefix ("non-tender")
      uint32_t w = e;
      if (w < n && IsPunct(toks[sb + w], '-')) ++w;
      if (w < n && w < ws.next_break[category][e] && toks[sb + w].kind == TokenKind::kWord)
        ws.forward.push_back({w, w + 1, match, category});
    };
    if (!(kind & kNegPseudo)) {
      if (kind & kNegPre) forward(kNeg, e);
      if (kind & kNegPost) backward(kNeg);
      if (kind & kNegSelf) ws.forward.push_back({b, e, match, kNeg});
      if (kind & kNegPrefix) prefix(kNeg);
    }
    if (kind & kNegList) {  // "no change in vision, diplopia …": the list after the first comma
      uint32_t comma = ws.next_comma[e];
      if (comma < ws.next_break[kNeg][e]) forward(kNeg, comma + 1);
    }
    if (!(kind & kHistPseudo)) {
      if (kind & kHistPre) forward(kHist, e);
      if (kind & kHistPost) backward(kHist);
      if (kind & kHistPrefix) prefix(kHist);
    }
    if (!(kind & kHypPseudo)) {
      if (kind & kHypPre) forward(kHyp, e);
      if (kind & kHypPost) backward(kHyp);
    }
    if (!(kind & kFamPseudo)) {
      if (kind & kFamPre) forward(kFam, e);
      if (kind & kFamPost) backward(kFam);
    }
  }

  // 5. Bucket the intervals by the token where each sweep meets them (stable, linear).
  auto bucket = [n](const std::vector<Scope>& scopes, bool by_begin, std::vector<int32_t>& head,
                    std::vector<int32_t>& next) {
    head.assign(n, -1);
    next.assign(scopes.size(), -1);
    for (size_t i = scopes.size(); i-- > 0;) {
      uint32_t at = by_begin ? scopes[i].begin : scopes[i].end - 1;
      next[i] = head[at];
      head[at] = static_cast<int32_t>(i);
    }
  };
  bucket(ws.forward, true, ws.forward_head, ws.forward_next);
  bucket(ws.backward, false, ws.backward_head, ws.backward_next);

  // 6. Forward sweep: a token is covered when the farthest-reaching scope begun so far reaches
  // it; its cue is the latest begun scope when that one still covers it (the nearest trigger).
  struct Track {
    uint32_t reach = 0, last_reach = 0;
    int32_t reach_match = -1, last_match = -1;
  };
  Track fwd[kCategories];
  if (cues) ws.forward_choice.assign(n * kCategories, -1);
  for (size_t i = 0; i < n && !ws.forward.empty(); ++i) {  // no forward scope: no bit, no choice
    for (int32_t s = ws.forward_head[i]; s >= 0; s = ws.forward_next[s]) {
      const Scope& sc = ws.forward[s];
      Track& t = fwd[sc.category];
      if (sc.end > t.reach) {
        t.reach = sc.end;
        t.reach_match = sc.match;
      }
      t.last_reach = sc.end;
      t.last_match = sc.match;
    }
    for (int c = 0; c < kCategories; ++c) {
      if (fwd[c].reach <= i) continue;
      bits[sb + i] |= kScopeBit[c];
      if (cues) ws.forward_choice[i * kCategories + c] = fwd[c].last_reach > i ? fwd[c].last_match : fwd[c].reach_match;
    }
  }

  // 7. Backward sweep, the mirror image; then each token's cue for its strongest bit, the
  // nearer of the forward and backward candidates (forward on a tie).
  struct BackTrack {
    uint32_t reach = std::numeric_limits<uint32_t>::max(), last_reach = std::numeric_limits<uint32_t>::max();
    int32_t reach_match = -1, last_match = -1;
  };
  BackTrack bwd[kCategories];
  if (ws.backward.empty() && !cues) return;  // no bit to set, no cue to choose
  for (size_t i = n; i-- > 0;) {
    for (int32_t s = ws.backward_head[i]; s >= 0; s = ws.backward_next[s]) {
      const Scope& sc = ws.backward[s];
      BackTrack& t = bwd[sc.category];
      if (sc.begin < t.reach) {
        t.reach = sc.begin;
        t.reach_match = sc.match;
      }
      t.last_reach = sc.begin;
      t.last_match = sc.match;
    }
    int32_t back_choice[kCategories] = {-1, -1, -1, -1};
    for (int c = 0; c < kCategories; ++c) {
      if (bwd[c].reach > i) continue;
      bits[sb + i] |= kScopeBit[c];
      back_choice[c] = bwd[c].last_reach <= i ? bwd[c].last_match : bwd[c].reach_match;
    }
    if (!cues) continue;
    int c = Strongest(bits[sb + i]);
    if (c < 0) continue;
    int32_t f = ws.forward_choice[i * kCategories + c], g = back_choice[c];
    auto gap_after = [&](int32_t m) {
      return m < 0 ? 0 : static_cast<int64_t>(sb + i) - static_cast<int64_t>(matches[m].end);
    };
    int32_t chosen = f >= 0 && (g < 0 || std::max<int64_t>(0, gap_after(f)) <=
                                             static_cast<int64_t>(matches[g].begin) - static_cast<int64_t>(sb + i))
                         ? f
                         : g;
    if (chosen >= 0)
      (*cues)[sb + i] = {static_cast<uint32_t>(matches[chosen].begin), static_cast<uint32_t>(matches[chosen].end)};
  }
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

AssertionCue AssertionAnalyzer::DecidingCue(const std::vector<uint8_t>& bits, const std::vector<AssertionCue>& cues,
                                            size_t begin, size_t end) {
  uint8_t winner = 0;
  switch (Resolve(bits, begin, end)) {
    case Assertion::kAffirmed:
      return {};
    case Assertion::kNegated:
      winner = kBitNegated;
      break;
    case Assertion::kHistorical:
      winner = kBitHistorical;
      break;
    case Assertion::kHypothetical:
      winner = kBitHypothetical;
      break;
    case Assertion::kFamily:
      winner = kBitFamily;
      break;
  }
  // A token carrying the range's strongest bit has it as its own strongest bit too.
  for (size_t k = begin; k < end && k < bits.size() && k < cues.size(); ++k)
    if (bits[k] & winner) return cues[k];
  return {};
}

std::string_view AssertionAnalyzer::CueText(const TokenizedText& text, AssertionCue cue) {
  if (cue.empty() || cue.end > text.tokens.size()) return {};
  const auto& toks = text.tokens;
  uint32_t byte_begin = toks[cue.begin].byte_begin;
  // "-ve", "+ve": the tokenizer splits the sign off a short sign word; show it as written.
  if (cue.begin > 0 && toks[cue.begin].norm.size() <= 2 && toks[cue.begin - 1].kind == TokenKind::kPunct &&
      (toks[cue.begin - 1].norm == "-" || toks[cue.begin - 1].norm == "+") &&
      toks[cue.begin - 1].byte_end == byte_begin)
    byte_begin = toks[cue.begin - 1].byte_begin;
  return text.text.substr(byte_begin, toks[cue.end - 1].byte_end - byte_begin);
}

const AssertionAnalyzer& DefaultAssertionAnalyzer() {
  static const AssertionAnalyzer analyzer(DefaultRules());
  return analyzer;
}

}  // namespace scribe
