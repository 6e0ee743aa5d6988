// extract.cpp — drug mention extraction (see extract.h, corpus/rules/binding.yaml).
#include "extract.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_set>

#include "embedded.h"

namespace scribe {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// ---------------------------------------------------------------- binding vocabulary

using Words = std::vector<std::string>;

struct Binding {
  std::vector<Words> med_headings, sig_line_phrases, coordinators, singular_verbs;
  // Looked up by the words of a text: WordSets, with the tokens' hashes where they have them.
  WordSet inactive_heading_words, sig_line_words, glue;
  WordSet med_heading_names;  // med_headings, words joined by single spaces
  size_t max_indication_words = 3;
};

std::vector<Words> PhraseList(const YAML::Node& y, const char* key) {
  std::vector<Words> out;
  if (const YAML::Node n = y[key])
    for (const auto& v : n) {
      Words w;
      const std::string phrase = v.as<std::string>();  // outlives the tokens that view it
      for (const Token& t : Tokenize(phrase)) w.emplace_back(t.norm);
      if (!w.empty()) out.push_back(std::move(w));
    }
  return out;
}

const Binding& DefaultBinding() {
  static const Binding binding = [] {
    Binding b;
    YAML::Node y = YAML::Load(std::string(embedded_file("corpus/rules/binding.yaml")));
    b.med_headings = PhraseList(y, "med_list_headings");
    for (const Words& h : b.med_headings) {
      std::string p;
      for (const std::string& w : h) p += (p.empty() ? "" : " ") + w;
      b.med_heading_names.insert(p);
    }
    b.coordinators = PhraseList(y, "coordinators");
    b.singular_verbs = PhraseList(y, "singular_verbs");
    for (const Words& w : PhraseList(y, "inactive_heading_words")) b.inactive_heading_words.insert(w.front());
    for (const Words& w : PhraseList(y, "allergy_glue_words"))
      if (w.size() == 1) b.glue.insert(w.front());
    for (Words& w : PhraseList(y, "sig_line_words")) {
      if (w.size() == 1) b.sig_line_words.insert(w.front());
      else b.sig_line_phrases.push_back(std::move(w));
    }
    if (y["max_indication_words"]) b.max_indication_words = y["max_indication_words"].as<size_t>();
    return b;
  }();
  return binding;
}

// The allergy cues of assertion.yaml: as a matcher, and the one-word cues that make a heading an
// allergy heading. One per Rules object.
struct AllergyVocabulary {
  PhraseMatcher cues{true};
  WordSet cue_words;
};

const AllergyVocabulary& AllergyCues(const Rules& rules) {
  static std::mutex mu;
  static std::map<const Rules*, std::unique_ptr<AllergyVocabulary>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& v = cache[&rules];
  if (!v) {
    v = std::make_unique<AllergyVocabulary>();
    int id = 0;
    for (const std::string& cue : rules.assertion.allergy_cues) {
      v->cues.Add(cue, id++);
      if (cue.find(' ') == std::string::npos) v->cue_words.insert(cue);
    }
  }
  return *v;
}

// Whether the words of `phrase` start at token k (within limit).
size_t PhraseAt(const std::vector<Token>& toks, size_t k, size_t limit, const Words& phrase) {
  if (k + phrase.size() > limit) return 0;
  for (size_t i = 0; i < phrase.size(); ++i)
    if (toks[k + i].norm != phrase[i]) return 0;
  return phrase.size();
}

bool ContainsPhrase(const std::vector<Token>& toks, size_t b, size_t e, const std::vector<Words>& phrases) {
  for (size_t k = b; k < e; ++k)
    for (const Words& p : phrases)
      if (PhraseAt(toks, k, e, p)) return true;
  return false;
}

// ---------------------------------------------------------------- small helpers

bool IsSeparator(const Token& t) {
  if (t.kind == TokenKind::kPunct) return IsPunctOf(t, ",;*()");
  return t.kind == TokenKind::kWord && (t.norm == "and" || t.norm == "also" || t.norm == "plus" || t.norm == "then");
}

// The "and" of "one and a half", "1 and 1/2".
bool InQuantity(const std::vector<Token>& toks, size_t k, const Rules& rules) {
  if (toks[k].norm != "and" || k == 0 || k + 1 >= toks.size()) return false;
  bool number_before = toks[k - 1].kind == TokenKind::kNumber || rules.number_words.count(toks[k - 1].norm) > 0;
  bool half_after = (toks[k + 1].norm == "a" && k + 2 < toks.size() && toks[k + 2].norm == "half") ||
                    toks[k + 1].kind == TokenKind::kNumber;
  return number_before && half_after;
}

bool AllLetters(std::string_view w) {
  for (char c : w)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !w.empty();
}

// A word that could be an (unknown) drug name when a dose follows it.
bool PhantomCandidate(const Token& t, const Terminology& terminology) {
  return t.kind == TokenKind::kWord && t.norm.size() >= 4 && t.letters_only && !t.all_caps &&
         !terminology.IsKnownWord(t) && !terminology.IsNonRxnormSubstance(t);
}

// "potassium 4.1", "glucose 180 mg/dL", "drinks water", "serum lithium level": a measurement
// or an everyday substance, not a medication (corpus/rules/lab_context.yaml).
bool IsMeasurement(const std::vector<Token>& toks, size_t begin, size_t end, size_t sentence_begin,
                   size_t sentence_end, const Rules& rules, const SigParser& sig) {
  std::string name;
  for (size_t k = begin; k < end; ++k) {
    if (!name.empty()) name += ' ';
    name += toks[k].norm;
  }
  if (rules.dose_required.contains(name)) {
    auto doses = sig.FindDoses(toks, end, std::min(sentence_end, end + 4));
    return doses.empty() || doses.front().begin > end + 1;
  }
  if (!rules.lab_analytes.contains(name)) return false;
  if (end < sentence_end) {
    const Token& next = toks[end];
    if (rules.lab_after.contains(next.norm, NormHash(next))) return true;
    if (next.kind == TokenKind::kNumber) {
      // a number that does not start a dose is a result ("potassium 4.1", "glucose 180 mg/dL")
      auto doses = sig.FindDoses(toks, end, std::min(sentence_end, end + 4));
      if (doses.empty() || doses.front().begin != end) return true;
    }
    if (IsPunctOf(next, ":=")) {
      if (end + 1 < sentence_end && toks[end + 1].kind == TokenKind::kNumber) return true;
    }
  }
  for (size_t back = 1; back <= 2 && begin >= sentence_begin + back; ++back) {
    std::string phrase;
    for (size_t k = begin - back; k < begin; ++k) {
      if (!phrase.empty()) phrase += ' ';
      phrase += toks[k].norm;
    }
    if (rules.lab_before.contains(phrase)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- token repairs

// A repaired token's words, kept in the text's arena: `norm`, folded as a plural.
void SetWords(Token& t, std::string_view norm, WordArena& words) {
  t.norm = words.Keep(norm);
  t.known = Token::Known::kUnread;
  t.letters_only = AllLetters(t.norm);
  std::string folded = FoldPlural(t.norm);
  t.folded = folded == t.norm ? t.norm : words.Keep(folded);
  t.norm_hash = HashWord(t.norm);
  t.folded_hash = HashWord(t.folded);
}

Token Piece(const Token& t, size_t offset, std::string_view norm, bool first, WordArena& words) {
  Token p = t;
  size_t len = norm.size();
  SetWords(p, norm, words);
  p.byte_begin = t.byte_begin + static_cast<uint32_t>(offset);
  p.byte_end = p.byte_begin + static_cast<uint32_t>(len);
  p.char_begin = t.char_begin + static_cast<uint32_t>(offset);
  p.char_end = p.char_begin + static_cast<uint32_t>(len);
  if (!first) {
    p.line_start = false;
    p.blank_line_before = false;
    p.capitalized = len > 0 && p.raw()[0] >= 'A' && p.raw()[0] <= 'Z';
  }
  return p;
}

// Sig words misspelled or glued by an EHR export ("tiems", "bidx", "tidprnas") read as the sig
// words they stand for (sig_grammar.yaml). Only words that are neither English, clinical
// vocabulary nor a drug name (exact or approximate), and not proper nouns, are touched.
// A numeral repeated as a word ("every 6 six hours", "take 1 one tablet") reads once.
void RepairSigWords(TokenizedText& text, const Rules& rules, const SigParser& sig, const Terminology& terminology) {
  std::vector<Token>& toks = text.tokens;
  if (!text.words) text.words = std::make_shared<WordArena>();
  WordArena& words = *text.words;
  // 1. Find the repairs, reading the tokens as they came from the tokenizer. Most texts need none.
  struct Repair {
    enum Kind { kJoin, kDropNumeral, kRespell, kSplit } kind;
    size_t k;
    std::string respelled;            // kRespell
    std::vector<std::string> pieces;  // kSplit
  };
  std::vector<Repair> repairs;
  size_t added = 0;  // tokens the splits add
  for (size_t k = 0, count = toks.size(); k < count; ++k) {
    const Token& t = toks[k];
    // "T.I.D", "Q.O.D": the tokenizer joins "T.I." and leaves "D"; the whole is one sig word
    if (t.kind == TokenKind::kWord && k + 1 < count && toks[k + 1].kind == TokenKind::kWord &&
        toks[k + 1].norm.size() <= 2 && toks[k + 1].byte_begin == t.byte_end && t.raw().find('.') != std::string_view::npos &&
        sig.IsSigWord(std::string(t.norm).append(toks[k + 1].norm))) {
      repairs.push_back({Repair::kJoin, k, {}, {}});
      ++k;
      continue;
    }
    if (t.kind == TokenKind::kWord && k > 0 && toks[k - 1].kind == TokenKind::kNumber && !(k > 1 && IsPunct(toks[k - 2], '/')) &&
        text.sentence_of[k] == text.sentence_of[k - 1] && t.norm != "a" && t.norm != "an" && t.norm != "once" &&
        t.norm != "twice" && t.norm != "single") {
      const double* w = rules.number_word_values.find(t.norm, NormHash(t));
      if (w && *w == toks[k - 1].number && *w >= 1) {
        repairs.push_back({Repair::kDropNumeral, k, {}, {}});
        continue;
      }
    }
    bool candidate = t.kind == TokenKind::kWord && t.norm.size() >= 3 && t.letters_only &&
                     (!t.capitalized || t.all_caps || t.line_start) && !terminology.IsKnownWord(t) &&
                     !sig.IsSigWord(t) && !terminology.IsNonRxnormSubstance(t);
    if (!candidate) continue;
    // RepairWord (remembered) leaves nearly every word alone; a drug name is looked for only in
    // a word it would repair.
    SigParser::WordRepair word = sig.RepairWord(t.norm, NormHash(t));
    if (word.respelled.empty() && word.pieces.empty()) continue;
    if (terminology.MatchTokens(toks, k, k + 1)) continue;
    if (!word.respelled.empty()) {
      repairs.push_back({Repair::kRespell, k, std::move(word.respelled), {}});
    } else if (!word.pieces.empty()) {
      added += word.pieces.size() - 1;
      repairs.push_back({Repair::kSplit, k, {}, std::move(word.pieces)});
    }
  }
  if (repairs.empty()) return;

  // 2. Apply them in place, moving the tokens between repairs as whole ranges (a Token is
  // trivially copyable: each range is one memmove). Joins, dropped numerals and respellings only
  // shorten the text, so a forward pass never writes past the token it reads; it leaves a split
  // word whole, and a backward pass then makes room for its pieces. The tokens before the first
  // repair (then before the first split) keep their places. The sentence bounds ascend as the
  // tokens do (each sentence ends where the next begins) and are renumbered in the same walks.
  static_assert(std::is_trivially_copyable_v<Token>);
  std::vector<Token>::iterator base = toks.begin();
  std::vector<uint32_t>::iterator sent = text.sentence_of.begin();
  std::vector<uint32_t>* bounds[2] = {&text.sentence_begin, &text.sentence_end};
  size_t next_bound[2] = {0, 0};
  // Every bound not yet renumbered that is below `below` becomes to(bound).
  auto renumber_up = [&](size_t below, auto to) {
    for (int b = 0; b < 2; ++b) {
      std::vector<uint32_t>& list = *bounds[b];
      for (size_t& i = next_bound[b]; i < list.size() && list[i] < below; ++i) list[i] = static_cast<uint32_t>(to(list[i]));
    }
  };
  const size_t first = repairs.front().k;
  renumber_up(first, [](size_t v) { return v; });
  std::vector<std::pair<size_t, Repair*>> splits;  // where each split word was written
  size_t w = first;    // tokens written
  size_t from = first; // the first token not yet read
  auto copy_to = [&](size_t end) {  // the unrepaired tokens [from, end) to w
    if (w != from) {
      std::move(base + from, base + end, base + w);
      std::move(sent + from, sent + end, sent + w);
    }
    renumber_up(end, [&](size_t v) { return v - from + w; });
    w += end - from;
    from = end;
  };
  for (Repair& repair : repairs) {
    const size_t k = repair.k;
    copy_to(k);
    switch (repair.kind) {
      case Repair::kJoin: {
        const Token& next = toks[k + 1];
        Token joined = toks[k];
        SetWords(joined, std::string(toks[k].norm).append(next.norm), words);
        joined.byte_end = next.byte_end;
        joined.char_end = next.char_end;
        joined.all_caps = joined.all_caps && next.all_caps;
        toks[w] = std::move(joined);
        text.sentence_of[w] = text.sentence_of[k];
        from = k + 2;
        renumber_up(from, [&](size_t) { return w; });  // a bound at the second part: the joined word
        ++w;
        break;
      }
      case Repair::kDropNumeral:
        from = k + 1;
        renumber_up(from, [&](size_t) { return w; });  // the token after it
        break;
      case Repair::kRespell: {
        Token fixed = toks[k];
        SetWords(fixed, repair.respelled, words);
        toks[w] = std::move(fixed);
        text.sentence_of[w] = text.sentence_of[k];
        from = k + 1;
        renumber_up(from, [&](size_t) { return w; });
        ++w;
        break;
      }
      case Repair::kSplit:
        splits.emplace_back(w, &repair);
        copy_to(k + 1);
        break;
    }
  }
  copy_to(toks.size());
  renumber_up(toks.size() + 1, [&](size_t) { return w; });  // the bounds at the end
  const size_t kept = w;
  toks.resize(kept + added);
  text.sentence_of.resize(kept + added);
  if (splits.empty()) return;
  // Backward: the tokens after each split word move up by the pieces added before them; the
  // word's pieces are made from the last, the first one landing at or above the word itself.
  base = toks.begin();
  sent = text.sentence_of.begin();
  size_t bound_above[2] = {text.sentence_begin.size(), text.sentence_end.size()};  // renumbered from here up
  // Every bound not yet renumbered that is at or above `from` becomes to(bound).
  auto renumber_down = [&](size_t from, auto to) {
    for (int b = 0; b < 2; ++b) {
      std::vector<uint32_t>& list = *bounds[b];
      for (size_t& i = bound_above[b]; i > 0 && list[i - 1] >= from; --i) list[i - 1] = static_cast<uint32_t>(to(list[i - 1]));
    }
  };
  size_t src_end = kept, dst_end = kept + added;
  for (size_t s = splits.size(); s-- > 0;) {
    const auto [at, repair] = splits[s];
    const size_t shift = dst_end - src_end;
    std::move_backward(base + at + 1, base + src_end, base + dst_end);
    std::move_backward(sent + at + 1, sent + src_end, sent + dst_end);
    renumber_down(at + 1, [&](size_t v) { return v + shift; });
    dst_end -= src_end - at - 1;
    const Token word = toks[at];
    const uint32_t sentence = text.sentence_of[at];
    size_t offset = 0;
    for (const std::string& p : repair->pieces) offset += p.size();
    for (size_t i = repair->pieces.size(); i-- > 0;) {
      offset -= repair->pieces[i].size();
      toks[--dst_end] = Piece(word, offset, repair->pieces[i], i == 0, words);
      text.sentence_of[dst_end] = sentence;
    }
    renumber_down(at, [&](size_t) { return dst_end; });  // a bound at the word: its first piece
    src_end = at;
  }
}

// ---------------------------------------------------------------- lines and sections

struct Line {
  size_t begin = 0, end = 0;     // tokens
  size_t content = 0;            // first token after a list marker ("-", "*", "1.", "2)")
  bool marker = false;           // written as a list item
  size_t indent = 0;             // bytes of leading white space
  enum Kind : uint8_t { kPlain, kMedList, kAllergy, kInactive, kOther } section = kPlain;
  size_t section_from = 0;       // tokens from here on the line belong to the section
};

// A new line at token k (a line's first token), its indent read from the text.
Line LineAt(const TokenizedText& text, size_t k) {
  Line l;
  l.begin = k;
  size_t b = text.tokens[k].byte_begin;
  size_t ls = text.text.rfind('\n', b == 0 ? 0 : b - 1);
  ls = (ls == std::string_view::npos || b == 0) ? 0 : ls + 1;
  l.indent = b >= ls ? b - ls : 0;
  return l;
}

// The lines ReadLayout found, closed at the last token, with their list markers read.
void MarkLines(std::vector<Line>& lines, const TokenizedText& text) {
  const auto& toks = text.tokens;
  if (!lines.empty()) lines.back().end = toks.size();
  for (Line& l : lines) {
    l.content = l.begin;
    if (l.begin < l.end) {
      const Token& t = toks[l.begin];
      if (IsPunctOf(t, "-*+")) {
        l.marker = true;
        l.content = l.begin + 1;
      } else if (t.kind == TokenKind::kNumber && l.begin + 1 < l.end &&
                 (IsPunct(toks[l.begin + 1], '.') || IsPunct(toks[l.begin + 1], ')'))) {
        l.marker = true;
        l.content = l.begin + 2;
      }
    }
    l.section_from = l.content;
  }
}

// Heading lines open sections: "Medications:", "MEDICATIONS", "- Meds:", "Allergies: penicillin".
void MarkSections(std::vector<Line>& lines, const TokenizedText& text, const WordSet& cue_words) {
  const auto& toks = text.tokens;
  const Binding& b = DefaultBinding();
  std::vector<std::string_view> heading;  // reused line to line
  std::string joined;
  struct Open { bool active = false; Line::Kind kind = Line::kPlain; size_t indent = 0; bool marker = false; };
  Open open;
  for (Line& l : lines) {
    if (l.begin < l.end && toks[l.begin].blank_line_before) open.active = false;
    // a heading: up to five words (joined by "/", "&", "-"), then ":" or the end of the line
    size_t k = l.content, words = 0;
    heading.clear();
    bool all_caps = true;
    while (k < l.end && words <= 5) {
      const Token& t = toks[k];
      if (t.kind == TokenKind::kWord) {
        heading.push_back(t.norm);
        all_caps = all_caps && t.all_caps;
        ++words;
      } else if (!IsPunctOf(t, "/&-")) {
        break;
      }
      ++k;
    }
    bool colon = k < l.end && IsPunct(toks[k], ':') && words >= 1 && words <= 5;
    bool alone = k == l.end && words >= 1 && words <= 4;
    if (colon || alone) {  // else no heading, whatever its words
      joined.clear();
      for (std::string_view w : heading) {
        if (!joined.empty()) joined += ' ';
        joined += w;
      }
      bool med = b.med_heading_names.contains(joined);
      bool allergy = std::any_of(heading.begin(), heading.end(), [&](std::string_view w) { return cue_words.contains(w); });
      bool inactive = std::any_of(heading.begin(), heading.end(), [&](std::string_view w) { return b.inactive_heading_words.contains(w); });
      bool is_heading = colon || (alone && (all_caps || med || (allergy && words <= 3)));
      if (is_heading) {
        Line::Kind kind = allergy && words <= 3 ? Line::kAllergy : inactive ? Line::kInactive : med ? Line::kMedList : Line::kOther;
        open = Open{true, kind, l.indent, l.marker};
        l.section = kind;
        l.section_from = colon ? k + 1 : l.end;
        continue;
      }
    }
    if (open.active && open.marker && l.indent <= open.indent) open.active = false;
    if (open.active) l.section = open.kind;
  }
}

// ---------------------------------------------------------------- parentheses, and the layout pass

// Token indices fit 32 bits (a token's byte offsets do): half the memory of size_t to fill.
struct Parens {
  static constexpr uint32_t kOutside = UINT32_MAX;
  std::vector<uint32_t> open_of;  // token -> the "(" of its innermost parenthetical, or kOutside
  std::vector<uint32_t> close_of; // "(" token -> its ")" (or the sentence end)
  // The "(" of token k's innermost parenthetical, or kNone (also past the last token).
  size_t Open(size_t k) const { return k < open_of.size() && open_of[k] != kOutside ? open_of[k] : kNone; }
  size_t Close(size_t open) const { return close_of[open]; }
};

// One pass over the tokens for the text's layout: its lines (MarkLines then reads their markers),
// its parentheticals, and the tokens where an allergy cue may start.
void ReadLayout(const TokenizedText& text, const PhraseMatcher& cues, std::vector<Line>& lines, Parens& p,
                std::vector<uint32_t>& cue_starts) {
  const auto& toks = text.tokens;
  const size_t n = toks.size();  // read once: the loop's calls and stores would have it read again
  p.open_of.assign(n, Parens::kOutside);
  p.close_of.assign(n, Parens::kOutside);
  std::vector<uint32_t> stack;
  uint32_t inside = Parens::kOutside;  // stack.back(), or kOutside
  for (size_t k = 0; k < n; ++k) {
    const uint32_t at = static_cast<uint32_t>(k);
    const Token& t = toks[k];
    if (k == 0 || t.line_start) {
      if (!lines.empty()) lines.back().end = k;
      lines.push_back(LineAt(text, k));
    }
    if (cues.MayStartAt(t)) cue_starts.push_back(at);
    if (!stack.empty() && text.sentence_of[k] != text.sentence_of[k - 1]) {  // a sentence closes them all
      for (uint32_t o : stack) p.close_of[o] = at;
      stack.clear();
      inside = Parens::kOutside;
    }
    if (t.kind == TokenKind::kPunct && t.norm.size() == 1) {
      if (t.norm[0] == ')' && inside != Parens::kOutside) {
        p.close_of[inside] = at;
        stack.pop_back();
        inside = stack.empty() ? Parens::kOutside : stack.back();
        p.open_of[k] = inside;
        continue;
      }
      if (t.norm[0] == '(') {
        p.open_of[k] = inside;
        stack.push_back(at);
        inside = at;
        continue;
      }
    }
    p.open_of[k] = inside;
  }
  for (uint32_t o : stack) p.close_of[o] = static_cast<uint32_t>(n);
  MarkLines(lines, text);
}

}  // namespace

// ---------------------------------------------------------------- AnalyzeText

AnalyzedText AnalyzeText(std::string_view input, const Rules& rules, const Terminology& terminology,
                         const AssertionAnalyzer& assertion, Reading reading) {
  AnalyzedText out;
  SigParser sig(rules);
  const Binding& binding = DefaultBinding();
  out.text = Analyze(input, rules.assertion.abbreviations, &terminology.known_words());
  RepairSigWords(out.text, rules, sig, terminology);
  const auto& toks = out.text.tokens;

  // 1. Mentions: longest terminology match, else a phantom (unknown word + dose). A lone sig
  //    abbreviation ("inh", "po") in lower case or right after a dose is sig, not a drug name.
  // Found first as token ranges, then made into mentions (several hundred bytes each) in a
  // vector of their number: no mention is moved by its vector growing.
  struct Hit {
    size_t begin, end;
    std::optional<TermMatch> match;  // none: a phantom
  };
  std::vector<Hit> hits;
  for (size_t k = 0, count = toks.size(); k < count;) {
    size_t sentence_end = out.text.sentence_end[out.text.sentence_of[k]];
    size_t sentence_begin = out.text.sentence_begin[out.text.sentence_of[k]];
    if (toks[k].kind != TokenKind::kWord) { ++k; continue; }
    auto match = terminology.MatchTokens(toks, k, sentence_end);
    if (match && match->token_count == 1 && sig.IsSigAbbreviation(toks, k)) {
      bool sig_position = k > sentence_begin && (toks[k - 1].kind == TokenKind::kNumber || sig.IsSigAbbreviation(toks, k - 1));
      if (!toks[k].all_caps || sig_position) { ++k; continue; }
    }
    if (match && IsMeasurement(toks, k, k + match->token_count, sentence_begin, sentence_end, rules, sig)) {
      k += match->token_count;
      continue;
    }
    if (!match) {
      // the dose may follow directly, or after one short formulation word ("Zyntrafex XR 20 mg");
      // without a number there, the word is no phantom whatever it is (looked up only then)
      size_t n = k + 1;
      if (n < sentence_end && toks[n].kind == TokenKind::kWord && toks[n].all_caps && toks[n].norm.size() <= 3) ++n;
      if (!(n + 1 < sentence_end && toks[n].kind == TokenKind::kNumber)) { ++k; continue; }
      if (!PhantomCandidate(toks[k], terminology)) { ++k; continue; }
      auto unit = rules.unit_matcher.MatchAt(toks, n + 1, sentence_end);
      if (!unit || rules.units[unit->id].family == "count") { ++k; continue; }
    }
    const size_t end = match ? k + match->token_count : k + 1;
    hits.push_back(Hit{k, end, match});
    k = end;
  }
  std::vector<DrugMention> found(hits.size());
  for (size_t i = 0; i < hits.size(); ++i) {
    const Hit& hit = hits[i];
    DrugMention& m = found[i];
    m.tok_begin = hit.begin;
    m.tok_end = hit.end;
    if (hit.match) {
      m.match = hit.match;
      const Concept& c = terminology.concept_at(hit.match->concept_id);
      m.drug = terminology.IngredientNames(hit.match->concept_id);
      m.key = terminology.IngredientKey(hit.match->concept_id);
      for (const std::string& r : c.ingredients) m.rxcui += (m.rxcui.empty() ? "" : " / ") + r;
      m.matched_name = c.name;
      m.drug_class = c.drug_class;
      m.salt = terminology.SaltOf(hit.match->concept_id);
    } else {
      m.phantom = true;
      m.key = Cat({kPhantomKeyPrefix, toks[hit.begin].norm});
    }
    m.char_begin = toks[m.tok_begin].char_begin;
    m.char_end = toks[m.tok_end - 1].char_end;
    m.mention = std::string(input.substr(toks[m.tok_begin].byte_begin,
                                         toks[m.tok_end - 1].byte_end - toks[m.tok_begin].byte_begin));
  }

  // Assertion scopes and clauses: a mention reads them in its own sentence only (its assertion,
  // the clause of its actions, PRN and allergy cues), so for the drugs alone the sentences
  // without a mention are left unread.
  std::vector<uint32_t> clause;
  if (reading == Reading::kDrugs) {
    std::vector<uint8_t> with_mention(out.text.sentence_begin.size(), 0);
    for (const DrugMention& m : found) with_mention[out.text.sentence_of[m.tok_begin]] = 1;
    out.assertion_bits = assertion.Analyze(out.text, &clause, nullptr, &with_mention);
  } else {
    out.assertion_bits = assertion.Analyze(out.text, &clause);
  }

  // 2. Structure: lines and their sections, parentheticals, allergy cues.
  const AllergyVocabulary& allergy = AllergyCues(rules);
  std::vector<Line> lines;
  Parens parens;
  std::vector<uint32_t> cue_starts;
  ReadLayout(out.text, allergy.cues, lines, parens, cue_starts);
  MarkSections(lines, out.text, allergy.cue_words);
  // The line of token k: the last line to begin at or before it (the lines cover the tokens).
  auto line_of = [&](size_t k) -> const Line& {
    return *(std::upper_bound(lines.begin(), lines.end(), k, [](size_t k, const Line& l) { return k < l.begin; }) - 1);
  };
  auto open_of = [&](size_t k) { return parens.Open(k); };
  std::vector<PatternMatch> cues = allergy.cues.FindAll(toks, 0, toks.size(), cue_starts);
  std::vector<char> in_mention(toks.size(), 0);
  for (const DrugMention& m : found)
    for (size_t k = m.tok_begin; k < m.tok_end; ++k) in_mention[k] = 1;

  auto cue_inside = [&](size_t open) {
    for (const PatternMatch& c : cues)
      if (c.begin > open && c.begin < parens.Close(open)) return true;
    return false;
  };
  auto glue_only = [&](size_t b, size_t e, size_t own_group) {
    for (size_t k = b; k < e; ++k) {
      if (in_mention[k]) continue;
      size_t g = open_of(k);
      if (g != own_group || IsPunct(toks[k], '(') || IsPunct(toks[k], ')')) continue;  // a parenthetical ("(hives)")
      if (!binding.glue.contains(toks[k].norm, NormHash(toks[k]))) return false;
    }
    return true;
  };
  auto allergy_context = [&](const DrugMention& m) {
    const Line& l = line_of(m.tok_begin);
    if (l.section == Line::kAllergy && m.tok_begin >= l.section_from) return true;
    size_t g = open_of(m.tok_begin);
    if (g != kNone && cue_inside(g)) return true;
    if (m.tok_end < toks.size() && IsPunct(toks[m.tok_end], '(') && cue_inside(m.tok_end)) return true;
    for (const PatternMatch& c : cues) {
      if (open_of(c.begin) != g || out.text.sentence_of[c.begin] != out.text.sentence_of[m.tok_begin]) continue;
      if (clause[c.begin] != clause[m.tok_begin]) continue;
      if (c.begin >= m.tok_end && glue_only(m.tok_end, c.begin, g)) return true;
      if (c.end <= m.tok_begin && glue_only(c.end, m.tok_begin, g)) return true;
    }
    return false;
  };

  // 3. Class names ("PCN", "sulfa", "NSAIDs") are mentions only in an allergy context; a class
  //    name written with a dose names the class's prescribed member ("penicillin 500 mg").
  //    The kept mentions close up in place, moved only after one that is dropped.
  size_t kept = 0;
  auto keep = [&](DrugMention& m) {
    if (&m != &found[kept]) found[kept] = std::move(m);
    ++kept;
  };
  for (DrugMention& m : found) {
    m.in_allergy_context = allergy_context(m);
    m.in_parenthetical = open_of(m.tok_begin) != kNone;
    if (m.drug_class.empty() || m.in_allergy_context) {
      keep(m);
      continue;
    }
    const AllergenClass* cls = terminology.FindClass(m.drug_class);
    bool dosed = m.tok_end < toks.size() && toks[m.tok_end].kind == TokenKind::kNumber;
    if (cls && !cls->prescribed_as.empty() && dosed) {
      m.key = cls->prescribed_as;
      m.rxcui = cls->prescribed_as;
      const IngredientInfo* info = terminology.Ingredient(cls->prescribed_as);
      m.drug = info ? info->name : cls->prescribed_as;
      m.drug_class.clear();
      keep(m);
    }
  }
  found.erase(found.begin() + static_cast<std::ptrdiff_t>(kept), found.end());
  out.drugs = std::move(found);

  // 4. Attributes from the windows around each mention.
  auto& drugs = out.drugs;
  const size_t n = drugs.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    const DrugMention& a = drugs[i];
    const DrugMention& g = drugs[i + 1];
    if (a.tok_end < toks.size() && IsPunct(toks[a.tok_end], '(') && g.tok_begin == a.tok_end + 1 &&
        g.tok_end < toks.size() && IsPunct(toks[g.tok_end], ')') && !a.gloss)
      drugs[i + 1].gloss = true;
  }
  enum class Where : uint8_t { kNone, kBefore, kAfter };
  std::vector<Where> where(n, Where::kNone);
  std::vector<size_t> action_at(n, kNone);
  auto coordinated = [&](size_t b, size_t e) {
    if (ContainsPhrase(toks, b, e, binding.coordinators)) return true;
    return false;
  };
  size_t previous = kNone;  // the previous mention that is not a gloss
  for (size_t i = 0; i < n; ++i) {
    DrugMention& m = drugs[i];
    if (m.gloss) continue;
    uint32_t s = out.text.sentence_of[m.tok_begin];
    size_t sb = out.text.sentence_begin[s], se = out.text.sentence_end[s];
    size_t group = open_of(m.tok_begin);
    size_t lo = sb, hi = se;
    if (group != kNone) {
      lo = group + 1;
      hi = std::min(se, parens.Close(group));
    }
    size_t fwd_end = hi;
    for (size_t j = i + 1; j < n; ++j) {
      if (drugs[j].gloss && j == i + 1) continue;
      if (drugs[j].tok_begin < fwd_end) fwd_end = drugs[j].tok_begin;
      size_t jg = open_of(drugs[j].tok_begin);
      if (jg != kNone && jg != group && jg >= m.tok_end && jg < fwd_end) fwd_end = jg;
      break;
    }
    size_t bwd_begin = lo;
    if (i > 0 && drugs[i - 1].tok_end > bwd_begin && drugs[i - 1].tok_end <= m.tok_begin) bwd_begin = drugs[i - 1].tok_end;
    size_t list_begin = bwd_begin;  // after the last list separator ("and" in "one and a half" is none)
    for (size_t k = m.tok_begin; k > bwd_begin; --k)
      if (IsSeparator(toks[k - 1]) && !InQuantity(toks, k - 1, rules)) { list_begin = k; break; }

    Sig reading = sig.ReadSig(toks, list_begin, m.tok_begin, m.tok_end, fwd_end, input);
    m.doses = std::move(reading.doses);
    m.dose = std::move(reading.dose);
    m.frequency = std::move(reading.frequency);
    m.route = std::move(reading.route);
    // PRN anywhere earlier in the drug's clause when no other drug stands between
    // ("As needed for pain, ibuprofen 400 mg q6h").
    if (!m.frequency.prn && bwd_begin == sb) {
      size_t clause_begin = m.tok_begin;
      while (clause_begin > sb && clause[clause_begin - 1] == clause[m.tok_begin]) --clause_begin;
      if (sig.FindFrequency(toks, clause_begin, m.tok_begin, input).prn) m.frequency.prn = true;
    }

    // Actions are read within the drug's clause: "Lisinopril 20 mg daily; the cough began soon
    // after it was started. Discontinued today." is not a start.
    size_t act_begin = list_begin, act_end = fwd_end;
    while (act_begin < m.tok_begin && clause[act_begin] != clause[m.tok_begin]) ++act_begin;
    for (size_t k = m.tok_end; k < act_end; ++k)
      if (clause[k] != clause[m.tok_end - 1]) { act_end = k; break; }
    if (auto a = sig.FindActionBefore(toks, act_begin, m.tok_begin)) {
      m.action = a->action;
      where[i] = Where::kBefore;
      action_at[i] = a->begin;
    } else if (auto b = sig.FindActionAfter(toks, m.tok_end, act_end)) {
      m.action = b->action;
      where[i] = Where::kAfter;
      action_at[i] = b->begin;
    } else if (previous != kNone && where[previous] == Where::kBefore && drugs[previous].action &&
               out.text.sentence_of[drugs[previous].tok_begin] == s && !m.in_allergy_context &&
               open_of(drugs[previous].tok_begin) == group && coordinated(drugs[previous].tok_end, m.tok_begin)) {
      // "Continue sertraline, metformin and lisinopril": a list shares its leading verb — not
      // into a parenthetical or an allergy context ("Start doxycycline … (amoxicillin allergy)").
      m.action = drugs[previous].action;
      where[i] = Where::kBefore;
      action_at[i] = action_at[previous];
    }
    previous = i;
    m.assertion = AssertionAnalyzer::Resolve(out.assertion_bits, m.tok_begin, m.tok_end);
  }

  // "carvedilol 12.5 mg BID and lisinopril 10 mg daily continued": coordinated drugs share a
  // trailing action, unless a singular verb makes it the last drug's ("… and lisinopril was stopped").
  size_t next = kNone;
  for (size_t i = n; i-- > 0;) {
    DrugMention& m = drugs[i];
    if (m.gloss) continue;
    if (next != kNone && !m.action && !m.in_allergy_context && where[next] == Where::kAfter) {
      const DrugMention& j = drugs[next];
      size_t at = action_at[next];
      bool same = out.text.sentence_of[j.tok_begin] == out.text.sentence_of[m.tok_begin] && clause[at] == clause[m.tok_begin] &&
                  open_of(m.tok_begin) == open_of(j.tok_begin) && coordinated(m.tok_end, j.tok_begin) &&
                  !ContainsPhrase(toks, j.tok_end, at, binding.singular_verbs);
      if (same) {
        m.action = j.action;
        where[i] = Where::kAfter;
        action_at[i] = at;
      }
    }
    next = i;
  }

  // A gloss "(Advil)" shares the reading of the name it glosses.
  for (size_t i = 1; i < n; ++i) {
    DrugMention& g = drugs[i];
    if (!g.gloss) continue;
    const DrugMention& head = drugs[i - 1];
    g.doses = head.doses;
    g.dose = head.dose;
    g.frequency = head.frequency;
    g.route = head.route;
    g.action = head.action;
    g.in_allergy_context = g.in_allergy_context || head.in_allergy_context;
    g.assertion = AssertionAnalyzer::Resolve(out.assertion_bits, g.tok_begin, g.tok_end);
  }

  // 5. Medication-list lines: under a medication heading, or a list item that is just one drug
  //    and its sig.
  auto sig_only_line = [&](const Line& l, const DrugMention& m, size_t index) {
    if (!l.marker || m.tok_begin != l.content) return false;
    std::vector<char> covered(toks.size(), 0);
    for (size_t j = 0; j < n; ++j) {
      const DrugMention& d = drugs[j];
      if (d.tok_begin < l.begin || d.tok_begin >= l.end) continue;
      if (j != index && !(d.gloss && j == index + 1)) return false;  // another drug on the line
      for (size_t k = d.tok_begin; k < d.tok_end; ++k) covered[k] = 1;
    }
    for (const Dose& d : m.doses)
      for (size_t k = d.begin; k < d.end && k < toks.size(); ++k) covered[k] = 1;
    for (const PhraseMatcher* pm : {&rules.frequency_matcher, &rules.route_matcher})
      for (const PatternMatch& hit : pm->FindAll(toks, l.content, l.end))
        for (size_t k = hit.begin; k < hit.end; ++k) covered[k] = 1;
    for (size_t k = l.content; k < l.end; ++k)
      for (const Words& p : binding.sig_line_phrases)
        if (size_t len = PhraseAt(toks, k, l.end, p))
          for (size_t q = k; q < k + len; ++q) covered[q] = 1;
    size_t end = l.end;
    while (end > l.content && toks[end - 1].kind == TokenKind::kPunct) --end;
    // an indication at the end: "as needed for anxiety"
    for (size_t k = end; k-- > l.content && end - k <= binding.max_indication_words + 1;)
      if (toks[k].kind == TokenKind::kWord && toks[k].norm == "for" && !covered[k]) {
        end = k;
        break;
      }
    for (size_t k = l.content; k < end; ++k) {
      if (covered[k] || toks[k].kind != TokenKind::kWord) continue;
      if (!binding.sig_line_words.contains(toks[k].norm, NormHash(toks[k])) && !sig.IsDoseVerb(toks[k])) return false;
    }
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    DrugMention& m = drugs[i];
    if (m.in_allergy_context) continue;
    const Line& l = line_of(m.tok_begin);
    if (l.section == Line::kAllergy || l.section == Line::kInactive) continue;
    if (l.section == Line::kMedList && m.tok_begin >= l.section_from) m.on_med_list = true;
    else if (sig_only_line(l, m.gloss ? drugs[i - 1] : m, m.gloss ? i - 1 : i)) m.on_med_list = true;
  }
  return out;
}

AnalyzedText AnalyzeText(std::string_view text) {
  return AnalyzeText(text, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer());
}

std::vector<DrugMention> ExtractDrugs(std::string_view text) {
  return AnalyzeText(text, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer(), Reading::kDrugs).drugs;
}

Sig ReadWholeSig(std::string_view text, const Rules& rules, const Terminology& terminology) {
  SigParser sig(rules);
  TokenizedText t = Analyze(text, rules.assertion.abbreviations);
  RepairSigWords(t, rules, sig, terminology);
  return sig.ReadSig(t.tokens, 0, 0, 0, t.tokens.size(), text);
}

Sig ReadWholeSig(std::string_view text) { return ReadWholeSig(text, DefaultRules(), DefaultTerminology()); }

}  // namespace scribe
