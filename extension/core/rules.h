// rules.h — the grader's rule tables, loaded from the data files in corpus/rules/.
//
// Frequencies, units, routes, actions, assertion triggers, clinical synonyms and versions are
// data: this module parses them (from the copies compiled into the binary) into matchers the
// extractor and grader use, and hands the same data to the methodology endpoint.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "text.h"

namespace scribe {

// One matched pattern: tokens [begin, end), the pattern id, and the '#' slot value if any.
struct PatternMatch {
  size_t begin = 0, end = 0;
  int id = -1;
  bool has_number = false;
  double lo = 0, hi = 0;  // slot value; a range "4-6" gives lo 4, hi 6
};

// Token-sequence patterns matched longest-first at a position. Pattern words compare with token
// norms (optionally folded: FoldWord, British spellings and plurals); a word written in capitals
// of at most 4 letters ("SI") matches case-sensitively; '#' is a number slot; hyphens in the text
// between words are skipped.
class PhraseMatcher {
 public:
  explicit PhraseMatcher(bool fold_plurals = false) : fold_(fold_plurals) {}
  void Add(std::string_view phrase, int id);
  // Longest pattern starting exactly at token k, not extending past `limit`; of patterns of
  // that length, the one added first.
  std::optional<PatternMatch> MatchAt(const std::vector<Token>& toks, size_t k, size_t limit) const;
  // Every non-overlapping longest match in [begin, limit), left to right.
  std::vector<PatternMatch> FindAll(const std::vector<Token>& toks, size_t begin, size_t limit) const;
  // The same, appended to `out` (a caller's buffer, kept across calls so that its memory is too).
  void FindAll(const std::vector<Token>& toks, size_t begin, size_t limit, std::vector<PatternMatch>& out) const;
  // The same, trying only the tokens `starts` (ascending): this matcher's starts in a
  // MatcherStarts::Found, which holds every token a match of it can start at.
  std::vector<PatternMatch> FindAll(const std::vector<Token>& toks, size_t begin, size_t limit,
                                    std::span<const uint32_t> starts) const;
  // Every match that stays inside its sentence, in text order: the FindAll of each sentence
  // [sentence_begin[s], sentence_end[s]) in turn, in one pass over the text's tokens, or over
  // `starts` (as FindAll with starts) when given.
  std::vector<PatternMatch> FindAllInSentences(const TokenizedText& text) const;
  std::vector<PatternMatch> FindAllInSentences(const TokenizedText& text, std::span<const uint32_t> starts) const;
  bool empty() const { return ids_.empty(); }
  // Whether a match may start at t: false where MatchAt certainly finds nothing. A caller that
  // reads every token anyway collects the starts for FindAll with starts.
  bool MayStartAt(const Token& t) const {
    auto [key, norm_hash] = FirstKeys(t);
    if (MayStart(key) || (key != norm_hash && MayStart(norm_hash))) return true;
    return !slot_first_.empty() && (t.kind == TokenKind::kNumber || IsNumberWord(t));
  }
  // Word values of number words ("two" -> 2) used by '#' slots.
  void SetNumberWords(const StringMap<double>& words);

 private:
  struct Word {
    std::string text;  // norm (folded if fold_) or raw for case-sensitive words
    uint64_t hash = 0;  // HashWord(text): most words a token is not fail on it
    bool slot = false;
    bool exact_case = false;
    bool operator==(const Word& o) const { return text == o.text && slot == o.slot && exact_case == o.exact_case; }
  };
  // The patterns as a trie of words: patterns that share their first words are matched once as
  // far as they agree, and a '#' slot opening many patterns reads its number once.
  struct Edge {
    Word word;
    uint32_t child;
  };
  struct Node {
    std::vector<Edge> edges;
    // The edges as Walk looks them up: a plain word's under its hash, sorted (a node may have
    // hundreds of edges: "no" opens many triggers), the slots and exact-case words apart.
    std::vector<std::pair<uint64_t, uint32_t>> by_hash;
    std::vector<uint32_t> others;
    int pattern = -1;  // the first pattern added that ends here: of equal patterns, it wins
  };
  // The best match so far. A pattern's rank is its group (0: found under the token's matching
  // key, 1: under its norm, 2: opening with a slot), then its index: the order the patterns were
  // once tried in, one by one, of which the first of the longest won.
  struct Best {
    size_t end = 0;
    int group = 0, pattern = -1;
    bool has_number = false;
    double lo = 0, hi = 0;
  };
  struct SlotValue {
    bool has_number = false;
    double lo = 0, hi = 0;
  };
  bool WordMatches(const Word& w, const Token& t) const;
  std::optional<size_t> MatchSlot(const std::vector<Token>& toks, size_t k, size_t limit, double& lo, double& hi) const;
  void Walk(const std::vector<Token>& toks, size_t limit, uint32_t node, size_t pos, int group, SlotValue slot,
            Best& best) const;
  bool IsNumberWord(const Token& t) const {
    return t.kind == TokenKind::kWord && number_words_.find(t.norm, NormHash(t));
  }
  bool fold_;
  std::vector<int> ids_;     // pattern index -> id
  std::vector<Node> nodes_;  // nodes_[0] is the root; its edges are every pattern's first word
  // The root edges that are a word, under HashWord(first word) (lower-cased for an exact-case
  // word), flat: sorted by (FirstBucket(hash), hash), a hash's edges in the order they were
  // added; first_index_[b] is where bucket b's begin. A token's bucket is a few entries found
  // without a division or a pointer chased (an unordered_map's lookup was most of MatchAt).
  std::vector<std::pair<uint64_t, uint32_t>> first_;
  std::array<uint32_t, 257> first_index_{};
  static size_t FirstBucket(uint64_t hash) { return static_cast<size_t>((hash * 0x9E3779B97F4A7C15ULL) >> 56); }
  // The entries of first_ under `hash`: [begin, end).
  std::pair<const std::pair<uint64_t, uint32_t>*, const std::pair<uint64_t, uint32_t>*> FirstEdges(uint64_t hash) const;
  std::vector<uint32_t> slot_first_;  // root edges that are a '#' slot
  // One bit per HashWord(first word) mod 4096: most tokens start no pattern, and the bit says so
  // before the map is searched.
  std::array<uint64_t, 64> first_bits_{};
  bool MayStart(uint64_t hash) const { return (first_bits_[(hash >> 6) & 63] >> (hash & 63)) & 1; }
  // The keys a token may start a pattern under: its folded word's hash (when folding) and its
  // norm's.
  std::pair<uint64_t, uint64_t> FirstKeys(const Token& t) const {
    // Tokens made outside Tokenize() (tests) may lack hashes.
    uint64_t norm_hash = NormHash(t);
    uint64_t key = t.kind == TokenKind::kWord && fold_ ? FoldedHash(t) : norm_hash;
    return {key, norm_hash};
  }
  WordTable<double> number_words_;
  friend class MatcherStarts;
};

// Where each of a group of matchers may start a match in a text, found in one pass over its
// tokens: each token's keys are looked up once in a table of every member's first words, which
// lists the members they open, instead of each member testing every token itself. Built once
// per group; holds pointers to its matchers, which must not change afterwards.
class MatcherStarts {
 public:
  MatcherStarts() = default;
  explicit MatcherStarts(std::vector<const PhraseMatcher*> members);
  bool Covers(const PhraseMatcher& m) const { return std::binary_search(members_.begin(), members_.end(), &m); }

  // Find's answer for one text.
  class Found {
   public:
    // Ascending token indexes where member m may start: a superset of the tokens where its
    // MatchAt finds a pattern. Empty for a matcher the group does not cover.
    std::span<const uint32_t> Of(const PhraseMatcher& m) const;
    bool Covers(const PhraseMatcher& m) const { return group_ && group_->Covers(m); }

   private:
    friend class MatcherStarts;
    const MatcherStarts* group_ = nullptr;
    std::vector<uint32_t> offsets_;  // member i's starts are tokens_[offsets_[i], offsets_[i + 1])
    std::vector<uint32_t> tokens_;
  };
  Found Find(const std::vector<Token>& toks) const;

 private:
  // First-word hashes to the members (indexes into members_, ascending) a token with that key
  // may start: open addressing over slots of the hash and its range of `members`.
  struct Lists {
    struct Slot {
      uint64_t hash = 0;
      uint32_t begin = 0, end = 0;  // end == 0: an empty slot (no list is empty)
    };
    std::vector<Slot> slots;
    std::vector<uint32_t> members;
    void Build(const std::unordered_map<uint64_t, std::vector<uint32_t>>& lists);
    std::span<const uint32_t> Of(uint64_t hash) const;
  };
  std::vector<const PhraseMatcher*> members_;  // sorted
  Lists by_norm_;    // a token's norm hash: every member with that first word, and the slot
                     // members with that number word
  Lists by_folded_;  // a word's folded hash: the members that fold
  std::vector<uint32_t> number_members_;  // members with a pattern opening with '#': every number
  // One bit per first-word hash (any member's, either table) mod 2^16, in front of the tables.
  std::vector<uint64_t> first_bits_;
  bool Has(uint64_t hash) const { return (first_bits_[(hash >> 6) & 1023] >> (hash & 63)) & 1; }
};

// A per-day expression, read: numerator and optional denominator, each a number, '#' (the
// pattern's slot value) or a number times it ("7#").
struct PerDayExpr {
  struct Term {
    double base = 1;
    bool slot = false;
    double At(double value) const { return slot ? base * value : base; }
  };
  Term num, den;
  bool has_den = false;
  static std::optional<PerDayExpr> Parse(std::string_view expr);  // nullopt unless it reads whole
  // The highest per-day over the slot values [lo, hi]; nullopt on a zero denominator.
  std::optional<double> Eval(double lo, double hi) const;
};

struct FrequencyRule {
  std::string pattern;
  std::string per_day_expr;  // "", "2", "24/#", "1/7#" …
  bool prn = false;
  std::optional<PerDayExpr> per_day;  // per_day_expr, read once
};

struct UnitRule {
  std::string token, canonical, family, implied_route;
  double factor = 1;
};

struct ActionRule {
  std::string phrase, action, where;  // where: before, after, both, alias
};

struct AssertionTriggers {
  std::vector<std::string> negated_pre, negated_post, negated_pseudo;
  std::vector<std::string> negated_self;         // a word that is itself a denial ("NKDA")
  std::vector<std::string> negated_pseudo_list;  // pseudo-triggers whose negation reaches the rest of a comma list
  std::vector<std::string> negated_prefix, historical_prefix;  // scope: the one word joined to them ("non-tender")
  std::vector<std::string> historical_pre, historical_post, historical_pseudo;
  std::vector<std::string> hypothetical_pre, hypothetical_post, hypothetical_pseudo;
  std::vector<std::string> family_pre, family_post, family_pseudo;
  std::vector<std::string> terminators, experiencer_terminators, qualifiers, abbreviations;
  std::vector<std::string> family_through;          // terminators a family scope runs through ("who")
  std::vector<std::string> historical_terminators;  // the text turns to the present ("currently")
  std::vector<std::string> allergy_cues, no_allergies, no_drug_allergies;
};

struct Rules {
  std::vector<FrequencyRule> frequencies;
  std::vector<UnitRule> units;
  std::vector<std::pair<std::string, std::string>> routes;   // phrase -> canonical
  std::vector<ActionRule> actions;
  AssertionTriggers assertion;
  std::vector<std::pair<std::string, std::string>> clinical_synonyms;
  // FoldedPhrase() of each side of clinical_synonyms, padded with a space on either side, in the
  // same order: what ExpandPhrase looks for in every phrase it expands.
  std::vector<std::pair<std::string, std::string>> clinical_synonyms_folded;
  std::vector<std::string> non_rxnorm_substances;
  // Drug names that are also lab analytes, and the words that make them a measurement.
  WordSet lab_analytes, lab_after, lab_before, dose_required;  // looked up by a text's words
  std::string grader_version, methodology_version;
  std::string changelog_yaml;  // served verbatim in the methodology

  // Derived lookups.
  StringMap<double> number_words;      // "two" -> 2
  WordMap<double> number_word_values;  // the same, looked up with a token's norm_hash
  StringSet denominators, per_day_denominators;
  StringMap<const UnitRule*> unit_by_token;
  PhraseMatcher frequency_matcher, route_matcher, action_matcher, unit_matcher;
  std::map<std::string, std::string> action_aliases;          // hold -> stop …
  std::unordered_map<std::string, std::vector<std::string>> synonyms_of;  // normalised phrase -> equivalents

  // Evaluates a per-day expression for a slot value range: the highest per-day over [lo, hi].
  static std::optional<double> PerDay(const std::string& expr, double lo, double hi);
  // Canonical action for a ground-truth word ("hold" -> "stop"); empty when unknown.
  std::string CanonicalAction(std::string_view word) const;
};

// The rules compiled into the binary, parsed once (thread-safe).
const Rules& DefaultRules();

// Parses rule files; throws std::runtime_error naming the file and line on malformed data.
Rules LoadRules(std::string_view frequencies_tsv, std::string_view units_tsv, std::string_view routes_tsv,
                std::string_view actions_tsv, std::string_view assertion_yaml, std::string_view synonyms_tsv,
                std::string_view non_rxnorm_txt, std::string_view changelog_yaml,
                std::string_view lab_context_yaml);

}  // namespace scribe
