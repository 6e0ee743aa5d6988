// Unit tests for rules.h: Rules::PerDay, the PhraseMatcher, the compiled-in rule tables and
// LoadRules errors. Expected values come from corpus/rules/*.tsv and the comments in them.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "embedded.h"
#include "rules.h"
#include "text.h"

namespace scribe {
namespace {

// ---------------------------------------------------------------- PerDay

double PD(const std::string& expr, double lo, double hi) { return Rules::PerDay(expr, lo, hi).value_or(-1); }

TEST(PerDay, PlainNumbersAndFractions) {
  EXPECT_DOUBLE_EQ(PD("1", 0, 0), 1.0);
  EXPECT_DOUBLE_EQ(PD("2", 0, 0), 2.0);
  EXPECT_DOUBLE_EQ(PD("0.5", 0, 0), 0.5);
  EXPECT_DOUBLE_EQ(PD("1/7", 0, 0), 1.0 / 7.0);
  EXPECT_DOUBLE_EQ(PD("2/7", 0, 0), 2.0 / 7.0);
  EXPECT_DOUBLE_EQ(PD("1/30", 0, 0), 1.0 / 30.0);
}

TEST(PerDay, SlotExpressions) {
  EXPECT_DOUBLE_EQ(PD("#", 3, 3), 3.0);           // "3 times daily"
  EXPECT_DOUBLE_EQ(PD("24/#", 8, 8), 3.0);        // q8h
  EXPECT_DOUBLE_EQ(PD("1/#", 3, 3), 1.0 / 3.0);   // every 3 days
  EXPECT_DOUBLE_EQ(PD("#/7", 3, 3), 3.0 / 7.0);   // 3 times a week
  EXPECT_DOUBLE_EQ(PD("1/7#", 2, 2), 1.0 / 14.0); // every 2 weeks
}

TEST(PerDay, RangeTakesHighestPerDay) {
  // "every 4-6 hours": the shortest interval counts -> 24/4 = 6
  EXPECT_DOUBLE_EQ(PD("24/#", 4, 6), 6.0);
  // "every 2-3 days": 1/2
  EXPECT_DOUBLE_EQ(PD("1/#", 2, 3), 0.5);
  // "every 2-4 weeks": 1/14
  EXPECT_DOUBLE_EQ(PD("1/7#", 2, 4), 1.0 / 14.0);
  // "2-3 times daily": 3
  EXPECT_DOUBLE_EQ(PD("#", 2, 3), 3.0);
  EXPECT_DOUBLE_EQ(PD("#/7", 1, 2), 2.0 / 7.0);
}

TEST(PerDay, InvalidExpressions) {
  EXPECT_FALSE(Rules::PerDay("", 1, 1).has_value());
  EXPECT_FALSE(Rules::PerDay("abc", 1, 1).has_value());
  EXPECT_FALSE(Rules::PerDay("24/#", 0, 0).has_value());  // division by zero
  EXPECT_FALSE(Rules::PerDay("1/0", 1, 1).has_value());
  EXPECT_FALSE(Rules::PerDay("2x", 1, 1).has_value());
  EXPECT_FALSE(Rules::PerDay("1/", 1, 1).has_value());
}

// ---------------------------------------------------------------- PhraseMatcher

std::optional<PatternMatch> MatchFirst(const PhraseMatcher& m, std::string_view text) {
  auto toks = Tokenize(text);
  return m.MatchAt(toks, 0, toks.size());
}

TEST(PhraseMatcher, LongestMatchWins) {
  PhraseMatcher m;
  m.Add("chest", 1);
  m.Add("chest pain", 2);
  m.Add("chest pain radiating to arm", 3);
  auto toks = Tokenize("chest pain today");
  auto hit = m.MatchAt(toks, 0, toks.size());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 2);
  EXPECT_EQ(hit->begin, 0u);
  EXPECT_EQ(hit->end, 2u);
  EXPECT_FALSE(hit->has_number);
  // limit cuts the longer pattern
  auto cut = m.MatchAt(toks, 0, 1);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->id, 1);
  EXPECT_FALSE(m.MatchAt(toks, 2, toks.size()));
  EXPECT_FALSE(m.MatchAt(toks, 3, toks.size()));  // past the end
}

TEST(PhraseMatcher, CaseInsensitiveByDefault) {
  PhraseMatcher m;
  m.Add("Chest Pain", 7);
  auto hit = MatchFirst(m, "CHEST PAIN");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 7);
}

TEST(PhraseMatcher, ShortCapsMatchCaseSensitively) {
  PhraseMatcher m;
  m.Add("SI", 1);
  EXPECT_TRUE(MatchFirst(m, "SI"));
  EXPECT_FALSE(MatchFirst(m, "si"));
  EXPECT_FALSE(MatchFirst(m, "Si"));
  PhraseMatcher four;
  four.Add("COPD", 2);
  EXPECT_TRUE(MatchFirst(four, "COPD"));
  EXPECT_FALSE(MatchFirst(four, "copd"));
  // inside a phrase too: "passive SI"
  PhraseMatcher phrase;
  phrase.Add("passive SI", 3);
  EXPECT_TRUE(MatchFirst(phrase, "Passive SI"));
  EXPECT_FALSE(MatchFirst(phrase, "passive si"));
}

TEST(PhraseMatcher, FiveLetterCapsAreNotCaseSensitive) {
  // "at most 4 letters": NSAID (5) matches in any case
  PhraseMatcher m;
  m.Add("NSAID", 1);
  EXPECT_TRUE(MatchFirst(m, "nsaid"));
  EXPECT_TRUE(MatchFirst(m, "NSAID"));
}

TEST(PhraseMatcher, LowerCasePatternMatchesCapitalText) {
  PhraseMatcher m;
  m.Add("si", 1);
  EXPECT_TRUE(MatchFirst(m, "SI"));
  EXPECT_TRUE(MatchFirst(m, "si"));
}

TEST(PhraseMatcher, PluralFolding) {
  PhraseMatcher fold(true);
  fold.Add("palpitation", 1);
  fold.Add("panic attacks", 2);
  EXPECT_TRUE(MatchFirst(fold, "palpitations"));
  EXPECT_TRUE(MatchFirst(fold, "Palpitation"));
  EXPECT_TRUE(MatchFirst(fold, "panic attack"));
  EXPECT_TRUE(MatchFirst(fold, "panic attacks"));
  PhraseMatcher plain(false);
  plain.Add("palpitation", 1);
  EXPECT_FALSE(MatchFirst(plain, "palpitations"));
  EXPECT_TRUE(MatchFirst(plain, "palpitation"));
}

TEST(PhraseMatcher, HyphensBetweenWordsAreSkipped) {
  PhraseMatcher m;
  m.Add("self harm", 1);
  auto hit = MatchFirst(m, "self-harm");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->end, 3u);  // self - harm
  PhraseMatcher h;
  h.Add("self-harm", 2);  // hyphen in the pattern is dropped
  EXPECT_TRUE(MatchFirst(h, "self harm"));
  EXPECT_TRUE(MatchFirst(h, "self \xE2\x80\x93 harm"));  // en dash
  EXPECT_FALSE(MatchFirst(h, "self, harm"));
}

TEST(PhraseMatcher, NumberSlot) {
  PhraseMatcher m;
  m.Add("q # h", 1);
  auto hit = MatchFirst(m, "q8h");
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->has_number);
  EXPECT_DOUBLE_EQ(hit->lo, 8);
  EXPECT_DOUBLE_EQ(hit->hi, 8);
  EXPECT_EQ(hit->end, 3u);
  EXPECT_FALSE(MatchFirst(m, "q h"));
}

TEST(PhraseMatcher, NumberSlotRanges) {
  PhraseMatcher m;
  m.Add("every # hours", 1);
  m.Add("q # h", 2);
  for (const char* text : {"every 4-6 hours", "every 4 to 6 hours", "every 4 or 6 hours", "every 6-4 hours",
                           "every 4\xE2\x80\x93" "6 hours"}) {
    auto hit = MatchFirst(m, text);
    ASSERT_TRUE(hit) << text;
    EXPECT_EQ(hit->id, 1) << text;
    EXPECT_DOUBLE_EQ(hit->lo, 4) << text;
    EXPECT_DOUBLE_EQ(hit->hi, 6) << text;
    EXPECT_EQ(hit->end, 5u) << text;
  }
  auto q = MatchFirst(m, "q4-6h");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->id, 2);
  EXPECT_DOUBLE_EQ(q->lo, 4);
  EXPECT_DOUBLE_EQ(q->hi, 6);
}

TEST(PhraseMatcher, NumberWordsFillSlotsOnlyWhenSet) {
  PhraseMatcher m;
  m.Add("every # hours", 1);
  EXPECT_FALSE(MatchFirst(m, "every two hours"));
  m.SetNumberWords({{"two", 2}, {"three", 3}});
  auto hit = MatchFirst(m, "every two to three hours");
  ASSERT_TRUE(hit);
  EXPECT_DOUBLE_EQ(hit->lo, 2);
  EXPECT_DOUBLE_EQ(hit->hi, 3);
}

TEST(PhraseMatcher, SlotFirstPattern) {
  PhraseMatcher m;
  m.Add("# times daily", 1);
  auto hit = MatchFirst(m, "3 times daily");
  ASSERT_TRUE(hit);
  EXPECT_DOUBLE_EQ(hit->hi, 3);
  EXPECT_FALSE(MatchFirst(m, "times daily"));
}

TEST(PhraseMatcher, FindAllNonOverlappingLeftToRight) {
  PhraseMatcher m;
  m.Add("chest pain", 1);
  m.Add("pain", 2);
  m.Add("fever", 3);
  auto toks = Tokenize("chest pain, fever and pain");
  auto all = m.FindAll(toks, 0, toks.size());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, 1);
  EXPECT_EQ(all[1].id, 3);
  EXPECT_EQ(all[1].begin, 3u);
  EXPECT_EQ(all[2].id, 2);
  EXPECT_EQ(all[2].begin, 5u);
  // a window
  auto window = m.FindAll(toks, 1, 4);
  ASSERT_EQ(window.size(), 2u);
  EXPECT_EQ(window[0].id, 2);  // "pain" at 1 (chest is outside)
  EXPECT_EQ(window[1].id, 3);
}

TEST(PhraseMatcher, EmptyPatternIgnored) {
  PhraseMatcher m;
  EXPECT_TRUE(m.empty());
  m.Add("", 1);
  m.Add("-", 2);
  EXPECT_TRUE(m.empty());
}

// The matcher as it was first written, one pattern at a time in the order they were added (by
// first word, then number slots): the trie must find exactly what it finds.
class OneByOneMatcher {
 public:
  OneByOneMatcher(bool fold, std::unordered_map<std::string, double> number_words)
      : fold_(fold), number_words_(std::move(number_words)) {}
  void Add(std::string_view phrase, int id) {
    Pattern p{{}, id};
    for (Token& t : Tokenize(phrase)) {
      if (t.kind == TokenKind::kPunct && t.norm == "-") continue;
      Word w;
      bool short_caps = !t.raw().empty() && t.raw().size() <= 4 &&
                        std::none_of(t.raw().begin(), t.raw().end(), [](char c) { return c >= 'a' && c <= 'z'; }) &&
                        std::any_of(t.raw().begin(), t.raw().end(), [](char c) { return c >= 'A' && c <= 'Z'; });
      if (t.kind == TokenKind::kPunct && t.norm == "#")
        w.slot = true;
      else if (t.kind == TokenKind::kWord && short_caps) {
        w.exact_case = true;
        w.text = std::string(t.raw());
      } else
        w.text = fold_ && t.kind == TokenKind::kWord ? t.folded : t.norm;
      p.words.push_back(w);
    }
    if (!p.words.empty()) patterns_.push_back(p);
  }
  std::optional<PatternMatch> MatchAt(const std::vector<Token>& toks, size_t k, size_t limit) const {
    if (k >= limit) return std::nullopt;
    std::optional<PatternMatch> best;
    const Token& t = toks[k];
    std::string key(t.kind == TokenKind::kWord && fold_ ? t.folded : t.norm);
    auto try_first = [&](auto&& takes) {
      for (const Pattern& p : patterns_) {
        if (!takes(p.words[0])) continue;
        if (auto m = Try(p, toks, k, limit); m && (!best || m->end > best->end)) best = m;
      }
    };
    auto first_key = [](const Word& w) { return w.exact_case ? Lower(w.text) : w.text; };
    try_first([&](const Word& w) { return !w.slot && first_key(w) == key; });
    if (key != t.norm) try_first([&](const Word& w) { return !w.slot && first_key(w) == t.norm; });
    try_first([&](const Word& w) { return w.slot; });
    return best;
  }
  std::vector<PatternMatch> FindAll(const std::vector<Token>& toks, size_t begin, size_t limit) const {
    std::vector<PatternMatch> out;
    for (size_t k = begin; k < limit;) {
      if (auto m = MatchAt(toks, k, limit)) {
        out.push_back(*m);
        k = m->end;
      } else {
        ++k;
      }
    }
    return out;
  }

 private:
  struct Word {
    std::string text;
    bool slot = false, exact_case = false;
  };
  struct Pattern {
    std::vector<Word> words;
    int id;
  };
  bool Value(const std::vector<Token>& toks, size_t i, size_t limit, double& v) const {
    if (i >= limit) return false;
    if (toks[i].kind == TokenKind::kNumber) {
      v = toks[i].number;
      return true;
    }
    auto it = toks[i].kind == TokenKind::kWord ? number_words_.find(std::string(toks[i].norm)) : number_words_.end();
    if (it == number_words_.end()) return false;
    v = it->second;
    return true;
  }
  std::optional<PatternMatch> Try(const Pattern& p, const std::vector<Token>& toks, size_t k, size_t limit) const {
    PatternMatch m;
    m.begin = k;
    m.id = p.id;
    size_t pos = k;
    for (size_t wi = 0; wi < p.words.size(); ++wi) {
      const Word& w = p.words[wi];
      while (wi > 0 && !w.slot && pos < limit && toks[pos].kind == TokenKind::kPunct &&
             (toks[pos].norm == "-" || toks[pos].norm == "_"))
        ++pos;
      if (pos >= limit) return std::nullopt;
      const Token& t = toks[pos];
      if (w.slot) {
        double a = 0, b = 0;
        if (!Value(toks, pos, limit, a)) return std::nullopt;
        m.has_number = true;
        m.lo = m.hi = a;
        ++pos;
        if (pos + 1 < limit && (toks[pos].norm == "-" || toks[pos].norm == "to" || toks[pos].norm == "or") &&
            Value(toks, pos + 1, limit, b)) {
          m.lo = std::min(a, b);
          m.hi = std::max(a, b);
          pos += 2;
        }
        continue;
      }
      bool same = t.kind == TokenKind::kPunct           ? t.norm == w.text
                  : w.exact_case                        ? t.raw() == w.text
                  : fold_ && t.kind == TokenKind::kWord ? t.folded == w.text
                                                        : t.norm == w.text;
      if (!same) return std::nullopt;
      ++pos;
    }
    m.end = pos;
    return m;
  }
  bool fold_;
  std::unordered_map<std::string, double> number_words_;
  std::vector<Pattern> patterns_;
};

std::string Describe(const std::vector<PatternMatch>& ms) {
  std::string s;
  for (const PatternMatch& m : ms)
    s += "[" + std::to_string(m.begin) + "," + std::to_string(m.end) + ") id " + std::to_string(m.id) +
         (m.has_number ? " #" + std::to_string(m.lo) + "-" + std::to_string(m.hi) : "") + "; ";
  return s;
}

TEST(PhraseMatcher, FindsWhatMatchingOnePatternAtATimeFinds) {
  // Overlapping patterns, shared prefixes, duplicates with other ids, slots first, inside and
  // last, short capitals in and out of folding, plurals and British spellings, hyphens.
  const std::vector<std::string> pattern_words = {"chest",   "pain",  "chest pains", "SI", "si",         "ADS",  "ads",
                                                  "#",       "#",     "two",         "to", "or",         "self", "harm",
                                                  "tumours", "tumor", "no",          ",",  "left-sided", "x"};
  const std::vector<std::string> text_words = {"chest",  "Chest", "pain", "pains", "SI",    "si",   "Si",
                                               "ADS",    "ads",   "ad",   "2",     "4",     "two",  "three",
                                               "to",     "or",    "-",    "_",     "self",  "harm", "tumour",
                                               "tumors", "no",    ",",    "left",  "sided", "x",    "X"};
  const std::unordered_map<std::string, double> numbers = {{"two", 2}, {"three", 3}};
  uint32_t seed = 12345;
  auto next = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  size_t matches_seen = 0;
  for (int round = 0; round < 300; ++round) {
    bool fold = round % 2 == 1;
    PhraseMatcher trie(fold);
    OneByOneMatcher reference(fold, round % 3 == 0 ? std::unordered_map<std::string, double>{} : numbers);
    if (round % 3 != 0) trie.SetNumberWords({numbers.begin(), numbers.end()});
    for (int p = 0, patterns = 1 + static_cast<int>(next(12)); p < patterns; ++p) {
      std::string phrase;
      for (uint32_t w = 0, words = 1 + next(4); w < words; ++w)
        phrase += (w ? " " : "") + pattern_words[next(static_cast<uint32_t>(pattern_words.size()))];
      int id = static_cast<int>(next(5));  // repeated ids and repeated phrases both happen
      trie.Add(phrase, id);
      reference.Add(phrase, id);
    }
    std::string text;
    for (uint32_t w = 0, words = 1 + next(30); w < words; ++w)
      text += (w ? " " : "") + text_words[next(static_cast<uint32_t>(text_words.size()))];
    TokenList list = Tokenize(text);
    std::vector<Token> toks = list;
    std::vector<Token> unhashed = toks;  // as tests build tokens: no hashes
    for (Token& t : unhashed) t.norm_hash = t.folded_hash = 0;
    size_t begin = next(static_cast<uint32_t>(toks.size()) + 1);
    size_t limit = begin + next(static_cast<uint32_t>(toks.size() - begin) + 1);
    for (const std::vector<Token>* t : {&toks, &unhashed}) {
      std::vector<PatternMatch> want = reference.FindAll(*t, begin, limit);
      matches_seen += want.size();
      EXPECT_EQ(Describe(trie.FindAll(*t, begin, limit)), Describe(want)) << "text: " << text;
      for (size_t k = 0; k < toks.size(); ++k) {
        auto got = trie.MatchAt(*t, k, limit), expected = reference.MatchAt(*t, k, limit);
        EXPECT_EQ(Describe(got ? std::vector{*got} : std::vector<PatternMatch>{}),
                  Describe(expected ? std::vector{*expected} : std::vector<PatternMatch>{}))
            << "text: " << text << " at " << k;
      }
    }
  }
  EXPECT_GT(matches_seen, 150u);  // the texts do meet the patterns
}

TEST(PhraseMatcher, OfEqualLongestMatchesTheFirstAddedWins) {
  PhraseMatcher m(true);
  m.Add("chest pain", 1);
  m.Add("chest pains", 2);  // folds to the same words
  m.Add("# pain", 3);       // opens with a slot: tried after the words
  auto hit = MatchFirst(m, "chest pains");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 1);
  PhraseMatcher exact(true);
  exact.Add("si visit", 4);
  exact.Add("SI visit", 5);  // compares case-sensitively, filed under the same first word
  hit = MatchFirst(exact, "SI visit");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 4);
  exact.Add("SI visit today", 6);
  hit = MatchFirst(exact, "SI visit today");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 6);
  hit = MatchFirst(exact, "si visit today");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->id, 4);
}

TEST(MatcherStarts, EachMemberFindsWhatItFindsAlone) {
  const std::vector<std::string> words = {"chest", "pain", "pains", "SI",     "si",    "two", "3", "to",
                                          "-",     "self", "harm",  "tumour", "tumor", "no",  ",", "x"};
  uint32_t seed = 777;
  auto next = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  auto phrase = [&](bool slots) {
    std::string p;
    for (uint32_t w = 0, n = 1 + next(3); w < n; ++w)
      p += (w ? " " : "") +
           (slots && next(4) == 0 ? std::string("#") : words[next(static_cast<uint32_t>(words.size()))]);
    return p;
  };
  size_t matches_seen = 0;
  for (int round = 0; round < 100; ++round) {
    PhraseMatcher folding(true), plain(false), numbers(true), outside(true);
    numbers.SetNumberWords({{"two", 2}});
    for (int i = 0; i < 4; ++i) {
      folding.Add(phrase(false), i);
      plain.Add(phrase(false), i);
      numbers.Add(phrase(true), i);
      outside.Add(phrase(true), i);
    }
    MatcherStarts group({&folding, &plain, &numbers, &folding});
    EXPECT_TRUE(group.Covers(numbers));
    EXPECT_FALSE(group.Covers(outside));
    std::string text;
    for (uint32_t w = 0, n = 1 + next(25); w < n; ++w)
      text += (w ? " " : "") + words[next(static_cast<uint32_t>(words.size()))];
    TokenList list = Tokenize(text);
    std::vector<Token> toks = list;
    std::vector<Token> unhashed = toks;
    for (Token& t : unhashed) t.norm_hash = t.folded_hash = 0;
    size_t begin = next(static_cast<uint32_t>(toks.size()) + 1);
    size_t limit = begin + next(static_cast<uint32_t>(toks.size() - begin) + 1);
    for (const std::vector<Token>* t : {&toks, &unhashed}) {
      MatcherStarts::Found starts = group.Find(*t);
      EXPECT_TRUE(starts.Covers(plain));
      EXPECT_FALSE(starts.Covers(outside));
      EXPECT_TRUE(starts.Of(outside).empty());
      for (const PhraseMatcher* m : {&folding, &plain, &numbers}) {
        std::vector<PatternMatch> alone = m->FindAll(*t, begin, limit);
        matches_seen += alone.size();
        EXPECT_EQ(Describe(m->FindAll(*t, begin, limit, starts.Of(*m))), Describe(alone)) << "text: " << text;
        EXPECT_TRUE(std::is_sorted(starts.Of(*m).begin(), starts.Of(*m).end()));
        EXPECT_EQ(std::adjacent_find(starts.Of(*m).begin(), starts.Of(*m).end()), starts.Of(*m).end());
      }
    }
  }
  EXPECT_GT(matches_seen, 100u);
}

// One pass over a text of several sentences finds what FindAll finds sentence by sentence, with
// and without a group's starts.
TEST(PhraseMatcher, FindAllInSentencesFindsWhatEachSentenceFinds) {
  const std::vector<std::string> words = {"chest", "pain", "pains", "SI", "two", "3", "to", "-", ".",
                                          ".",     "\n\n", "self", "harm", "no", ",", "Pain"};
  uint32_t seed = 4242;
  auto next = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  auto phrase = [&](bool slots) {
    std::string p;
    for (uint32_t w = 0, n = 1 + next(3); w < n; ++w) {
      std::string word = words[next(static_cast<uint32_t>(words.size()))];
      if (word == "." || word == "\n\n") word = "pain";
      p += (w ? " " : "") + (slots && next(4) == 0 ? std::string("#") : word);
    }
    return p;
  };
  size_t matches_seen = 0, sentences_seen = 0;
  for (int round = 0; round < 200; ++round) {
    PhraseMatcher folding(true), numbers(true), outside(false);
    numbers.SetNumberWords({{"two", 2}});
    for (int i = 0; i < 4; ++i) {
      folding.Add(phrase(false), i);
      numbers.Add(phrase(true), i);
      outside.Add(phrase(false), i);
    }
    MatcherStarts group({&folding, &numbers});
    std::string text;
    for (uint32_t w = 0, n = 1 + next(40); w < n; ++w) text += (w ? " " : "") + words[next(static_cast<uint32_t>(words.size()))];
    TokenizedText t = Analyze(text, {});
    sentences_seen += t.sentence_begin.size();
    MatcherStarts::Found starts = group.Find(t.tokens);
    for (const PhraseMatcher* m : {&folding, &numbers, &outside}) {
      std::vector<PatternMatch> each;
      for (size_t s = 0; s < t.sentence_begin.size(); ++s)
        for (const PatternMatch& p : m->FindAll(t.tokens, t.sentence_begin[s], t.sentence_end[s])) each.push_back(p);
      matches_seen += each.size();
      EXPECT_EQ(Describe(m->FindAllInSentences(t)), Describe(each)) << "text: " << text;
      if (m != &outside) {
        EXPECT_EQ(Describe(m->FindAllInSentences(t, starts.Of(*m))), Describe(each)) << "text: " << text;
      }
    }
  }
  EXPECT_GT(matches_seen, 200u);
  EXPECT_GT(sentences_seen, 600u);
}

// ---------------------------------------------------------------- DefaultRules

TEST(DefaultRules, Versions) {
  const Rules& r = DefaultRules();
  EXPECT_EQ(r.grader_version, "1.2.0");
  EXPECT_EQ(r.methodology_version, "1.2.0");
  EXPECT_NE(r.changelog_yaml.find("grader_version: 1.2.0"), std::string::npos);
}

TEST(DefaultRules, UnitsTable) {
  const Rules& r = DefaultRules();
  ASSERT_TRUE(r.unit_by_token.count("g"));
  EXPECT_DOUBLE_EQ(r.unit_by_token.at("g")->factor, 1000);
  EXPECT_EQ(r.unit_by_token.at("g")->canonical, "mg");
  EXPECT_EQ(r.unit_by_token.at("mcg")->canonical, "mcg");
  EXPECT_EQ(r.unit_by_token.at("mcg")->family, "mass");
  EXPECT_EQ(r.unit_by_token.at("puffs")->canonical, "puff");
  EXPECT_EQ(r.unit_by_token.at("puffs")->implied_route, "inhaled");
  EXPECT_EQ(r.unit_by_token.at("cc")->canonical, "mL");
  EXPECT_EQ(r.unit_by_token.at("meq")->family, "meq");
  EXPECT_FALSE(r.unit_by_token.count("@denominator"));
  EXPECT_TRUE(r.denominators.count("dl"));
  EXPECT_TRUE(r.denominators.count("kg"));
  EXPECT_FALSE(r.denominators.count("day"));
  EXPECT_TRUE(r.per_day_denominators.count("day"));
  EXPECT_DOUBLE_EQ(r.number_words.at("two"), 2);
  EXPECT_DOUBLE_EQ(r.number_words.at("half"), 0.5);
  EXPECT_DOUBLE_EQ(r.number_words.at("twice"), 2);
}

TEST(DefaultRules, FrequencyTableRows) {
  const Rules& r = DefaultRules();
  auto find = [&](const std::string& pattern) -> const FrequencyRule* {
    for (const auto& f : r.frequencies)
      if (f.pattern == pattern) return &f;
    return nullptr;
  };
  ASSERT_TRUE(find("q # h"));
  EXPECT_EQ(find("q # h")->per_day_expr, "24/#");
  ASSERT_TRUE(find("every # weeks"));
  EXPECT_EQ(find("every # weeks")->per_day_expr, "1/7#");
  ASSERT_TRUE(find("prn"));
  EXPECT_TRUE(find("prn")->prn);
  EXPECT_EQ(find("prn")->per_day_expr, "");
  ASSERT_TRUE(find("bid"));
  EXPECT_FALSE(find("bid")->prn);
}

// Regression test, bug fixed (rules.cpp TsvRows): a row whose pattern starts with the '#' number slot is read as a
// comment line, so frequencies.tsv's "# times daily\t#\t0" (and 13 more slot-first rows) never
// reach the rule table. See SigTest.FrequenciesStartingWithANumberSlot for the effect.
TEST(DefaultRules, SlotFirstFrequencyRowsAreLoaded) {
  const Rules& r = DefaultRules();
  int slot_first = 0;
  const FrequencyRule* times_daily = nullptr;
  for (const auto& f : r.frequencies) {
    if (!f.pattern.empty() && f.pattern[0] == '#') ++slot_first;
    if (f.pattern == "# times daily") times_daily = &f;
  }
  // frequencies.tsv: 16 "# times/time/x … day" rows, 2 "# hourly" rows, 8 "# times/x … week" rows
  // and 3 "# times … month" rows
  EXPECT_EQ(slot_first, 29);
  ASSERT_NE(times_daily, nullptr);
  EXPECT_EQ(times_daily->per_day_expr, "#");
}

TEST(DefaultRules, RoutesAndActions) {
  const Rules& r = DefaultRules();
  auto route = [&](const std::string& phrase) {
    for (const auto& [p, c] : r.routes)
      if (p == phrase) return c;
    return std::string();
  };
  EXPECT_EQ(route("po"), "oral");
  EXPECT_EQ(route("sl"), "sublingual");
  EXPECT_EQ(route("pr"), "rectal");
  EXPECT_EQ(r.action_aliases.size(), 4u);
  EXPECT_EQ(r.action_aliases.at("hold"), "stop");
  EXPECT_EQ(r.action_aliases.at("resume"), "start");
  EXPECT_EQ(r.action_aliases.at("restart"), "start");
  EXPECT_EQ(r.action_aliases.at("taper"), "decrease");
}

TEST(DefaultRules, CanonicalAction) {
  const Rules& r = DefaultRules();
  EXPECT_EQ(r.CanonicalAction("start"), "start");
  EXPECT_EQ(r.CanonicalAction("Continue"), "continue");
  EXPECT_EQ(r.CanonicalAction(" STOP "), "stop");
  EXPECT_EQ(r.CanonicalAction("increase"), "increase");
  EXPECT_EQ(r.CanonicalAction("decrease"), "decrease");
  EXPECT_EQ(r.CanonicalAction("hold"), "stop");
  EXPECT_EQ(r.CanonicalAction("resume"), "start");
  EXPECT_EQ(r.CanonicalAction("taper"), "decrease");
  EXPECT_EQ(r.CanonicalAction("started"), "");  // a note phrase, not a ground-truth action
  EXPECT_EQ(r.CanonicalAction("maybe"), "");
  EXPECT_EQ(r.CanonicalAction(""), "");
}

TEST(DefaultRules, AssertionListsAndLabContext) {
  const Rules& r = DefaultRules();
  const auto& a = r.assertion;
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(a.negated_pre, "denies"));
  EXPECT_TRUE(has(a.negated_post, "was denied"));
  EXPECT_TRUE(has(a.negated_pseudo, "no change"));
  EXPECT_TRUE(has(a.historical_pre, "h / o"));
  EXPECT_TRUE(has(a.hypothetical_pre, "return if"));
  EXPECT_TRUE(has(a.family_pre, "mother"));
  EXPECT_TRUE(has(a.terminators, "but"));
  EXPECT_TRUE(has(a.experiencer_terminators, "patient"));
  EXPECT_EQ(a.qualifiers, (std::vector<std::string>{"active", "passive"}));
  EXPECT_TRUE(has(a.abbreviations, "tab"));
  EXPECT_TRUE(has(a.no_drug_allergies, "nkda"));
  EXPECT_TRUE(r.lab_analytes.contains("lithium"));
  EXPECT_TRUE(r.lab_analytes.contains("vitamin d"));
  EXPECT_TRUE(r.lab_after.contains("level"));
  EXPECT_TRUE(r.lab_before.contains("serum"));
  EXPECT_TRUE(r.lab_before.contains("point of care"));
}

TEST(DefaultRules, ClinicalSynonymsBothDirections) {
  const Rules& r = DefaultRules();
  ASSERT_TRUE(r.synonyms_of.count("si"));
  EXPECT_EQ(r.synonyms_of.at("si"), (std::vector<std::string>{"suicidal ideation"}));
  ASSERT_TRUE(r.synonyms_of.count("suicidal ideation"));
  EXPECT_EQ(r.synonyms_of.at("suicidal ideation"),
            (std::vector<std::string>{"SI", "suicidal thoughts", "thoughts of suicide"}));
  EXPECT_TRUE(std::find(r.non_rxnorm_substances.begin(), r.non_rxnorm_substances.end(), "latex") !=
              r.non_rxnorm_substances.end());
  EXPECT_TRUE(std::find(r.non_rxnorm_substances.begin(), r.non_rxnorm_substances.end(), "omega 3") !=
              r.non_rxnorm_substances.end());  // "omega-3", normalised
}

TEST(DefaultRules, SameInstance) { EXPECT_EQ(&DefaultRules(), &DefaultRules()); }

// ---------------------------------------------------------------- LoadRules errors

class LoadRulesTest : public ::testing::Test {
 protected:
  std::string f(const char* path) { return std::string(embedded_file(path)); }
  Rules Load(std::string freq, std::string units, std::string routes, std::string actions) {
    return LoadRules(freq, units, routes, actions, f("corpus/rules/assertion.yaml"),
                     f("corpus/rules/clinical_synonyms.tsv"), f("corpus/rules/non_rxnorm_substances.txt"),
                     f("corpus/rules/changelog.yaml"), f("corpus/rules/lab_context.yaml"));
  }
  std::string Error(std::string freq, std::string units, std::string routes, std::string actions) {
    try {
      Load(freq, units, routes, actions);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  }
  const std::string kFreq = "daily\t1\t0\n";
  const std::string kUnits = "mg\tmg\t1\tmass\n";
  const std::string kRoutes = "po\toral\n";
  const std::string kActions = "start\tstart\tbefore\n";
};

TEST_F(LoadRulesTest, EmbeddedFilesLoad) {
  Rules r = Load(f("corpus/rules/frequencies.tsv"), f("corpus/rules/units.tsv"), f("corpus/rules/routes.tsv"),
                 f("corpus/rules/actions.tsv"));
  EXPECT_EQ(r.frequencies.size(), DefaultRules().frequencies.size());
  EXPECT_EQ(r.units.size(), DefaultRules().units.size());
}

TEST_F(LoadRulesTest, MinimalTablesLoad) {
  Rules r = Load(kFreq, kUnits, kRoutes, kActions);
  EXPECT_EQ(r.frequencies.size(), 1u);
  EXPECT_EQ(r.units.size(), 1u);
  EXPECT_EQ(r.routes.size(), 1u);
  EXPECT_EQ(r.actions.size(), 1u);
}

TEST_F(LoadRulesTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(Error(kFreq, "# comment\nmg\tmg\n", kRoutes, kActions),
            "units.tsv:2: expected token, canonical, factor, family");
  EXPECT_EQ(Error(kFreq, "mg\tmg\t0\tmass\n", kRoutes, kActions), "units.tsv:1: factor must be positive");
  EXPECT_EQ(Error("daily\t1\t0\n\nsometimes\n", kUnits, kRoutes, kActions),
            "frequencies.tsv:3: a row needs per_day or prn");
  EXPECT_EQ(Error("daily\tx/y\t0\n", kUnits, kRoutes, kActions),
            "frequencies.tsv:1: cannot evaluate per_day 'x/y'");
  EXPECT_EQ(Error(kFreq, kUnits, "po\n", kActions), "routes.tsv:1: expected phrase, route");
  EXPECT_EQ(Error(kFreq, kUnits, kRoutes, "start\tstart\n"), "actions.tsv:1: expected phrase, action, where");
  EXPECT_EQ(Error(kFreq, kUnits, kRoutes, "start\tstart\tsomewhere\n"),
            "actions.tsv:1: where must be before, after, both or alias");
}

}  // namespace
}  // namespace scribe
