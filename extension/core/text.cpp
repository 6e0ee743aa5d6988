// text.cpp — tokenizer, sentence splitter and normalisation helpers (see text.h).
#include "text.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "embedded.h"

namespace scribe {
namespace {

// 'A'-'Z' and 'a'-'z' are the bytes that setting bit 0x20 takes into 'a'-'z': one compare.
constexpr bool IsAsciiAlpha(unsigned char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }
static_assert([] {
  for (int c = 0; c < 256; ++c)
    if (IsAsciiAlpha(static_cast<unsigned char>(c)) != ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  return true;
}());
constexpr bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Length of the UTF-8 sequence starting at s[i]; 1 for an invalid byte.
size_t SeqLen(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}

uint32_t Decode(std::string_view s, size_t i, size_t n) {
  unsigned char c = s[i];
  if (n == 1) return c;
  uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

// The code point at s[i] and its length; an invalid or overlong sequence is one byte, read as
// U+FFFD (so a forged "\xC0\xB0" never passes for the digit '0').
uint32_t Next(std::string_view s, size_t i, size_t& n) {
  n = SeqLen(s, i);
  uint32_t cp = Decode(s, i, n);
  if ((n > 1 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (n == 1 && static_cast<unsigned char>(s[i]) >= 0x80)) {
    n = 1;
    cp = 0xFFFD;
  }
  return cp;
}

enum class CharClass { kSpace, kNewline, kLetter, kDigit, kPunct };

constexpr CharClass Classify(uint32_t cp) {
  if (cp == '\n') return CharClass::kNewline;
  if (cp == ' ' || cp == '\t' || cp == '\r' || cp == '\f' || cp == '\v' || cp == 0xA0 ||
      cp == 0x2009 || cp == 0x202F || cp == 0x200B || cp == 0xFEFF)
    return CharClass::kSpace;
  if (cp == 0x2028 || cp == 0x2029) return CharClass::kNewline;
  if (cp < 0x80) {
    if (IsAsciiAlpha(static_cast<unsigned char>(cp))) return CharClass::kLetter;
    if (IsDigit(static_cast<unsigned char>(cp))) return CharClass::kDigit;
    if (cp < 0x20 || cp == 0x7F) return CharClass::kSpace;
    return CharClass::kPunct;
  }
  // General punctuation, arrows, bullets, quotes, dashes.
  if ((cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) ||
      (cp >= 0x2190 && cp <= 0x21FF) || cp == 0x00B7 || cp == 0x25CF || cp == 0x25AA ||
      cp == 0x25E6 || cp == 0x00AB || cp == 0x00BB)
    return CharClass::kPunct;
  return CharClass::kLetter;  // µ, accented letters, CJK…: part of a word
}

// Punctuation normalised to ASCII where a matcher cares about it.
std::string_view PunctNorm(uint32_t cp, std::string_view raw) {
  switch (cp) {
    case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2212: return "-";
    case 0x2018: case 0x2019: return "'";
    case 0x201C: case 0x201D: return "\"";
    case 0x2022: case 0x25CF: case 0x25AA: case 0x25E6: case 0x00B7: return "*";
    case 0x2192: return ">";
    default: return raw;
  }
}

// HashWord's FNV-1a, one byte at a time, so that the tokenizer hashes a norm as it writes it.
constexpr uint64_t kFnvOffset = kHashWordOffset;
constexpr uint64_t FnvStep(uint64_t h, unsigned char c) { return HashWordStep(h, c); }

// The classes of the ASCII code points, as Classify() gives them.
constexpr std::array<CharClass, 0x80> kAsciiClass = [] {
  std::array<CharClass, 0x80> of{};
  for (uint32_t c = 0; c < 0x80; ++c) of[c] = Classify(c);
  return of;
}();

// Classify(Next(s, i, n)), the code point in cp: ASCII, nearly every byte of a note, is one
// table lookup.
inline CharClass ClassAt(std::string_view s, size_t i, size_t& n, uint32_t& cp) {
  unsigned char c = s[i];
  if (c < 0x80) {
    n = 1;
    cp = c;
    return kAsciiClass[c];
  }
  cp = Next(s, i, n);
  return Classify(cp);
}

// Up to 15 digits are an integer below 2^53: its double is exact, the value strtod gives.
constexpr size_t kExactDigits = 15;

double Integer(std::string_view digits) {
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  return static_cast<double>(v);
}

}  // namespace

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string Cat(std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  std::string out;
  out.reserve(size);
  for (std::string_view p : parts) out += p;
  return out;
}

std::string_view WordArena::Keep(std::string_view s) {
  if (s.empty()) return {};
  char* p = Allocate(s.size());
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

uint64_t WordSet::NextVersion() {
  static std::atomic<uint64_t> next{1};  // 0: no version, as a memo's entry holds when it has none
  return next.fetch_add(1, std::memory_order_relaxed);
}

char* WordArena::Allocate(size_t n) {
  if (n > left_) {
    // blocks of 4 KB, then larger as a text proves long; a word longer than a block gets its own
    size_t block = std::max(n, size_t{4096} << std::min<size_t>(blocks_.size(), 4));
    blocks_.push_back(std::unique_ptr<char[]>(new char[block]));  // not zeroed: every byte is written before it is read
    next_ = blocks_.back().get();
    left_ = block;
  }
  char* p = next_;
  next_ += n;
  left_ -= n;
  return p;
}

namespace {

// Sentence bounds, decided token by token in the tokenizer's last pass over its tokens. A "."
// "!" or "?" ends a sentence unless an abbreviation stands before it and the text goes on in
// lower case on the same line; a line break ends one unless the text is hard-wrapped prose; a
// "*" (a bullet) always starts one.
class SentenceSplitter {
 public:
  SentenceSplitter(const std::vector<std::string>& abbreviations, TokenizedText& tt)
      : abbreviations_(abbreviations), tt_(tt) {
    tt_.sentence_begin.push_back(0);
  }
  void Begin(size_t tokens) { tt_.sentence_of.resize(tokens); }  // at most this many
  void At(const std::vector<Token>& toks, size_t k) {
    bool brk = false;
    if (k > 0) {
      const Token& prev = toks[k - 1];
      const Token& cur = toks[k];
      if (IsPunctOf(prev, ".!?")) {
        bool abbrev_before = k >= 2 && toks[k - 2].kind == TokenKind::kWord && IsAbbreviation(toks[k - 2].norm) &&
                             toks[k - 2].byte_end == prev.byte_begin;
        bool next_lower = (cur.kind == TokenKind::kWord && !cur.capitalized && !cur.all_caps) ||
                          cur.kind == TokenKind::kNumber;
        brk = !(abbrev_before && next_lower && !cur.line_start);
      }
      if (cur.line_start && !brk) {
        // A line break ends a sentence unless the text is hard-wrapped prose: the previous line
        // does not end in punctuation and this one continues in lower case.
        bool prev_open = prev.kind == TokenKind::kWord || prev.kind == TokenKind::kNumber ||
                         IsPunctOf(prev, ",-/");
        bool continues = cur.kind == TokenKind::kWord && !cur.capitalized && !cur.all_caps;
        brk = cur.blank_line_before || !(prev_open && continues);
      }
      if (IsPunct(cur, '*')) brk = true;
    }
    if (brk) {
      tt_.sentence_end.push_back(static_cast<uint32_t>(k));
      ++sentence_;
      tt_.sentence_begin.push_back(static_cast<uint32_t>(k));
    }
    tt_.sentence_of[k] = sentence_;
  }
  void Finish(size_t tokens) {
    tt_.sentence_of.resize(tokens);
    tt_.sentence_end.push_back(static_cast<uint32_t>(tokens));
  }

 private:
  bool IsAbbreviation(std::string_view w) const {
    return std::find(abbreviations_.begin(), abbreviations_.end(), w) != abbreviations_.end();
  }
  const std::vector<std::string>& abbreviations_;
  TokenizedText& tt_;
  uint32_t sentence_ = 0;
};

// Dotted abbreviations: letter(s) "." letter(s) "." … with at least two letter groups ("b.i.d.",
// "p.o.", "q.h.s.", "a.m.", "e.g."), single letters or two. The end of the group that begins at
// toks[k], or 0 when none does (most tokens: not a word of one or two letters with a "." right
// after it).
size_t DottedGroupEnd(const std::vector<Token>& toks, size_t k) {
  const size_t count = toks.size();
  auto short_word = [&](size_t j) { return toks[j].kind == TokenKind::kWord && toks[j].norm.size() <= 2; };
  auto adjacent = [&](size_t j) { return toks[j].byte_begin == toks[j - 1].byte_end; };  // to the token before
  if (!(k + 1 < count && short_word(k) && IsPunct(toks[k + 1], '.') && adjacent(k + 1))) return 0;
  size_t j = k;
  int groups = 0;
  while (j + 1 < count && short_word(j) && IsPunct(toks[j + 1], '.') && adjacent(j + 1) && (groups == 0 || adjacent(j))) {
    ++groups;
    j += 2;
    if (j < count && !(short_word(j) && adjacent(j))) break;
  }
  // "q.8h" style is rare; require two groups, or a trailing group without its dot ("p.o").
  if (groups == 1 && j < count && short_word(j) && adjacent(j)) {
    ++groups;
    ++j;
  }
  return groups >= 2 ? j : 0;
}

// The group toks[k, end) as one word token, written to `out` (which may be toks[k] itself).
void JoinDotted(const std::vector<Token>& toks, size_t k, size_t end, WordArena& words, Token& out) {
  std::string acc;
  bool letters_only = true;
  for (size_t j = k; j < end; ++j) {
    if (toks[j].kind != TokenKind::kWord) continue;  // the dots
    acc += toks[j].norm;
    letters_only = letters_only && toks[j].letters_only;
  }
  Token t = toks[k];
  t.norm = words.Keep(acc);
  t.norm_hash = HashWord(t.norm);
  t.byte_end = toks[end - 1].byte_end;
  t.char_end = toks[end - 1].char_end;
  t.all_caps = false;
  t.letters_only = letters_only;
  out = t;
}

// Tokenize, and with `sentences` the sentence bounds too, in the tokenizer's last pass; with a
// `vocabulary`, each word's `known` as well.
TokenList TokenizeInto(std::string_view text, SentenceSplitter* sentences, const WordSet* vocabulary) {
  TokenList list;
  list.words = std::make_shared<WordArena>();
  WordArena& words = *list.words;
  std::vector<Token>& out = list.tokens;
  out.reserve(text.size() / 4 + 4);
  size_t i = 0;
  uint32_t chars = 0;
  bool at_line_start = true;
  int newlines_since_token = 0;

  // The token [b0, b1) with its offsets and line flags; the caller fills its norm and norm_hash.
  // Made on the stack and copied in: emplace_back() would value-initialize the vector's 96 bytes
  // first (a `rep stos`, the costliest instruction of the tokenizer).
  auto push = [&](TokenKind kind, size_t b0, size_t b1, uint32_t c0, uint32_t c1) -> Token& {
    Token t;  // its members' own initializers, then these
    t.kind = kind;
    t.source = text.data();
    t.byte_begin = static_cast<uint32_t>(b0);
    t.byte_end = static_cast<uint32_t>(b1);
    t.char_begin = c0;
    t.char_end = c1;
    t.line_start = at_line_start;
    t.blank_line_before = newlines_since_token >= 2;
    at_line_start = false;
    newlines_since_token = 0;
    out.push_back(t);
    return out.back();
  };

  while (i < text.size()) {
    size_t n = 0;
    uint32_t cp = 0;
    CharClass cls = ClassAt(text, i, n, cp);
    if (cls == CharClass::kSpace) { i += n; ++chars; continue; }
    if (cls == CharClass::kNewline) {
      i += n; ++chars;
      at_line_start = true;
      ++newlines_since_token;
      continue;
    }
    size_t b0 = i;
    uint32_t c0 = chars;
    if (cls == CharClass::kLetter) {
      bool curly_apostrophe = false, letters_only = true;
      bool first_upper = text[i] >= 'A' && text[i] <= 'Z';
      // Bit 0x20 of an ASCII letter is set in lower case: OR-ed over the letters it says whether
      // any was lower case, AND-ed whether all were (none upper case), without a branch.
      unsigned lower_seen = 0, all_lower = 0x20;
      uint64_t hash = kFnvOffset;  // of the norm, as the word is read
      while (i < text.size()) {
        // most of a word: a run of ASCII letters, no apostrophe to weigh, one character each
        const size_t run = i;
        for (unsigned char b; i < text.size() && IsAsciiAlpha(b = static_cast<unsigned char>(text[i])); ++i) {
          lower_seen |= b;
          all_lower &= b;
          hash = FnvStep(hash, b | 0x20);  // lower case
        }
        chars += static_cast<uint32_t>(i - run);
        if (i >= text.size()) break;
        size_t m = 0;
        uint32_t c = 0;
        CharClass k = ClassAt(text, i, m, c);
        // An apostrophe inside a word keeps it whole ("doesn't", "dc'd").
        bool inner_apostrophe = (c == '\'' || c == 0x2019) && i + m < text.size() &&
                                IsAsciiAlpha(static_cast<unsigned char>(text[i + m])) && i > b0;
        if (k != CharClass::kLetter && !inner_apostrophe) break;
        letters_only = false;
        if (c == 0x2019) {
          curly_apostrophe = true;
          hash = FnvStep(hash, '\'');  // the norm writes it straight
        } else {
          for (size_t q = 0; q < m; ++q) hash = FnvStep(hash, static_cast<unsigned char>(text[i + q]));
        }
        i += m; ++chars;
      }
      const bool caps = !(lower_seen & 0x20), any_upper = !(all_lower & 0x20);
      Token& t = push(TokenKind::kWord, b0, i, c0, chars);
      const std::string_view raw = t.raw();
      if (!any_upper && !curly_apostrophe) {  // written as its norm: the text's own bytes
        t.norm = raw;
      } else {
        // lower-cased, and a curly apostrophe made straight, in one pass into the arena
        char* norm = words.Allocate(raw.size());
        size_t w = 0;
        for (size_t p = 0; p < raw.size(); ++p) {
          char ch = raw[p];
          if (curly_apostrophe && raw.compare(p, 3, "\xE2\x80\x99") == 0) {
            ch = '\'';
            p += 2;
          } else if (ch >= 'A' && ch <= 'Z') {
            ch = static_cast<char>(ch - 'A' + 'a');
          }
          norm[w++] = ch;
        }
        t.norm = std::string_view(norm, w);
      }
      t.norm_hash = hash;
      t.all_caps = caps && any_upper;
      t.capitalized = first_upper;
      t.letters_only = letters_only;
      continue;
    }
    if (cls == CharClass::kDigit) {
      // digits, optional thousands groups "1,000", optional decimal ".5"
      while (i < text.size() && IsDigit(static_cast<unsigned char>(text[i]))) { ++i; ++chars; }
      auto digit_at = [&](size_t p) { return p < text.size() && IsDigit(static_cast<unsigned char>(text[p])); };
      while (i < text.size() && text[i] == ',' && digit_at(i + 1) && digit_at(i + 2) && digit_at(i + 3) &&
             !digit_at(i + 4)) {
        i += 4; chars += 4;
      }
      bool fraction = false;
      if (i + 1 < text.size() && text[i] == '.' && IsDigit(static_cast<unsigned char>(text[i + 1]))) {
        ++i; ++chars;
        while (i < text.size() && IsDigit(static_cast<unsigned char>(text[i]))) { ++i; ++chars; }
        fraction = true;
      }
      Token& t = push(TokenKind::kNumber, b0, i, c0, chars);
      const std::string_view raw = t.raw();
      uint64_t hash = kFnvOffset;
      if (raw.find(',') == std::string_view::npos) {
        t.norm = raw;
        for (char ch : raw) hash = FnvStep(hash, static_cast<unsigned char>(ch));
      } else {
        char* norm = words.Allocate(raw.size());
        size_t w = 0;
        for (char ch : raw)
          if (ch != ',') {
            norm[w++] = ch;
            hash = FnvStep(hash, static_cast<unsigned char>(ch));
          }
        t.norm = std::string_view(norm, w);
      }
      t.norm_hash = hash;
      if (fraction || t.norm.size() > kExactDigits) {
        std::string digits(t.norm);  // strtod reads up to a NUL
        t.number = std::strtod(digits.c_str(), nullptr);
      } else {
        t.number = Integer(t.norm);
      }
      continue;
    }
    // punctuation: one code point per token
    i += n; ++chars;
    Token& t = push(TokenKind::kPunct, b0, i, c0, chars);
    t.norm = cp < 0x80 ? t.raw() : PunctNorm(cp, t.raw());
    t.norm_hash = HashWord(t.norm);
  }

  // Texts repeat their words, and so do the texts a process grades: the process remembers the
  // words it has folded (FoldWord is a pure function of the word) and, for the vocabulary last
  // asked about each, whether it holds the word, in a WordMap: a lookup reads one slot, the word
  // inside it. One shared lock per text looks up every word; the misses are folded outside the
  // lock and added, and the answers of a new vocabulary recorded, under one exclusive lock.
  struct Folded {
    uint64_t hash = 0;
    uint64_t vocabulary = 0;  // the version of the vocabulary `known` was read in; 0: none
    uint32_t offset = 0;      // in FoldMemo::folded; kItself: the word folds to itself
    uint16_t size = 0;
    bool known = false;
  };
  constexpr uint32_t kItself = UINT32_MAX;
  struct FoldMemo {
    std::shared_mutex mu;
    WordMap<Folded> words;
    std::string folded;  // the folded words that differ from their words, end to end
  };
  // Up to kFoldMemoWords words of up to kFoldMemoLongest bytes (a longer one is folded each time
  // it is read): 1.3 MB of slots, and at most 2 MB of longer and folded words, whatever the texts.
  constexpr size_t kFoldMemoWords = 1 << 14, kFoldMemoLongest = 64;
  static FoldMemo memo;
  std::vector<size_t> missed, unread;  // words the memo does not hold; holds without `known`
  // The last pass, over the tokens as read: dotted abbreviations joined, each word's fold (and
  // whether the vocabulary holds it) looked up and the sentence bounds decided. In place: the token written, out[w], trails the one read,
  // out[k], and a dotted group reads only tokens at or after k.
  const size_t count = out.size();  // read once: the loop writes tokens, not the vector
  if (sentences) sentences->Begin(count);
  size_t w = 0;
  {
    std::shared_lock<std::shared_mutex> reading(memo.mu);
    for (size_t k = 0; k < count; ++w) {
      if (size_t end = DottedGroupEnd(out, k)) {
        JoinDotted(out, k, end, words, out[w]);
        k = end;
      } else {
        if (w != k) out[w] = out[k];
        ++k;
      }
      if (sentences) sentences->At(out, w);
      Token& t = out[w];
      if (t.kind != TokenKind::kWord) {
        t.folded = t.norm;
        t.folded_hash = t.norm_hash;
      } else if (const Folded* f = memo.words.find(t.norm, t.norm_hash)) {
        t.folded = f->offset == kItself ? t.norm : words.Keep(std::string_view(memo.folded).substr(f->offset, f->size));
        t.folded_hash = f->hash;
        if (vocabulary && f->vocabulary == vocabulary->version()) {
          t.known = f->known ? Token::Known::kYes : Token::Known::kNo;
        } else if (vocabulary) {
          unread.push_back(w);  // remembered without this vocabulary's answer
        }
      } else {
        missed.push_back(w);
      }
    }
  }
  out.resize(w);
  if (vocabulary)
    for (size_t k : unread) out[k].known = vocabulary->contains(out[k].norm, out[k].norm_hash) ? Token::Known::kYes : Token::Known::kNo;
  if (sentences) sentences->Finish(w);
  if (missed.empty() && unread.empty()) return list;
  for (size_t k : missed) {  // a word missed twice in one text is folded twice; both agree
    Token& t = out[k];
    std::string folded = FoldWord(t.norm);
    if (folded == t.norm) {
      t.folded = t.norm;
      t.folded_hash = t.norm_hash;
    } else {
      t.folded = words.Keep(folded);
      t.folded_hash = HashWord(t.folded);
    }
    if (vocabulary) t.known = vocabulary->contains(t.norm, t.norm_hash) ? Token::Known::kYes : Token::Known::kNo;
  }
  std::unique_lock<std::shared_mutex> writing(memo.mu);
  for (size_t k : unread)  // the vocabulary's answer, for the next text
    if (Folded* f = memo.words.find_mutable(out[k].norm, out[k].norm_hash)) {
      f->vocabulary = vocabulary->version();
      f->known = out[k].known == Token::Known::kYes;
    }
  for (size_t k : missed) {
    const Token& t = out[k];
    if (t.norm.size() > kFoldMemoLongest || t.folded.size() > kFoldMemoLongest || memo.words.contains(t.norm, t.norm_hash))
      continue;
    if (memo.words.size() >= kFoldMemoWords) {
      memo.words.clear();
      memo.folded.clear();
    }
    Folded f{t.folded_hash, 0, kItself, 0, false};
    if (vocabulary) {
      f.vocabulary = vocabulary->version();
      f.known = t.known == Token::Known::kYes;
    }
    if (t.folded != t.norm) {
      f.offset = static_cast<uint32_t>(memo.folded.size());
      f.size = static_cast<uint16_t>(t.folded.size());
      memo.folded += t.folded;
    }
    memo.words.insert(t.norm, t.norm_hash, f);
  }
  return list;
}

}  // namespace

TokenList Tokenize(std::string_view text) { return TokenizeInto(text, nullptr, nullptr); }

TokenizedText Analyze(std::string_view text, const std::vector<std::string>& abbreviations, const WordSet* vocabulary) {
  TokenizedText tt;
  tt.text = text;
  SentenceSplitter sentences(abbreviations, tt);
  TokenList list = TokenizeInto(text, &sentences, vocabulary);
  tt.tokens = std::move(list.tokens);
  tt.words = std::move(list.words);
  return tt;
}

std::vector<std::string> PhraseWords(std::string_view s) {
  std::vector<std::string> words;
  for (Token& t : Tokenize(s)) {
    if (IsPunct(t, '-')) continue;
    words.emplace_back(t.norm);
  }
  return words;
}

std::string NormalizePhrase(std::string_view s) {
  std::string out;
  for (const std::string& w : PhraseWords(s)) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::string FoldedPhrase(std::string_view s) {
  std::string out;
  for (const Token& t : Tokenize(s)) {  // PhraseWords, with the folds Tokenize has made
    if (IsPunct(t, '-')) continue;
    if (!out.empty()) out += ' ';
    if (t.kind == TokenKind::kWord) out += t.folded;
    else out += FoldWord(t.norm);
  }
  return out;
}

std::string FoldPlural(std::string_view w) {
  // "-es" after a sibilant: wishes → wish, rashes → rash, patches → patch, masses → mass,
  // boxes → box; but "-aches" is "-ache" + s (headaches → headache).
  auto ends = [&](std::string_view suffix) { return w.size() > suffix.size() + 1 && w.ends_with(suffix); };
  if ((ends("shes") || ends("sses") || ends("xes") || (ends("ches") && !ends("aches"))))
    return std::string(w.substr(0, w.size() - 2));
  if (w.size() > 4 && w.back() == 's') {
    char p = w[w.size() - 2];
    if (p != 's' && p != 'u' && p != 'i' && p != '\'') return std::string(w.substr(0, w.size() - 1));
  }
  return std::string(w);
}

namespace {

// The spelling folds of corpus/rules/spelling.tsv, parsed once.
struct SpellingTable {
  struct Rule { std::string from, to, base; };
  std::unordered_map<std::string, std::string> pairs;
  std::vector<Rule> infixes, prefixes, suffixes;  // suffixes longest `from` first
  std::unordered_set<std::string> keep;
  std::vector<std::string> keep_endings;

  static constexpr size_t kMinStem = 3;  // letters that must precede a suffix rule's `from`

  explicit SpellingTable(std::string_view tsv) {
    for (std::string_view line : Split(tsv, '\n')) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (Trim(line).empty() || line.front() == '#') continue;
      std::vector<std::string> f;
      for (std::string_view field : Split(line, '\t')) f.emplace_back(Trim(field));
      if (f[0] == "@infix" && f.size() >= 3) infixes.push_back({f[1], f[2], ""});
      else if (f[0] == "@prefix" && f.size() >= 3) prefixes.push_back({f[1], f[2], ""});
      else if (f[0] == "@suffix" && f.size() >= 4) suffixes.push_back({f[1], f[2], f[3]});
      else if (f[0] == "@keep" && f.size() >= 2) keep.insert(f[1]);
      else if (f[0] == "@keep-ending" && f.size() >= 2) keep_endings.push_back(f[1]);
      else if (f[0].front() != '@' && f.size() >= 2) pairs[f[0]] = f[1];
      else throw std::runtime_error("spelling.tsv: malformed row '" + std::string(line) + "'");
    }
    std::stable_sort(suffixes.begin(), suffixes.end(),
                     [](const Rule& a, const Rule& b) { return a.from.size() > b.from.size(); });
  }

  bool Kept(const std::string& word, const std::string& base) const {
    if (keep.count(word) || keep.count(base)) return true;
    for (const std::string& e : keep_endings)
      if (base.size() >= e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0) return true;
    return false;
  }

  std::string Fold(std::string_view w) const {
    std::string word(w);
    if (auto it = pairs.find(word); it != pairs.end()) return it->second;
    for (const Rule& r : infixes)
      for (size_t p = 0; (p = word.find(r.from, p)) != std::string::npos; p += r.to.size()) word.replace(p, r.from.size(), r.to);
    for (const Rule& r : prefixes)
      if (word.size() > r.from.size() && word.compare(0, r.from.size(), r.from) == 0) {
        word.replace(0, r.from.size(), r.to);
        break;
      }
    for (const Rule& r : suffixes) {
      if (word.size() < r.from.size() + kMinStem) continue;
      size_t stem = word.size() - r.from.size();
      if (word.compare(stem, r.from.size(), r.from) != 0) continue;
      if (!Kept(word, word.substr(0, stem) + r.base)) word.replace(stem, r.from.size(), r.to);
      break;
    }
    return word;
  }
};

const SpellingTable& Spelling() {
  static const SpellingTable table(embedded_file("corpus/rules/spelling.tsv"));
  return table;
}

bool AllAsciiLower(std::string_view w) {
  for (char c : w)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !w.empty();
}

}  // namespace

std::string FoldSpelling(std::string_view w) {
  if (w.size() < 4 || !AllAsciiLower(w)) return std::string(w);
  return Spelling().Fold(w);
}

std::string FoldWord(std::string_view w) {
  // a possessive or contracted "'s" ("pressure's", "belly's") compares as the word itself
  if (w.size() > 4 && w.substr(w.size() - 2) == "'s") w.remove_suffix(2);
  return FoldPlural(FoldSpelling(w));
}

std::vector<std::string_view> Split(std::string_view s, char delim) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(delim, start);
    if (p == std::string_view::npos) { out.push_back(s.substr(start)); break; }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0, len = 0; i < s.size(); i += len) {
    // eight ASCII bytes at once: no byte with its high bit set
    uint64_t eight = 0;
    if (i + 8 <= s.size() && (std::memcpy(&eight, s.data() + i, 8), (eight & 0x8080808080808080ULL) == 0)) {
      len = 8;
      n += 8;
      continue;
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) len = 1;
    else Next(s, i, len);
    ++n;
  }
  return n;
}

double Round4(double v) {
  if (!std::isfinite(v)) return 0;
  return std::round(v * 10000.0) / 10000.0;
}

std::string FormatNumber(double v) {
  char buf[64];
  if (std::isfinite(v) && std::fabs(v) < 1e15 && v == std::floor(v)) {
    // a whole number below 1e15 is its integer's digits, as "%.0f" writes them; "-0" stays "-0"
    if (std::signbit(v) && v == 0) return "-0";
    char* end = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v)).ptr;
    return std::string(buf, end);
  }
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace scribe
