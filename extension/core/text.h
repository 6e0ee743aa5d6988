// text.h — tokens with offsets, and the string normalisation every matcher shares.
//
// The tokenizer turns free text into words, numbers and punctuation, remembering byte and
// code-point offsets into the original. Lower-casing is ASCII-only (clinical vocabulary and
// RxNorm names are ASCII); any other code point is kept as part of a word, so the grader never
// rejects or mangles unicode input. Invalid UTF-8 bytes count as one code point each.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace scribe {

enum class TokenKind : uint8_t { kWord, kNumber, kPunct };

// Where the words of a tokenized text live when they are not the text's own bytes ("Metformin"
// lower-cased, "bid" joined from "b.i.d.", a folded plural, a repaired sig word): blocks that
// never move, so a Token is a few views and numbers, copied as plain bytes.
class WordArena {
 public:
  WordArena() = default;
  WordArena(const WordArena&) = delete;
  WordArena& operator=(const WordArena&) = delete;
  // A copy of `s` that lives as long as the arena.
  std::string_view Keep(std::string_view s);
  // `n` bytes to write a word into; they live as long as the arena.
  char* Allocate(size_t n);

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};

struct Token {
  // norm and folded are bytes of the text when it wrote the word that way, else words kept in the
  // WordArena of the tokens (TokenList::words, TokenizedText::words) or static strings.
  std::string_view norm;   // lower-case word, number text, or the punctuation itself
  std::string_view folded; // FoldWord(norm): spelling- and plural-folded, for phrase matching
  uint64_t norm_hash = 0, folded_hash = 0;  // HashWord() of norm and folded, computed once
  // The text the token was read from: raw() is its bytes [byte_begin, byte_end), whatever
  // repair moved the bounds (a pointer, not a view, keeps a token at 88 bytes).
  const char* source = nullptr;
  std::string_view raw() const { return {source + byte_begin, byte_end - byte_begin}; }
  uint32_t byte_begin, byte_end;
  uint32_t char_begin, char_end;  // Unicode code points, 0-based, end exclusive
  double number = 0;       // value of a kNumber token
  TokenKind kind;
  bool all_caps = false;   // raw word was written in capitals ("SI", "BID")
  bool line_start = false; // first token on its line
  bool blank_line_before = false;
  bool capitalized = false;  // first letter upper-case
  bool letters_only = false; // a word whose norm is only the letters a-z ("lisinopril", not "don't", "café")
  // Whether the vocabulary Analyze was given (AnalyzeText gives the terminology's known words)
  // holds this norm, read once and asked again when the word is matched as a drug name: kUnread
  // until read, and again whenever the norm changes.
  enum class Known : uint8_t { kUnread, kYes, kNo } known = Known::kUnread;
};
// Every pass over a text streams its tokens (about 0.9 MB for 40 KB of notes): keep them small.
static_assert(sizeof(Token) == 88);

// What Tokenize returns: the tokens and the arena that holds their words. It reads as the vector
// of tokens; an lvalue passes where a `const std::vector<Token>&` is asked for, a temporary does
// not (its words would go with it).
struct TokenList {
  std::vector<Token> tokens;
  std::shared_ptr<WordArena> words;

  size_t size() const { return tokens.size(); }
  bool empty() const { return tokens.empty(); }
  Token& operator[](size_t k) { return tokens[k]; }
  const Token& operator[](size_t k) const { return tokens[k]; }
  const Token& back() const { return tokens.back(); }
  const Token& front() const { return tokens.front(); }
  std::vector<Token>::iterator begin() { return tokens.begin(); }
  std::vector<Token>::iterator end() { return tokens.end(); }
  std::vector<Token>::const_iterator begin() const { return tokens.begin(); }
  std::vector<Token>::const_iterator end() const { return tokens.end(); }
  operator const std::vector<Token>&() const& { return tokens; }
  operator const std::vector<Token>&() && = delete;
};

// A tokenized text plus its sentence and clause structure.
struct TokenizedText {
  std::string_view text;
  std::vector<Token> tokens;
  std::shared_ptr<WordArena> words;  // where the tokens' words live (shared by copies)
  std::vector<uint32_t> sentence_of;  // token index -> sentence number
  std::vector<uint32_t> sentence_begin;  // sentence number -> first token
  std::vector<uint32_t> sentence_end;    // sentence number -> one past last token
};

// Hash and equality for string-keyed containers that look up by std::string_view without building
// a std::string (heterogeneous lookup). Hashes as std::hash<std::string> does, so a container's
// iteration order is the same as with the default hash.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using StringSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// A std::string about to be destroyed: what the tokens of a text must not view.
template <class S>
concept TemporaryString = std::is_same_v<std::remove_cvref_t<S>, std::string> && !std::is_lvalue_reference_v<S>;

// Splits text into tokens. Letter–digit runs split ("50mg" -> 50, mg), dotted abbreviations
// join ("b.i.d." -> "bid"), "1,000" and "0.5" are single numbers. The tokens view `text`, which
// must outlive them: a temporary string is refused at compile time (a range-for over
// Tokenize(v.as<std::string>()) would read words of a string already gone).
TokenList Tokenize(std::string_view text);
template <class S>
  requires TemporaryString<S>
TokenList Tokenize(S&& text) = delete;

class WordSet;

// Tokenizes and finds sentences. `abbreviations` are words after which "." does not end a
// sentence when the next word is lower-case. With a `vocabulary`, each word token's `known`
// says whether the vocabulary holds its norm (remembered with the word's fold, so that a word
// the process has read before costs no lookup in a vocabulary larger than the cache).
TokenizedText Analyze(std::string_view text, const std::vector<std::string>& abbreviations,
                      const WordSet* vocabulary = nullptr);
template <class S>
  requires TemporaryString<S>
TokenizedText Analyze(S&& text, const std::vector<std::string>& abbreviations,
                      const WordSet* vocabulary = nullptr) = delete;  // as Tokenize

// Lower-case ASCII copy.
std::string Lower(std::string_view s);

// The parts one after another, in one allocation ("expected " + a + ", found " + b made a string
// per "+").
std::string Cat(std::initializer_list<std::string_view> parts);

// A name or phrase as the matchers compare it: tokens' norms joined by single spaces, with
// hyphens dropped ("Alka-Seltzer" -> "alka seltzer", "q8h" -> "q 8 h", "b.i.d." -> "bid").
std::string NormalizePhrase(std::string_view s);

// Word/number norms of a phrase (hyphens dropped), for token-sequence matching.
std::vector<std::string> PhraseWords(std::string_view s);

// NormalizePhrase with every word folded (FoldWord): how phrase matching compares phrases.
std::string FoldedPhrase(std::string_view s);

// Light plural folding used by phrase matching: "palpitations" -> "palpitation".
std::string FoldPlural(std::string_view word);

// British -> American spelling of a lower-case word (corpus/rules/spelling.tsv):
// "hospitalised" -> "hospitalized", "haemoglobin" -> "hemoglobin", "tumour" -> "tumor".
// Words the table does not cover come back unchanged.
std::string FoldSpelling(std::string_view word);

// How phrase matching compares words: without a possessive "'s", spelling-folded, then
// plural-folded ("tumours" -> "tumor", "patient's" -> "patient"). Token.folded holds
// FoldWord(norm) for words.
std::string FoldWord(std::string_view word);

// Splits on a delimiter, keeping empty fields.
std::vector<std::string_view> Split(std::string_view s, char delim);
std::string_view Trim(std::string_view s);

// Number of code points in s (invalid bytes count one each).
size_t CodePointCount(std::string_view s);

// FNV-1a hash of a word, as matchers index their first words. It reads the word a byte at a
// time, so the hash of a longer string continues from the hash of its beginning:
// HashWordAppend(HashWord(a), b) == HashWord(a + b).
constexpr uint64_t kHashWordOffset = 1469598103934665603ULL;
constexpr uint64_t HashWordStep(uint64_t h, unsigned char c) { return (h ^ c) * 1099511628211ULL; }
constexpr uint64_t HashWordAppend(uint64_t h, std::string_view more) {
  for (char c : more) h = HashWordStep(h, static_cast<unsigned char>(c));
  return h;
}
constexpr uint64_t HashWord(std::string_view s) { return HashWordAppend(kHashWordOffset, s); }
// Whether t is the punctuation mark c, or one of `marks` (each an ASCII character): a byte
// compare, where string_view's == is a call the compiler keeps out of line.
inline bool IsPunct(const Token& t, char c) { return t.kind == TokenKind::kPunct && t.norm.size() == 1 && t.norm[0] == c; }
inline bool IsPunctOf(const Token& t, std::string_view marks) {
  if (t.kind != TokenKind::kPunct || t.norm.size() != 1) return false;
  for (char m : marks)  // unrolled over a literal's few marks, where find() would call memchr
    if (t.norm[0] == m) return true;
  return false;
}
// A token's HashWord(norm) and HashWord(folded): the ones Tokenize computed, or worked out for a
// token made elsewhere (tests) without them.
inline uint64_t NormHash(const Token& t) { return t.norm_hash ? t.norm_hash : HashWord(t.norm); }
inline uint64_t FoldedHash(const Token& t) { return t.folded_hash ? t.folded_hash : HashWord(t.folded); }

// a == b for the short words of a text, compared inline a word (8 bytes) at a time: no call to
// memcmp, whose set-up costs more than a word's few bytes. Reads only the bytes of a and b.
inline bool SameWord(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char *p = a.data(), *q = b.data();
  auto load8 = [](const char* s) { uint64_t v; std::memcpy(&v, s, 8); return v; };
  auto load4 = [](const char* s) { uint32_t v; std::memcpy(&v, s, 4); return v; };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (load8(p + i) != load8(q + i)) return false;
    return load8(p + n - 8) == load8(q + n - 8);  // the last 8 bytes, overlapping the word before
  }
  if (n >= 4) return load4(p) == load4(q) && load4(p + n - 4) == load4(q + n - 4);
  for (size_t i = 0; i < n; ++i)
    if (p[i] != q[i]) return false;
  return true;
}

// A Bloom filter over words' HashWord()s, two bits of 2^18 (32 KB) each: in front of a large
// WordTable that most lookups miss (a text's words against the terminology's names), it answers
// "certainly not" from memory the cache holds, where the table's slots would each be a miss.
class WordBits {
 public:
  void Add(uint64_t hash) {
    auto [a, b] = Bits(hash);
    bits_[a >> 6] |= uint64_t{1} << (a & 63);
    bits_[b >> 6] |= uint64_t{1} << (b & 63);
  }
  bool MayHold(uint64_t hash) const {
    auto [a, b] = Bits(hash);
    return ((bits_[a >> 6] >> (a & 63)) & (bits_[b >> 6] >> (b & 63)) & 1) != 0;
  }

 private:
  static constexpr int kBits = 18;
  static std::pair<uint32_t, uint32_t> Bits(uint64_t hash) {
    const uint64_t m = hash * 0x9E3779B97F4A7C15ULL;  // the product's high bits mix every bit of the hash
    return {static_cast<uint32_t>(m >> (64 - kBits)), static_cast<uint32_t>((m >> (64 - 2 * kBits)) & ((1u << kBits) - 1))};
  }
  std::vector<uint64_t> bits_ = std::vector<uint64_t>(size_t{1} << (kBits - 6), 0);
};

// The n <= 8 bytes at p as the low bytes of a word, the rest zero: inline loads that may overlap
// (their common bytes are the same), where memcpy of a variable size is a call.
inline uint64_t LoadUpTo8(const char* p, size_t n) {
  auto load = [](const char* q, auto v) { std::memcpy(&v, q, sizeof v); return static_cast<uint64_t>(v); };
  if (n >= 4) return load(p, uint32_t{}) | load(p + n - 4, uint32_t{}) << ((n - 4) * 8);
  if (n == 0) return 0;
  const auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])} << (i * 8); };
  return byte(0) | byte(n / 2) | byte(n - 1);
}

// Words to small values (trivially copyable), keyed by HashWord(), laid out for tables the cache
// cannot keep: open addressing over slots that hold the word's size and, for a word of up to 15
// bytes (99.6 % of the English vocabulary), the word itself, zero-padded, beside its value. A
// lookup compares two 8-byte halves in the slot it lands on, one cache line, where a WordTable
// reads a slot, then an entry, then the word's bytes, each a miss. A longer word's slot holds
// its offset in an arena, its size and its hash's high half.
template <class V>
class WordMap {
  static_assert(std::is_trivially_copyable_v<V>);
  static_assert(std::endian::native == std::endian::little);  // a key's bytes are read as integers

 public:
  const V* find(std::string_view word, uint64_t hash) const {
    if (slots_.empty() || word.empty() || word.size() > UINT32_MAX) return nullptr;
    const Key want = Image(word, hash, 0);
    const size_t mask = slots_.size() - 1;
    if (word.size() <= kInline) {
      for (size_t i = Home(hash);; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.key.lo == want.lo && s.key.hi == want.hi) return &s.value;
        if (s.key.lo == 0) return nullptr;  // an empty slot: a member's size is never 0
      }
    }
    for (size_t i = Home(hash);; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.key.lo == 0) return nullptr;
      if ((s.key.lo & 0xFF) == kLong && s.key.hi == want.hi && Word(s.key) == word) return &s.value;
    }
  }
  const V* find(std::string_view word) const { return find(word, HashWord(word)); }
  V* find_mutable(std::string_view word, uint64_t hash) { return const_cast<V*>(find(word, hash)); }
  bool contains(std::string_view word, uint64_t hash) const { return find(word, hash) != nullptr; }
  bool contains(std::string_view word) const { return find(word) != nullptr; }

  // Adds word -> value; a word already held keeps its value, and an empty word is never held.
  void insert(std::string_view word, uint64_t hash, const V& value) {
    if (word.empty() || contains(word, hash)) return;
    if (word.size() > UINT32_MAX || long_words_.size() + word.size() > UINT32_MAX)
      throw std::length_error("WordMap: more than 4 GB of words");
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();  // at most three quarters full
    uint32_t offset = 0;
    if (word.size() > kInline) {
      offset = static_cast<uint32_t>(long_words_.size());
      long_words_.append(word);
    }
    Place(Slot{Image(word, hash, offset), value}, hash);
    ++size_;
  }
  void insert(std::string_view word, const V& value) { insert(word, HashWord(word), value); }
  // The value held for a non-empty `word`, inserted as V() when absent.
  V& operator[](std::string_view word) {
    const uint64_t hash = HashWord(word);
    if (!contains(word, hash)) insert(word, hash, V());
    return *find_mutable(word, hash);
  }
  size_t size() const { return size_; }
  void clear() {
    slots_.clear();
    long_words_.clear();
    size_ = 0;
  }

 private:
  static constexpr size_t kInline = 15;
  static constexpr uint8_t kLong = kInline + 1;
  struct Key {
    uint64_t lo = 0, hi = 0;  // byte 0: the size or kLong; then the word's bytes, zero-padded
  };
  struct Slot {
    Key key;
    [[no_unique_address]] V value;
  };
  static Key Image(std::string_view word, uint64_t hash, uint32_t offset) {
    const size_t n = word.size();
    if (n > kInline) return Key{kLong | (uint64_t{offset} << 32), static_cast<uint32_t>(n) | (hash >> 32 << 32)};
    const uint64_t head = LoadUpTo8(word.data(), std::min<size_t>(n, 8));
    const uint64_t tail = n > 8 ? LoadUpTo8(word.data() + 8, n - 8) : 0;
    return Key{n | head << 8, head >> 56 | tail << 8};
  }
  std::string_view Word(const Key& k) const {  // the word a key holds
    if ((k.lo & 0xFF) == kLong) return std::string_view(long_words_).substr(k.lo >> 32, static_cast<uint32_t>(k.hi));
    return std::string_view(reinterpret_cast<const char*>(&k) + 1, k.lo & 0xFF);
  }
  size_t Home(uint64_t hash) const { return static_cast<size_t>((hash * 0x9E3779B97F4A7C15ULL) >> shift_); }
  void Place(const Slot& s, uint64_t hash) {
    size_t i = Home(hash);
    while (slots_[i].key.lo != 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = s;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    shift_ = 64 - std::countr_zero(slots_.size());
    for (const Slot& s : old)
      if (s.key.lo != 0) Place(s, HashWord(Word(s.key)));
  }
  std::vector<Slot> slots_;
  std::string long_words_;
  size_t size_ = 0;
  int shift_ = 64;
};

// A set of words in a WordMap's layout: 16-byte slots, a word of up to 15 bytes inside its own.
class WordSet {
 public:
  WordSet() : version_(NextVersion()) {}
  void insert(std::string_view word) {  // an empty word is never a member
    map_.insert(word, Member{});
    version_ = NextVersion();
  }
  bool contains(std::string_view word, uint64_t hash) const { return map_.contains(word, hash); }
  bool contains(std::string_view word) const { return map_.contains(word); }
  size_t size() const { return map_.size(); }
  // Names these members: no other set, and no other state of this one, has this version (a
  // copy, holding the same words, shares it). What remembers answers of contains() keeps it.
  uint64_t version() const { return version_; }

 private:
  struct Member {};
  static uint64_t NextVersion();
  WordMap<Member> map_;
  uint64_t version_;
};

// Words to values, keyed by HashWord() so that a token's precomputed norm_hash finds its entry
// without hashing the word again: open addressing over a flat array of 8-byte slots (the hash's
// high half and an entry index), the word itself compared only when those halves are equal.
template <class V>
class WordTable {
 public:
  const V* find(std::string_view word, uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    uint32_t tag = Tag(hash);
    for (size_t i = Home(hash);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.entry == 0) return nullptr;
      if (s.tag == tag && SameWord(entries_[s.entry - 1].first, word)) return &entries_[s.entry - 1].second;
    }
  }
  const V* find(std::string_view word) const { return find(word, HashWord(word)); }
  bool contains(std::string_view word) const { return find(word) != nullptr; }
  bool contains(std::string_view word, uint64_t hash) const { return find(word, hash) != nullptr; }

  // The value stored for `word`, inserted as V() when absent.
  V& operator[](std::string_view word) {
    uint64_t hash = HashWord(word);
    if (const V* v = find(word, hash)) return const_cast<V&>(*v);
    if ((entries_.size() + 1) * 2 > slots_.size()) Grow();
    entries_.emplace_back(std::string(word), V());
    size_t i = Home(hash);
    while (slots_[i].entry != 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = Slot{Tag(hash), static_cast<uint32_t>(entries_.size())};
    return entries_.back().second;
  }
  size_t size() const { return entries_.size(); }
  // f(word, value) for every entry, in the order they were added.
  template <class F>
  void ForEach(F f) const {
    for (const auto& [word, value] : entries_) f(std::string_view(word), value);
  }
  void clear() {
    slots_.clear();
    entries_.clear();
  }

 private:
  struct Slot {
    uint32_t tag = 0;    // the hash's high half: most slots that are not the word fail on it
    uint32_t entry = 0;  // index into entries_ plus one; 0 is an empty slot
  };
  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }
  size_t Home(uint64_t hash) const { return static_cast<size_t>((hash * 0x9E3779B97F4A7C15ULL) >> shift_); }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    size_t capacity = old.empty() ? 16 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.entry == 0) continue;
      size_t i = Home(HashWord(entries_[s.entry - 1].first));
      while (slots_[i].entry != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::vector<std::pair<std::string, V>> entries_;
  int shift_ = 64;
};

// Rounds to 4 decimal places, the precision of every published score.
double Round4(double v);

// Formats a number the way clinicians write it: 50, 0.5, 1000, 0.075.
std::string FormatNumber(double v);

}  // namespace scribe
