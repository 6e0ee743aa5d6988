// claims.cpp — claim finding and support checking (see claims.h and corpus/rules/claims.yaml).
#include "claims.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "embedded.h"

namespace scribe {
namespace {

using Section = ClaimRules::Section;

constexpr double kPoundsPerKilogram = 2.20462;
constexpr size_t kMaxValueLinks = 4;         // "BP today was 132/78": words between a name and its value
constexpr size_t kNumberWindowBefore = 15;   // tokens before an encounter mention searched for its numbers
constexpr size_t kNumberWindowAfter = 40;    // ... and after it
constexpr size_t kNumberSentencesAfter = 2;  // ... within its sentence and the next two
constexpr size_t kMaxHeadingWords = 7;
constexpr size_t kQuestionWords = 20;   // words before a "?" that a denying answer denies
constexpr size_t kNearTrigger = 5;      // encounter: a negation trigger this near before a mention negates it
constexpr size_t kNearPostTrigger = 3;  // ... or a post-negation this near after it
constexpr size_t kEvidenceChars = 200;
constexpr size_t kMergeGap = 3;    // exam findings of one system this close are one claim
constexpr size_t kPendingGap = 6;  // a finding before its body part: "tender over the right lumbar muscles"

// ---------------------------------------------------------------- loading

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw std::runtime_error("claims.yaml: " + where + ": " + what);
}

std::vector<std::string> List(const YAML::Node& node, const std::string& where) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) Bad(where, "expected a list");
  for (const auto& item : node) {
    if (!item.IsScalar()) Bad(where, "expected a list of phrases");
    out.push_back(item.as<std::string>());
  }
  return out;
}

YAML::Node Required(const YAML::Node& node, const std::string& key, const std::string& where) {
  YAML::Node n = node[key];
  if (!n) Bad(where, "missing '" + key + "'");
  return n;
}

void AddAll(PhraseMatcher& m, const std::vector<std::string>& phrases, int id) {
  for (const std::string& p : phrases) m.Add(p, id);
}

ClaimClass ClassByName(const std::string& name) {
  for (size_t i = 0; i < kClaimClassCount; ++i)
    if (ClaimClassName(static_cast<ClaimClass>(i)) == name) return static_cast<ClaimClass>(i);
  Bad("classes", "unknown class '" + name + "'");
}

// ---------------------------------------------------------------- reading a text

std::string Slice(const AnalyzedText& a, size_t begin, size_t end) {
  const auto& toks = a.text.tokens;
  if (begin >= end || end > toks.size()) return {};
  return std::string(a.text.text.substr(toks[begin].byte_begin, toks[end - 1].byte_end - toks[begin].byte_begin));
}

// A text's structure as the claim passes need it: clauses, sections, headings, denied questions.
class Reader {
 public:
  Reader(const ClaimFinder& finder, const AnalyzedText& a, bool encounter)
      : r_(finder.rules()),
        a_(a),
        toks_(a.text.tokens),
        encounter_(encounter),
        group_(finder.starts()),
        starts_(group_.Find(toks_)),
        used_(toks_.size(), false),
        drug_at_(toks_.size(), -1) {
    const TokenizedText& t = a.text;
    size_t n = toks_.size();
    // clauses: a sentence split at the clause breaks
    clause_.assign(n, 0);
    uint32_t clause = 0;
    // the breaks' starts, in text order (matches never overlap): a new clause at each but the
    // first token of a sentence
    const std::vector<PatternMatch> breaks = r_.clause_breaks.FindAllInSentences(t, starts_.Of(r_.clause_breaks));
    auto next_break = breaks.cbegin();
    for (size_t s = 0; s < t.sentence_begin.size(); ++s) {
      size_t sb = t.sentence_begin[s], se = t.sentence_end[s];
      if (sb >= se) continue;
      ++clause;
      clause_begin_.resize(clause + 1, 0);
      clause_begin_[clause] = static_cast<uint32_t>(sb);
      for (size_t k = sb; k < se; ++k) {
        while (next_break != breaks.cend() && next_break->begin < k) ++next_break;
        if (k > sb && next_break != breaks.cend() && next_break->begin == k) {
          ++clause;
          clause_begin_.resize(clause + 1, 0);
          clause_begin_[clause] = static_cast<uint32_t>(k);
        }
        clause_[k] = clause;
      }
    }
    clause_end_.assign(clause_begin_.size(), 0);
    for (size_t k = 0; k < n; ++k) clause_end_[clause_[k]] = static_cast<uint32_t>(k + 1);
    for (size_t i = 0; i < a.drugs.size(); ++i)
      for (size_t k = a.drugs[i].tok_begin; k < a.drugs[i].tok_end && k < n; ++k) drug_at_[k] = static_cast<int>(i);
    if (encounter_)
      FindDeniedQuestions();
    else
      FindSections();
  }

  const ClaimRules& r_;
  const AnalyzedText& a_;
  const std::vector<Token>& toks_;
  const bool encounter_;
  const MatcherStarts& group_;
  const MatcherStarts::Found starts_;  // where each matcher of group_ may start
  std::vector<uint32_t> clause_, clause_begin_, clause_end_;
  std::vector<Section> section_;     // note: the section of each token
  std::vector<int> heading_system_;  // note: the exam system heading above each token (-1: none)
  std::vector<bool> in_heading_;     // note: words of a "Heading:" at the start of a line
  std::vector<bool> denied_;         // encounter: tokens of a question the next turn denies
  std::vector<bool> used_;           // tokens a claim of an earlier pass took
  std::vector<int> drug_at_;         // the drug mention covering a token (-1: none)

  struct Hits {
    std::vector<PatternMatch> list;  // in text order: their starts ascend (matches never overlap)
  };
  mutable std::unordered_map<const PhraseMatcher*, Hits> hits_;
  const Hits& HitsOf(const PhraseMatcher& m) const {
    auto it = hits_.find(&m);
    if (it != hits_.end()) return it->second;
    return hits_.emplace(&m, Hits{FindAll(m, false)}).first->second;
  }

  size_t Size() const { return toks_.size(); }
  uint32_t SentenceOf(size_t k) const { return a_.text.sentence_of[k]; }
  size_t SentenceBegin(size_t k) const { return a_.text.sentence_begin[SentenceOf(k)]; }
  size_t SentenceEnd(size_t k) const { return a_.text.sentence_end[SentenceOf(k)]; }
  size_t ClauseBegin(size_t k) const { return clause_begin_[clause_[k]]; }
  size_t ClauseEnd(size_t k) const { return clause_end_[clause_[k]]; }
  Assertion AssertionOf(size_t b, size_t e) const { return AssertionAnalyzer::Resolve(a_.assertion_bits, b, e); }
  bool Denied(size_t k) const { return encounter_ && denied_[k]; }
  Section SectionAt(size_t k) const { return encounter_ ? Section::kNone : section_[k]; }
  int HeadingSystemAt(size_t k) const { return encounter_ ? -1 : heading_system_[k]; }
  bool InHeading(size_t k) const { return !encounter_ && in_heading_[k]; }
  // A negation trigger just before a mention, or a post-negation just after it ("x-ray negative").
  bool TriggerNear(size_t b, size_t e) const {
    for (size_t k = b > kNearTrigger ? b - kNearTrigger : 0; k < b; ++k)
      if (a_.assertion_bits[k] & kBitTrigger) return true;
    for (size_t k = e; k < std::min(Size(), e + kNearPostTrigger); ++k)
      if (r_.negation_post.MatchAt(toks_, k, Size())) return true;
    return false;
  }
  bool AnyUsed(size_t b, size_t e) const {
    for (size_t k = b; k < e; ++k)
      if (used_[k]) return true;
    return false;
  }
  void Use(size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) used_[k] = true;
  }
  // Every match of a matcher, sentence by sentence, skipping matches on used tokens when asked.
  std::vector<PatternMatch> FindAll(const PhraseMatcher& m, bool skip_used) const {
    std::vector<PatternMatch> out =
        starts_.Covers(m) ? m.FindAllInSentences(a_.text, starts_.Of(m)) : m.FindAllInSentences(a_.text);
    if (skip_used)
      out.erase(std::remove_if(out.begin(), out.end(), [&](const PatternMatch& p) { return AnyUsed(p.begin, p.end); }),
                out.end());
    return out;
  }
  // Matches of a matcher that start in [b, e): every matcher is run over the text once, so a
  // clause-by-clause question costs O(log n), whatever the size of the text.
  bool AnyIn(const PhraseMatcher& m, size_t b, size_t e) const { return e > b && FirstIn(m, b, e).has_value(); }
  // The first and the last match starting in [b, e).
  std::optional<PatternMatch> FirstIn(const PhraseMatcher& m, size_t b, size_t e) const {
    const Hits& h = HitsOf(m);
    auto it =
        std::lower_bound(h.list.begin(), h.list.end(), b, [](const PatternMatch& p, size_t k) { return p.begin < k; });
    if (it == h.list.end() || it->begin >= e) return std::nullopt;
    return *it;
  }
  std::optional<PatternMatch> LastIn(const PhraseMatcher& m, size_t b, size_t e) const {
    const Hits& h = HitsOf(m);
    auto it =
        std::lower_bound(h.list.begin(), h.list.end(), e, [](const PatternMatch& p, size_t k) { return p.begin < k; });
    if (it == h.list.begin() || std::prev(it)->begin < b) return std::nullopt;
    return *std::prev(it);
  }

  // Numbers said near an encounter mention: digits and spoken numbers, same and next sentence.
  std::vector<double> NumbersNear(size_t b, size_t e) const {
    size_t from = std::max(SentenceBegin(b), b > kNumberWindowBefore ? b - kNumberWindowBefore : 0);
    size_t s = std::min<size_t>(SentenceOf(b) + kNumberSentencesAfter, a_.text.sentence_end.size() - 1);
    size_t to = a_.text.sentence_end[s];
    to = std::min(to, e + kNumberWindowAfter);
    return SaidNumbers(from, std::min(to, Size()));
  }

  std::vector<double> SaidNumbers(size_t b, size_t e) const {
    std::vector<double> out;
    auto word_value = [&](size_t k) -> std::optional<double> {
      if (toks_[k].kind != TokenKind::kWord) return std::nullopt;
      auto it = r_.number_words.find(toks_[k].norm);
      if (it == r_.number_words.end()) return std::nullopt;
      return it->second;
    };
    for (size_t k = b; k < e;) {
      if (toks_[k].kind == TokenKind::kNumber) {
        out.push_back(toks_[k].number);
        ++k;
        continue;
      }
      std::vector<double> run, decimals;
      bool point = false;
      size_t j = k;
      while (j < e) {
        const Token& t = toks_[j];
        if (!run.empty() && (IsPunct(t, '-') || (t.kind == TokenKind::kWord && t.norm == "and"))) {
          ++j;
          continue;
        }
        if (!run.empty() && t.kind == TokenKind::kWord && t.norm == "point") {
          point = true;
          ++j;
          continue;
        }
        auto v = word_value(j);
        if (!v) break;
        (point ? decimals : run).push_back(*v);
        ++j;
      }
      if (run.empty()) {
        ++k;
        continue;
      }
      double fraction = 0, scale = 0.1;
      for (double d : decimals) {
        fraction += d * scale;
        scale /= 10;
      }
      // "one hundred thirty eight" = 138; "ninety eight point six" = 98.6
      double total = 0;
      for (double v : run) total = v == 100 ? (total == 0 ? 1 : total) * 100 : total + v;
      out.push_back(total + fraction);
      // "one thirty eight" = 138, "one oh five" = 105: a digit, then two more read as a number
      if (run.size() >= 2 && run[0] >= 1 && run[0] <= 9 && run[1] != 100) {
        double rest = 0;
        for (size_t i = 1; i < run.size(); ++i) rest += run[i];
        if (rest < 100) out.push_back(run[0] * 100 + rest + fraction);
      }
      for (double v : run) out.push_back(v);
      // a transcript's "seven . four" is 7.4
      if (j + 1 < e && IsPunct(toks_[j], '.') && decimals.empty()) {
        auto d = word_value(j + 1);
        if (d && *d < 10) out.push_back(total + *d / 10);
      }
      k = j;
    }
    return out;
  }

 private:
  // Note headings: "HPI:", "OBJECTIVE", "- Exam:", "\"subjective\":", "Cardiovascular" (a system).
  void FindSections() {
    size_t n = Size();
    section_.assign(n, Section::kNone);
    heading_system_.assign(n, -1);
    in_heading_.assign(n, false);
    Section section = Section::kNone;
    int system = -1;
    for (size_t k = 0; k < n; ++k) {
      if (toks_[k].line_start) {
        if (toks_[k].blank_line_before) system = -1;
        size_t e = k + 1;
        while (e < n && !toks_[e].line_start) ++e;
        ReadHeading(k, e, section, system);
      }
      section_[k] = section;
      heading_system_[k] = system;
    }
  }

  void ReadHeading(size_t b, size_t e, Section& section, int& system) {
    while (b < e && toks_[b].kind == TokenKind::kPunct) ++b;
    if (b >= e) return;
    size_t colon = e;
    for (size_t k = b; k < e && k < b + kMaxHeadingWords + 2; ++k)
      if (IsPunct(toks_[k], ':')) {
        colon = k;
        break;
      }
    std::vector<size_t> words;
    std::string phrase;  // folded words, with "/" ("assessment / plan")
    auto add = [&](size_t k) {
      if (!phrase.empty()) phrase += ' ';
      phrase += toks_[k].kind == TokenKind::kWord ? toks_[k].folded : toks_[k].norm;
    };
    if (colon < e) {
      for (size_t k = b; k < colon; ++k) {
        if (toks_[k].kind == TokenKind::kWord) words.push_back(k);
        if (toks_[k].kind == TokenKind::kWord || IsPunct(toks_[k], '/')) add(k);
        in_heading_[k] = true;
      }
    } else {
      // a line of its own: all capitals, a section name ("Objective") or a body system ("Cardiovascular")
      bool all_caps = true;
      for (size_t k = b; k < e; ++k) {
        if (toks_[k].kind == TokenKind::kPunct &&
            (toks_[k].norm == "." || toks_[k].norm == "/" || toks_[k].norm == "&")) {
          if (toks_[k].norm == "/") add(k);
          continue;
        }
        if (toks_[k].kind != TokenKind::kWord) return;
        all_caps = all_caps && toks_[k].all_caps;
        words.push_back(k);
        add(k);
      }
      if (!all_caps && !r_.sections.count(phrase)) {  // the whole line names a system
        auto m = r_.exam_targets.MatchAt(toks_, b, e);
        if (!m || m->end < e - (IsPunct(toks_[e - 1], '.') ? 1 : 0)) return;
      }
    }
    if (words.empty() || words.size() > kMaxHeadingWords) return;
    if (auto it = r_.sections.find(phrase); it != r_.sections.end()) {
      section = it->second;
      system = -1;
      return;
    }
    size_t limit = colon < e ? colon : e;
    // a system heading, or one that names a system ("Neurological/Psychological:", "- Right knee:")
    for (size_t k : words)
      if (auto m = r_.exam_targets.MatchAt(toks_, k, limit)) {
        system = m->id;
        break;
      }
  }

  // A question whose answer (the next turn) starts with a denial: "Have you ever been
  // hospitalized?" / "No, never." Only the question itself is denied: the last words before the
  // "?" within its sentence (a transcript without full stops runs a whole turn into one sentence).
  void FindDeniedQuestions() {
    const TokenizedText& t = a_.text;
    size_t sentences = t.sentence_begin.size();
    denied_.assign(Size(), false);
    std::vector<size_t> questions;  // question sentences of the current turn
    for (size_t s = 0; s < sentences; ++s) {
      size_t sb = t.sentence_begin[s], se = t.sentence_end[s];
      if (sb >= se) continue;
      if (toks_[sb].line_start) {
        if (!questions.empty()) {
          size_t k = AnswerStart(sb, se);
          if (k < se && r_.denial_answers.MatchAt(toks_, k, se))
            for (size_t q : questions) {
              size_t qb = t.sentence_begin[q], qe = t.sentence_end[q];
              for (size_t j = std::max(qb, qe > kQuestionWords ? qe - kQuestionWords : 0); j < qe; ++j)
                denied_[j] = true;
            }
        }
        questions.clear();
      }
      if (IsPunct(toks_[se - 1], '?')) questions.push_back(s);
    }
  }

  // The first token after a speaker label ("Patient:", "[patient]").
  size_t AnswerStart(size_t b, size_t e) const {
    if (IsPunct(toks_[b], '[')) {
      for (size_t k = b; k < e && k < b + 4; ++k)
        if (IsPunct(toks_[k], ']')) return k + 1;
    }
    for (size_t k = b; k < e && k < b + 3; ++k) {
      if (IsPunct(toks_[k], ':')) return k + 1;
      if (toks_[k].kind != TokenKind::kWord) break;
    }
    return b;
  }
};

// ---------------------------------------------------------------- the claim passes

struct Value {
  size_t end = 0;
  std::vector<double> numbers;
};

// A value after a vital or test name: "132/78", "97 %", "of 7.8 mg/dL"; not a time ("in 6 weeks").
std::optional<Value> ParseValue(const Reader& rd, size_t pos, size_t limit) {
  const auto& toks = rd.toks_;
  const ClaimRules& r = rd.r_;
  for (size_t i = 0; i < kMaxValueLinks && pos < limit; ++i) {
    auto m = r.value_links.MatchAt(toks, pos, limit);
    if (!m) break;
    pos = m->end;
  }
  if (pos >= limit || toks[pos].kind != TokenKind::kNumber) return std::nullopt;
  Value v;
  v.numbers.push_back(toks[pos].number);
  size_t e = pos + 1;
  if (e + 1 < limit && (IsPunct(toks[e], '/') || toks[e].norm == "over") && toks[e + 1].kind == TokenKind::kNumber) {
    v.numbers.push_back(toks[e + 1].number);
    e += 2;
  }
  if (e < limit && r.time_units.MatchAt(toks, e, limit)) return std::nullopt;
  if (auto u = e < limit ? r.value_units.MatchAt(toks, e, limit) : std::nullopt) e = u->end;
  v.end = e;
  return v;
}

bool ClaimsNothing(Assertion a) { return a == Assertion::kFamily || a == Assertion::kHypothetical; }

class Passes {
 public:
  Passes(Reader& rd) : rd_(rd), r_(rd.r_), toks_(rd.toks_) {}

  // ------------------------------------------------ note: claims
  std::vector<Claim> NoteClaims() {
    std::vector<Claim> out;
    Vitals(&out, nullptr);
    Tests(&out, nullptr);
    Procedures(&out, nullptr);
    Exam(&out, nullptr);
    Referrals(&out, nullptr);
    Admissions(&out, nullptr);
    LethalMeans(&out, nullptr);
    std::stable_sort(out.begin(), out.end(), [](const Claim& a, const Claim& b) {
      return a.tok_begin != b.tok_begin ? a.tok_begin < b.tok_begin : a.cls < b.cls;
    });
    return out;
  }

  // ------------------------------------------------ encounter: mentions
  std::vector<SupportIndex::Mention> EncounterMentions() {
    std::vector<SupportIndex::Mention> out;
    Vitals(nullptr, &out);
    Tests(nullptr, &out);
    Procedures(nullptr, &out);
    Exam(nullptr, &out);
    Referrals(nullptr, &out);
    Admissions(nullptr, &out);
    LethalMeans(nullptr, &out);
    return out;
  }

 private:
  Claim MakeClaim(ClaimClass cls, std::string subject, size_t b, size_t e, Assertion a) const {
    Claim c;
    c.cls = cls;
    c.subject = std::move(subject);
    c.tok_begin = b;
    c.tok_end = e;
    c.char_begin = toks_[b].char_begin;
    c.char_end = toks_[e - 1].char_end;
    c.mention = Slice(rd_.a_, b, e);
    c.assertion = a;
    return c;
  }

  void AddMention(std::vector<SupportIndex::Mention>* out, ClaimClass cls, std::string subject, size_t b, size_t e,
                  bool with_numbers, bool is_measure = false) const {
    SupportIndex::Mention m;
    m.cls = cls;
    m.subject = std::move(subject);
    m.is_measure = is_measure;
    m.tok_begin = b;
    m.tok_end = e;
    m.assertion = rd_.AssertionOf(b, e);
    // A transcript without full stops runs a turn into one sentence: a negation counts only when
    // its trigger is near ("we took an x-ray ... no fractures" must not negate the x-ray).
    if (m.assertion == Assertion::kNegated && !rd_.TriggerNear(b, e)) m.assertion = Assertion::kAffirmed;
    m.denied = rd_.Denied(b);
    if (with_numbers) m.numbers = rd_.NumbersNear(b, e);
    out->push_back(std::move(m));
  }

  // Vital signs: a name with a value or a descriptor after it.
  void Vitals(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    if (mentions)
      for (const PatternMatch& m : rd_.FindAll(r_.vital_support, false))
        AddMention(mentions, ClaimClass::kVital, r_.vitals[m.id].key, m.begin, m.end, true);
    for (const PatternMatch& m : rd_.FindAll(r_.vital_names, false)) {
      const ClaimRules::Subject& subject = r_.vitals[m.id];
      if (mentions) {
        AddMention(mentions, ClaimClass::kVital, subject.key, m.begin, m.end, true);
        continue;
      }
      size_t limit = rd_.ClauseEnd(m.begin);
      std::optional<Value> value = ParseValue(rd_, m.end, limit);
      size_t end = value ? value->end : m.end;
      if (!value) {
        size_t pos = m.end;
        for (size_t i = 0; i < kMaxValueLinks && pos < limit; ++i) {
          auto link = r_.value_links.MatchAt(toks_, pos, limit);
          if (!link) break;
          pos = link->end;
        }
        auto d = pos < limit ? r_.vital_descriptors.MatchAt(toks_, pos, limit) : std::nullopt;
        if (!d) continue;
        end = d->end;
        if (auto after = ParseValue(rd_, end, limit)) {  // "elevated at 150/90"
          value = after;
          end = after->end;
        }
      }
      Assertion a = rd_.AssertionOf(m.begin, m.end);
      if (ClaimsNothing(a) || a == Assertion::kNegated) continue;
      Claim c = MakeClaim(ClaimClass::kVital, subject.key, m.begin, end, a);
      size_t value_begin = m.end;
      while (value_begin < end &&
             (toks_[value_begin].kind == TokenKind::kPunct || r_.value_links.MatchAt(toks_, value_begin, end)))
        value_begin = r_.value_links.MatchAt(toks_, value_begin, end)
                          ? r_.value_links.MatchAt(toks_, value_begin, end)->end
                          : value_begin + 1;
      c.value = Slice(rd_.a_, value_begin, end);
      if (value) c.numbers = value->numbers;
      rd_.Use(m.begin, end);
      claims->push_back(std::move(c));
    }
  }

  // Tests named in the note; in the encounter, every test name and measure phrase.
  void Tests(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    std::vector<PatternMatch> names = rd_.FindAll(r_.test_names, true);
    std::vector<bool> is_test(rd_.Size(), false);
    for (const PatternMatch& m : names)
      if (m.id >= 0)
        for (size_t k = m.begin; k < m.end; ++k) is_test[k] = true;
    for (const PatternMatch& m : names) {
      if (m.id < 0) continue;  // an exam manoeuvre named like a test
      const ClaimRules::Subject& subject = r_.tests[m.id];
      if (Dosed(m.begin, m.end)) continue;  // "potassium chloride 20 mEq daily", "Benicar HCT 40 mg"
      size_t cb = rd_.ClauseBegin(m.begin), limit = rd_.ClauseEnd(m.begin);
      if (mentions) {
        rd_.Use(m.begin, m.end);
        AddMention(mentions, ClaimClass::kTest, subject.key, m.begin, m.end, true);
        // "negative for glucose", "x-ray was normal": a negated result still says the test was done
        if (mentions->back().assertion == Assertion::kNegated && rd_.AnyIn(r_.result_words, cb, limit))
          mentions->back().assertion = Assertion::kAffirmed;
        continue;
      }
      std::optional<Value> value = ParseValue(rd_, m.end, limit);
      if (subject.analyte && !value && !AnalyteContext(m.begin, m.end, cb, limit, is_test))
        continue;  // "limit sodium intake"
      rd_.Use(m.begin, m.end);
      Assertion a = rd_.AssertionOf(m.begin, m.end);
      if (ClaimsNothing(a)) continue;
      bool result = rd_.AnyIn(r_.result_words, m.end, limit);
      if (a == Assertion::kNegated && !result) continue;               // "no imaging"
      if (!result && rd_.AnyIn(r_.no_test_cues, cb, limit)) continue;  // "no new imaging", "MRI not indicated"
      size_t end = value ? value->end : m.end;
      Claim c = MakeClaim(ClaimClass::kTest, subject.key, m.begin, end, a);
      if (value) {
        size_t vb = m.end;
        while (vb < end && toks_[vb].kind != TokenKind::kNumber) ++vb;
        c.value = Slice(rd_.a_, vb, end);
        c.numbers = value->numbers;
      }
      rd_.Use(m.begin, end);
      claims->push_back(std::move(c));
    }
    if (mentions)
      for (const PatternMatch& m : rd_.FindAll(r_.measure_phrases, false))
        AddMention(mentions, ClaimClass::kTest, r_.measures[m.id], m.begin, m.end, true, true);
  }

  // An analyte named as a measurement: a context word after it (value links skipped) or before
  // it, or another test next to it.
  bool AnalyteContext(size_t b, size_t e, size_t cb, size_t ce, const std::vector<bool>& is_test) const {
    size_t pos = e;
    for (size_t i = 0; i < kMaxValueLinks && pos < ce; ++i) {
      auto link = r_.value_links.MatchAt(toks_, pos, ce);
      if (!link) break;
      pos = link->end;
    }
    if (pos < ce && r_.analyte_after.MatchAt(toks_, pos, ce)) return true;
    for (size_t back = 1; back <= 2 && b >= cb + back; ++back)
      if (r_.analyte_before.MatchAt(toks_, b - back, b)) return true;
    // a list of tests: "BMP (potassium, creatinine)", "LFTs, CBC and creatinine"
    for (size_t k = b > cb + 3 ? b - 3 : cb; k < b; ++k)
      if (is_test[k]) return true;
    for (size_t k = e; k < ce && k < e + 3; ++k)
      if (is_test[k]) return true;
    return false;
  }

  // An analyte word inside a drug mention that has a dose, frequency or action is a medication.
  bool Dosed(size_t b, size_t e) const {
    for (size_t k = b; k < e; ++k) {
      int d = rd_.drug_at_[k];
      if (d < 0) continue;
      const DrugMention& dm = rd_.a_.drugs[d];
      if (dm.dose || dm.frequency.per_day || dm.action) return true;
    }
    return false;
  }

  // Procedures: named ones, and words with a surgical suffix.
  void Procedures(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    struct Hit {
      size_t b, e;
      std::string subject;
    };
    std::vector<Hit> hits;
    std::vector<bool> named(rd_.Size(), false);
    for (const PatternMatch& m : rd_.FindAll(r_.procedure_names, true)) {
      hits.push_back({m.begin, m.end, r_.procedures[m.id].key});
      for (size_t k = m.begin; k < m.end; ++k) named[k] = true;
    }
    for (size_t k = 0; k < rd_.Size(); ++k) {
      const Token& t = toks_[k];
      if (t.kind != TokenKind::kWord || rd_.used_[k] || named[k]) continue;
      if (t.folded.empty() || !r_.procedure_suffix_ends[static_cast<unsigned char>(t.folded.back())]) continue;
      for (const std::string& suffix : r_.procedure_suffixes)
        if (t.folded.size() >= suffix.size() + 3 &&
            t.folded.compare(t.folded.size() - suffix.size(), suffix.size(), suffix) == 0) {
          hits.push_back({k, k + 1, std::string(t.folded)});
          break;
        }
    }
    for (const Hit& h : hits) {
      rd_.Use(h.b, h.e);
      if (mentions) {
        AddMention(mentions, ClaimClass::kProcedure, h.subject, h.b, h.e, false);
        continue;
      }
      Assertion a = rd_.AssertionOf(h.b, h.e);
      if (ClaimsNothing(a) || a == Assertion::kNegated) continue;
      claims->push_back(MakeClaim(ClaimClass::kProcedure, h.subject, h.b, h.e, a));
    }
    if (mentions) {
      for (const PatternMatch& m : rd_.FindAll(r_.procedure_support, false))
        for (int id : r_.procedure_support_ids[m.id])
          AddMention(mentions, ClaimClass::kProcedure, r_.procedures[id].key, m.begin, m.end, false);
      for (const PatternMatch& m : rd_.FindAll(r_.procedure_root_words, false))
        for (int id : r_.procedure_root_ids[m.id])
          AddMention(mentions, ClaimClass::kProcedure, "root:" + r_.procedure_roots[id], m.begin, m.end, false);
    }
  }

  // Exam findings grouped with the body system they are attached to, clause by clause.
  void Exam(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    struct Item {
      size_t b, e;
      bool target;
      int id;
    };
    std::vector<Item> items;
    for (const PatternMatch& m : rd_.FindAll(r_.exam_targets, true)) items.push_back({m.begin, m.end, true, m.id});
    for (const PatternMatch& m : rd_.FindAll(r_.exam_findings, true)) {
      // a weak word right after a test or vital is its result: "CBC normal", "BP: stable"
      bool result = !ClaimRules::FindingStrong(m.id) && m.begin > 0 &&
                    (rd_.used_[m.begin - 1] ||
                     (m.begin > 1 && rd_.used_[m.begin - 2] && r_.value_links.MatchAt(toks_, m.begin - 1, m.begin)));
      if (!result) items.push_back({m.begin, m.end, false, m.id});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& x, const Item& y) { return x.b != y.b ? x.b < y.b : x.target > y.target; });
    // a finding whose body system the note does not say: supported by any examination
    const int unspecified = static_cast<int>(r_.systems.size()) - 1;
    // encounter: a sentence with an exam cue; note: a cue before the finding ("On exam, ...")
    auto exam_sentence = [&](size_t k) {
      size_t sb = rd_.SentenceBegin(k), se = rd_.SentenceEnd(k);
      if (!mentions) return rd_.AnyIn(r_.exam_cues, sb, k);
      return rd_.AnyIn(r_.exam_cues, sb, se) || rd_.AnyIn(r_.encounter_exam_cues, sb, se);
    };
    struct Group {
      std::vector<const Item*> targets, findings;
    };
    auto flush = [&](Group& g) {
      if (g.findings.empty()) {
        g = Group{};
        return;
      }
      size_t first = g.findings.front()->b;
      // "MSK: Examination of the right flank: CVA tenderness": a heading gives way to the body part
      bool body_part =
          std::any_of(g.targets.begin(), g.targets.end(), [&](const Item* t) { return !rd_.InHeading(t->b); });
      bool any_strong = false;
      int implied = -1, strong_implied = -1;
      for (const Item* f : g.findings) {
        bool strong = ClaimRules::FindingStrong(f->id);
        any_strong = any_strong || strong;
        if (implied < 0) implied = ClaimRules::FindingSystem(f->id);
        if (strong && strong_implied < 0) strong_implied = ClaimRules::FindingSystem(f->id);
      }
      std::vector<int> systems;
      if (!body_part && strong_implied >= 0 && !g.targets.empty()) {
        implied = strong_implied;
        systems.push_back(implied);  // "Neurological/Psychological: Appropriate mood and affect"
      } else {
        for (const Item* t : g.targets)
          if ((!body_part || !rd_.InHeading(t->b)) && std::find(systems.begin(), systems.end(), t->id) == systems.end())
            systems.push_back(t->id);
      }
      if (systems.empty()) {
        // a result word next to a test or vital ("LFTs, CBC and creatinine normal") is not an exam
        if (!any_strong && rd_.AnyUsed(rd_.ClauseBegin(first), rd_.ClauseEnd(first))) {
          g = Group{};
          return;
        }
        bool context =
            rd_.SectionAt(first) == Section::kExam || rd_.HeadingSystemAt(first) >= 0 || exam_sentence(first);
        if (mentions) {
          if (implied < 0 && !(context && any_strong)) {
            g = Group{};
            return;
          }
        } else if (!any_strong && !context) {
          g = Group{};
          return;
        }
        int system = implied >= 0                      ? implied
                     : rd_.HeadingSystemAt(first) >= 0 ? rd_.HeadingSystemAt(first)
                                                       : unspecified;
        if (system == unspecified && mentions) {
          g = Group{};
          return;
        }
        systems.push_back(system);
      }
      // the findings, with the negation before them ("no focal deficits")
      size_t fb = first, fe = g.findings.back()->e;
      for (const Item* f : g.findings) fe = std::max(fe, f->e);
      while (fb > rd_.ClauseBegin(first) && (rd_.a_.assertion_bits[fb - 1] & kBitTrigger) &&
             toks_[fb - 1].kind == TokenKind::kWord)
        --fb;
      size_t b = fb, e = fe;
      for (const Item* t : g.targets) {
        b = std::min(b, t->b);
        e = std::max(e, t->e);
      }
      Assertion a = rd_.AssertionOf(g.findings.front()->b, g.findings.front()->e);
      if (mentions) {
        // every system said: the group's, and each finding's own ("... lungs clear, no rash")
        for (const Item* f : g.findings) {
          int own = ClaimRules::FindingSystem(f->id);
          if (own >= 0 && std::find(systems.begin(), systems.end(), own) == systems.end()) systems.push_back(own);
        }
      }
      for (int system : systems) {
        if (mentions) {
          if (a != Assertion::kFamily) AddMention(mentions, ClaimClass::kExam, r_.systems[system], b, e, false);
          continue;
        }
        if (ClaimsNothing(a)) continue;
        // one claim per run of findings of a system: merge with the previous claim when it is next to it
        if (!claims->empty()) {
          Claim& last = claims->back();
          if (last.cls == ClaimClass::kExam && last.subject == r_.systems[system] &&
              rd_.clause_[last.tok_begin] == rd_.clause_[b] && b <= last.tok_end + kMergeGap && b >= last.tok_begin) {
            last.tok_begin = std::min(last.tok_begin, b);
            last.tok_end = std::max(last.tok_end, e);
            last.char_begin = toks_[last.tok_begin].char_begin;
            last.char_end = toks_[last.tok_end - 1].char_end;
            last.mention = Slice(rd_.a_, last.tok_begin, last.tok_end);
            last.value += ", " + Slice(rd_.a_, fb, fe);
            continue;
          }
        }
        Claim c = MakeClaim(ClaimClass::kExam, r_.systems[system], b, e, a);
        c.value = Slice(rd_.a_, fb, fe);
        claims->push_back(std::move(c));
      }
      g = Group{};
    };
    size_t i = 0;
    while (i < items.size()) {
      uint32_t clause = rd_.clause_[items[i].b];
      size_t j = i;
      while (j < items.size() && rd_.clause_[items[j].b] == clause) ++j;
      size_t cb = rd_.clause_begin_[clause], ce = rd_.clause_end_[clause];
      bool blocked = !mentions && (rd_.SectionAt(cb) == Section::kHistory || rd_.AnyIn(r_.history_verbs, cb, ce));
      if (!blocked) {
        Group g;
        std::vector<const Item*> pending;
        for (size_t k = i; k < j; ++k) {
          const Item& it = items[k];
          if (it.target) {
            // "scar on the left flank": a target placed by a location word names where, not another system
            if (g.findings.empty() && !g.targets.empty() && !rd_.InHeading(g.targets.back()->b) &&
                rd_.AnyIn(r_.location_words, g.targets.back()->e, it.b))
              continue;
            if (!g.findings.empty()) flush(g);
            if (!pending.empty() && (it.b > pending.back()->e + kPendingGap || rd_.AnyUsed(pending.back()->e, it.b))) {
              Group p;  // too far from this target to be about it
              p.findings = pending;
              flush(p);
              pending.clear();
            }
            if (g.targets.empty() && !pending.empty()) {
              g.findings = pending;
              pending.clear();
            }
            g.targets.push_back(&it);
          } else {
            // another claim (a vital, a test) between closes the group: "lungs clear, CBC normal"
            const Item* last = !g.findings.empty()  ? g.findings.back()
                               : !g.targets.empty() ? g.targets.back()
                                                    : nullptr;
            if (last && rd_.AnyUsed(last->e, it.b)) {
              flush(g);
              if (!pending.empty()) {
                Group p;
                p.findings = pending;
                flush(p);
                pending.clear();
              }
            }
            if (g.targets.empty())
              pending.push_back(&it);
            else
              g.findings.push_back(&it);
          }
        }
        flush(g);
        if (!pending.empty()) {
          Group p;
          p.findings = pending;
          flush(p);
        }
      }
      i = j;
    }
    if (mentions) {
      // "let me listen to your lungs": an examination of each target named with a cue
      for (const Item& it : items) {
        if (!it.target || !exam_sentence(it.b)) continue;
        AddMention(mentions, ClaimClass::kExam, r_.systems[it.id], it.b, it.e, false);
      }
    }
  }

  int SystemIndex(const std::string& key) const {
    for (size_t i = 0; i < r_.systems.size(); ++i)
      if (r_.systems[i] == key) return static_cast<int>(i);
    return 0;
  }

  // Referrals: a specialty with a referral cue in its clause.
  void Referrals(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    for (const PatternMatch& m : rd_.FindAll(r_.specialty_names, true)) {
      const ClaimRules::Subject& subject = r_.specialties[m.id];
      if (mentions) {
        AddMention(mentions, ClaimClass::kReferral, subject.key, m.begin, m.end, false);
        continue;
      }
      if (rd_.InHeading(m.begin)) continue;  // "Patient Education and Counseling:"
      size_t cb = rd_.ClauseBegin(m.begin), ce = rd_.ClauseEnd(m.begin);
      // the cue nearest before the specialty, else a post-cue right after it ("cardiology consult")
      std::optional<PatternMatch> cue = rd_.LastIn(r_.referral_cues, cb, m.begin);
      if (!cue) cue = rd_.FirstIn(r_.referral_post_cues, m.end, std::min(ce, m.end + 2));
      if (!cue) continue;
      Assertion a = rd_.AssertionOf(m.begin, m.end);
      if (ClaimsNothing(a) || a == Assertion::kNegated) continue;
      size_t b = std::min(m.begin, cue->begin), e = std::max(m.end, cue->end);
      // one referral per specialty and clause ("referral to the trauma therapy program for cognitive processing
      // therapy")
      if (!claims->empty() && claims->back().cls == ClaimClass::kReferral && claims->back().subject == subject.key &&
          rd_.clause_[claims->back().tok_begin] == rd_.clause_[m.begin])
        continue;
      claims->push_back(MakeClaim(ClaimClass::kReferral, subject.key, b, e, a));
    }
  }

  // Admissions: an admission word, or "admitted"/"admission" with a setting, one per clause.
  void Admissions(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    std::vector<PatternMatch> hits = rd_.FindAll(r_.admission_words, true);
    for (const PatternMatch& m : rd_.FindAll(r_.admission_needs_setting, true)) {
      size_t cb = rd_.ClauseBegin(m.begin), ce = rd_.ClauseEnd(m.begin);
      if (rd_.AnyIn(r_.admission_settings, cb, ce)) hits.push_back(m);
    }
    std::sort(hits.begin(), hits.end(), [](const PatternMatch& x, const PatternMatch& y) { return x.begin < y.begin; });
    for (size_t i = 0; i < hits.size();) {
      uint32_t clause = rd_.clause_[hits[i].begin];
      size_t j = i, b = hits[i].begin, e = hits[i].end;
      Assertion a = rd_.AssertionOf(hits[i].begin, hits[i].end);
      while (j < hits.size() && rd_.clause_[hits[j].begin] == clause) {
        e = std::max(e, hits[j].end);
        ++j;
      }
      i = j;
      size_t cb = rd_.clause_begin_[clause], ce = rd_.clause_end_[clause];
      std::string subject = r_.admission_subjects.back();
      if (auto word = rd_.FirstIn(r_.admission_subject_words, cb, ce)) subject = r_.admission_subjects[word->id];
      if (mentions) {
        AddMention(mentions, ClaimClass::kAdmission, subject, b, e, false);
        continue;
      }
      if (ClaimsNothing(a) || a == Assertion::kNegated) continue;
      // the setting words after the admission word belong to the mention ("admitted to the psychiatric unit")
      if (auto setting = rd_.FirstIn(r_.admission_settings, e, std::min(ce, e + 5))) e = std::max(e, setting->end);
      claims->push_back(MakeClaim(ClaimClass::kAdmission, subject, b, e, a));
    }
  }

  // Lethal means: a means and a removal/securing action in one clause.
  void LethalMeans(std::vector<Claim>* claims, std::vector<SupportIndex::Mention>* mentions) {
    for (const PatternMatch& m : rd_.FindAll(r_.lethal_means, false)) {
      size_t cb = rd_.ClauseBegin(m.begin), ce = rd_.ClauseEnd(m.begin);
      if (mentions) {
        cb = rd_.SentenceBegin(m.begin);
        ce = rd_.SentenceEnd(m.begin);
      }
      std::optional<PatternMatch> action = rd_.FirstIn(r_.lethal_actions, m.end, ce);
      if (!action) action = rd_.LastIn(r_.lethal_actions, cb, m.begin);
      if (!action) continue;
      size_t b = std::min(m.begin, action->begin), e = std::max(m.end, action->end);
      if (mentions) {
        AddMention(mentions, ClaimClass::kLethalMeans, "lethal means", b, e, false);
        continue;
      }
      Assertion a = rd_.AssertionOf(m.begin, m.end);
      if (ClaimsNothing(a) || a == Assertion::kNegated) continue;
      claims->push_back(MakeClaim(ClaimClass::kLethalMeans, "lethal means", b, e, a));
    }
  }

  Reader& rd_;
  const ClaimRules& r_;
  const std::vector<Token>& toks_;
};

bool NumberSaid(double v, const std::vector<double>& said, const std::string& convert) {
  for (double s : said) {
    if (std::fabs(s - v) <= 1e-3 * std::max(1.0, std::fabs(v))) return true;
    if (convert == "weight" &&
        (std::fabs(s * kPoundsPerKilogram - v) <= 1.0 || std::fabs(s / kPoundsPerKilogram - v) <= 0.5))
      return true;
    if (convert == "temperature" &&
        (std::fabs((s - 32) * 5.0 / 9.0 - v) <= 0.15 || std::fabs(s * 9.0 / 5.0 + 32 - v) <= 0.2))
      return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------- names

std::string_view ClaimClassName(ClaimClass c) {
  switch (c) {
    case ClaimClass::kVital:
      return "vital";
    case ClaimClass::kExam:
      return "exam";
    case ClaimClass::kTest:
      return "test";
    case ClaimClass::kReferral:
      return "referral";
    case ClaimClass::kProcedure:
      return "procedure";
    case ClaimClass::kAdmission:
      return "admission";
    case ClaimClass::kLethalMeans:
      return "lethal_means";
  }
  return "vital";
}

// ---------------------------------------------------------------- LoadClaimRules

ClaimRules LoadClaimRules(std::string_view claims_yaml) {
  YAML::Node y;
  try {
    y = YAML::Load(std::string(claims_yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("claims.yaml: ") + e.what());
  }
  ClaimRules r;
  // severities
  YAML::Node points = Required(y, "severity_points", "top level");
  YAML::Node classes = Required(y, "classes", "top level");
  if (!classes.IsMap()) Bad("classes", "expected a mapping");
  std::array<bool, kClaimClassCount> seen{};
  for (const auto& kv : classes) {
    std::string name = kv.first.as<std::string>();
    ClaimClass c = ClassByName(name);
    std::string severity = Required(kv.second, "severity", "classes." + name).as<std::string>();
    YAML::Node p = points[severity];
    if (!p) Bad("classes." + name, "unknown severity '" + severity + "'");
    r.severity[static_cast<size_t>(c)] = {severity, p.as<int>()};
    r.label[static_cast<size_t>(c)] = kv.second["label"] ? kv.second["label"].as<std::string>() : name;
    seen[static_cast<size_t>(c)] = true;
  }
  for (size_t i = 0; i < kClaimClassCount; ++i)
    if (!seen[i]) Bad("classes", "missing class '" + std::string(ClaimClassName(static_cast<ClaimClass>(i))) + "'");

  AddAll(r.clause_breaks, List(y["clause_breaks"], "clause_breaks"), 0);
  AddAll(r.history_verbs, List(y["history_verbs"], "history_verbs"), 0);
  AddAll(r.denial_answers, List(y["denial_answers"], "denial_answers"), 0);
  AddAll(r.value_links, List(y["value_links"], "value_links"), 0);
  AddAll(r.value_units, List(y["value_units"], "value_units"), 0);
  AddAll(r.time_units, List(y["time_units"], "time_units"), 0);
  AddAll(r.result_words, List(y["result_words"], "result_words"), 0);
  AddAll(r.vital_descriptors, List(y["vital_descriptors"], "vital_descriptors"), 0);
  AddAll(r.no_test_cues, List(y["no_test_cues"], "no_test_cues"), 0);
  YAML::Node analyte = Required(y, "analyte_context", "top level");
  AddAll(r.analyte_after, List(analyte["after"], "analyte_context.after"), 0);
  AddAll(r.analyte_before, List(analyte["before"], "analyte_context.before"), 0);
  YAML::Node sections = Required(y, "sections", "top level");
  for (const auto& [key, section] : {std::pair{"history", Section::kHistory}, std::pair{"exam", Section::kExam},
                                     std::pair{"other", Section::kOther}})
    for (const std::string& h : List(sections[key], std::string("sections.") + key))
      r.sections[FoldedPhrase(h)] = section;
  YAML::Node numbers = Required(y, "number_words", "top level");
  for (const auto& kv : numbers) r.number_words[Lower(kv.first.as<std::string>())] = kv.second.as<double>();

  auto subjects = [&](const YAML::Node& list, const std::string& where, std::vector<ClaimRules::Subject>& out,
                      PhraseMatcher& names) {
    if (!list || !list.IsSequence()) Bad(where, "expected a list of subjects");
    for (const auto& item : list) {
      ClaimRules::Subject s;
      s.key = Required(item, "subject", where).as<std::string>();
      s.generic = item["generic"] && item["generic"].as<bool>();
      if (item["kind"]) s.kind = item["kind"].as<std::string>();
      if (item["convert"]) s.convert = item["convert"].as<std::string>();
      s.analyte = item["analyte"] && item["analyte"].as<bool>();
      std::vector<std::string> n = List(Required(item, "names", where + "." + s.key), where + "." + s.key + ".names");
      if (n.empty()) Bad(where + "." + s.key, "no names");
      AddAll(names, n, static_cast<int>(out.size()));
      out.push_back(std::move(s));
    }
  };
  subjects(Required(y, "vitals", "top level"), "vitals", r.vitals, r.vital_names);
  size_t v = 0;
  for (const auto& item : y["vitals"]) {
    AddAll(r.vital_support, List(item["support"], "vitals." + r.vitals[v].key + ".support"), static_cast<int>(v));
    ++v;
  }

  // exam
  YAML::Node exam = Required(y, "exam", "top level");
  YAML::Node systems = Required(exam, "systems", "exam");
  std::map<std::string, int> system_index;
  for (const auto& kv : systems) {
    std::string key = kv.first.as<std::string>();
    system_index[key] = static_cast<int>(r.systems.size());
    AddAll(r.exam_targets, List(kv.second, "exam.systems." + key), static_cast<int>(r.systems.size()));
    r.systems.push_back(key);
  }
  if (!system_index.count("general")) Bad("exam.systems", "missing 'general'");
  r.systems.push_back("unspecified");  // a finding whose system the note does not say (last)
  auto system_of = [&](const std::string& key, const std::string& where) {
    if (key == "any") return -1;
    auto it = system_index.find(key);
    if (it == system_index.end()) Bad(where, "unknown system '" + key + "'");
    return it->second;
  };
  r.related.assign(r.systems.size(), std::vector<bool>(r.systems.size(), false));
  for (size_t i = 0; i < r.systems.size(); ++i) r.related[i][i] = true;
  for (const auto& pair : exam["related"]) {
    std::vector<std::string> p = List(pair, "exam.related");
    if (p.size() != 2) Bad("exam.related", "expected pairs of systems");
    int a = system_of(p[0], "exam.related"), b = system_of(p[1], "exam.related");
    if (a < 0 || b < 0) Bad("exam.related", "'any' is not a system");
    r.related[a][b] = r.related[b][a] = true;
  }
  AddAll(r.exam_cues, List(exam["cues"], "exam.cues"), 0);
  AddAll(r.encounter_exam_cues, List(exam["encounter_cues"], "exam.encounter_cues"), 0);
  AddAll(r.location_words, List(exam["location_words"], "exam.location_words"), 0);
  for (const auto& [key, strong] : {std::pair{"strong", true}, std::pair{"weak", false}}) {
    YAML::Node findings = Required(exam, key, "exam");
    for (const auto& kv : findings) {
      std::string system = kv.first.as<std::string>();
      int id = ClaimRules::FindingId(system_of(system, std::string("exam.") + key), strong);
      AddAll(r.exam_findings, List(kv.second, std::string("exam.") + key + "." + system), id);
    }
  }

  // tests and what they measure
  subjects(Required(y, "tests", "top level"), "tests", r.tests, r.test_names);
  AddAll(r.test_names, List(y["test_exclusions"], "test_exclusions"), -1);
  std::map<std::string, int> measure_index;
  auto measure = [&](const std::string& phrase) {
    std::string key = FoldedPhrase(phrase);
    auto [it, inserted] = measure_index.emplace(key, static_cast<int>(r.measures.size()));
    if (inserted) {
      r.measures.push_back(key);
      r.measure_phrases.Add(phrase, it->second);
    }
    return it->second;
  };
  size_t t = 0;
  for (const auto& item : y["tests"]) {
    ClaimRules::Subject& s = r.tests[t++];
    s.measures.push_back(measure(s.key));
    for (const std::string& m : List(item["measures"], "tests." + s.key + ".measures")) {
      int id = measure(m);
      if (std::find(s.measures.begin(), s.measures.end(), id) == s.measures.end()) s.measures.push_back(id);
    }
  }

  // referrals
  YAML::Node referral = Required(y, "referral", "top level");
  AddAll(r.referral_cues, List(Required(referral, "cues", "referral"), "referral.cues"), 0);
  AddAll(r.referral_post_cues, List(Required(referral, "post_cues", "referral"), "referral.post_cues"), 0);
  subjects(Required(referral, "specialties", "referral"), "referral.specialties", r.specialties, r.specialty_names);

  // admissions
  YAML::Node admission = Required(y, "admission", "top level");
  AddAll(r.admission_words, List(Required(admission, "words", "admission"), "admission.words"), 0);
  AddAll(r.admission_needs_setting, List(Required(admission, "needs_setting", "admission"), "admission.needs_setting"),
         0);
  AddAll(r.admission_settings, List(Required(admission, "settings", "admission"), "admission.settings"), 0);
  for (const auto& kv : admission["subjects"]) {
    AddAll(r.admission_subject_words, List(kv.second, "admission.subjects"),
           static_cast<int>(r.admission_subjects.size()));
    r.admission_subjects.push_back(kv.first.as<std::string>());
  }
  r.admission_subjects.push_back(Required(admission, "default_subject", "admission").as<std::string>());

  // procedures
  subjects(Required(y, "procedures", "top level"), "procedures", r.procedures, r.procedure_names);
  // a phrase may support several procedures ("injection"): one pattern, every procedure
  auto multi = [](PhraseMatcher& matcher, std::vector<std::vector<int>>& ids, std::map<std::string, int>& seen,
                  const std::string& phrase, int id) {
    auto [it, inserted] = seen.emplace(FoldedPhrase(phrase), static_cast<int>(ids.size()));
    if (inserted) {
      ids.emplace_back();
      matcher.Add(phrase, it->second);
    }
    ids[it->second].push_back(id);
  };
  std::map<std::string, int> support_seen, root_seen;
  size_t p = 0;
  for (const auto& item : y["procedures"]) {
    for (const std::string& w : List(item["support"], "procedures." + r.procedures[p].key + ".support"))
      multi(r.procedure_support, r.procedure_support_ids, support_seen, w, static_cast<int>(p));
    ++p;
  }
  for (const std::string& s : List(Required(y, "procedure_suffixes", "top level"), "procedure_suffixes"))
    r.procedure_suffixes.push_back(Lower(s));
  for (const std::string& s : r.procedure_suffixes) {
    if (s.empty()) r.procedure_suffix_ends.fill(true);  // "" ends every word
    else r.procedure_suffix_ends[static_cast<unsigned char>(s.back())] = true;
  }
  for (const auto& kv : y["procedure_roots"]) {
    for (const std::string& w : List(kv.second, "procedure_roots"))
      multi(r.procedure_root_words, r.procedure_root_ids, root_seen, w, static_cast<int>(r.procedure_roots.size()));
    r.procedure_roots.push_back(FoldWord(Lower(kv.first.as<std::string>())));
  }

  auto index = [](std::unordered_map<std::string, int>& out, const std::vector<ClaimRules::Subject>& subjects) {
    for (size_t i = 0; i < subjects.size(); ++i) out.emplace(subjects[i].key, static_cast<int>(i));
  };
  index(r.vital_by_key, r.vitals);
  index(r.test_by_key, r.tests);
  index(r.specialty_by_key, r.specialties);
  index(r.procedure_by_key, r.procedures);
  for (size_t i = 0; i < r.systems.size(); ++i) r.system_by_key.emplace(r.systems[i], static_cast<int>(i));
  for (size_t i = 0; i < r.measures.size(); ++i) r.measure_by_key.emplace(r.measures[i], static_cast<int>(i));

  // lethal means
  YAML::Node lethal = Required(y, "lethal_means", "top level");
  AddAll(r.lethal_means, List(Required(lethal, "means", "lethal_means"), "lethal_means.means"), 0);
  AddAll(r.lethal_actions, List(Required(lethal, "actions", "lethal_means"), "lethal_means.actions"), 0);
  return r;
}

// ---------------------------------------------------------------- ClaimFinder

ClaimFinder::ClaimFinder(ClaimRules rules) : rules_(std::move(rules)) {
  const ClaimRules& r = rules_;
  starts_ = MatcherStarts(
      {&r.clause_breaks,   &r.history_verbs,           &r.result_words,         &r.no_test_cues,
       &r.vital_names,     &r.vital_support,           &r.exam_targets,         &r.exam_findings,
       &r.exam_cues,       &r.encounter_exam_cues,     &r.location_words,       &r.test_names,
       &r.measure_phrases, &r.referral_cues,           &r.referral_post_cues,   &r.specialty_names,
       &r.admission_words, &r.admission_needs_setting, &r.admission_settings,   &r.admission_subject_words,
       &r.procedure_names, &r.procedure_support,       &r.procedure_root_words, &r.lethal_means,
       &r.lethal_actions});
}

std::vector<Claim> ClaimFinder::Find(const AnalyzedText& note) const {
  Reader reader(*this, note, false);
  return Passes(reader).NoteClaims();
}

const ClaimFinder& DefaultClaimFinder() {
  static const ClaimFinder finder([] {
    ClaimRules rules = LoadClaimRules(embedded_file("corpus/rules/claims.yaml"));
    for (const std::string& p : DefaultRules().assertion.negated_post) rules.negation_post.Add(NormalizePhrase(p), 0);
    return rules;
  }());
  return finder;
}

// ---------------------------------------------------------------- SupportIndex

SupportIndex::SupportIndex(const AnalyzedText& encounter, const ClaimFinder& finder)
    : finder_(finder), text_(encounter.text.text) {
  Reader reader(finder, encounter, true);
  mentions_ = Passes(reader).EncounterMentions();
  // evidence is the sentence of a mention; keep its offsets, not the analysed text
  const auto& toks = encounter.text.tokens;
  for (const Token& t : toks) {
    byte_begin_.push_back(t.byte_begin);
    byte_end_.push_back(t.byte_end);
  }
  for (Mention& m : mentions_) {
    size_t sb = reader.SentenceBegin(m.tok_begin), se = reader.SentenceEnd(m.tok_begin);
    m.sentence_begin = toks[sb].byte_begin;
    m.sentence_end = toks[se - 1].byte_end;
    m.sentence_char_begin = toks[sb].char_begin;
    m.sentence_char_end = toks[se - 1].char_end;
  }
  for (const Mention& m : mentions_) by_class_[static_cast<size_t>(m.cls)].push_back(&m);
}

ClaimSupport SupportIndex::Evidence(const Mention& m, bool supported, std::string reason) const {
  ClaimSupport s;
  s.supported = supported;
  s.reason = std::move(reason);
  s.evidence = text_.substr(m.sentence_begin, m.sentence_end - m.sentence_begin);
  if (CodePointCount(s.evidence) > kEvidenceChars) {
    // cut at a character boundary near the limit
    size_t cut = kEvidenceChars;
    while (cut < s.evidence.size() && (static_cast<unsigned char>(s.evidence[cut]) & 0xC0) == 0x80) ++cut;
    s.evidence = s.evidence.substr(0, cut) + "...";
  }
  s.evidence_begin = m.sentence_char_begin;
  s.evidence_end = m.sentence_char_end;
  return s;
}

ClaimSupport SupportIndex::Check(const Claim& c) const {
  const ClaimRules& r = finder_.rules();
  // Usable support: said for the patient and not denied. An exam finding may be negated, and an
  // exam question ("does it hurt when I press here?" / "no") is still an examination.
  auto usable = [&](const Mention& m) {
    if (m.assertion == Assertion::kFamily) return false;
    if (c.cls == ClaimClass::kExam) return true;
    return !m.denied && m.assertion != Assertion::kNegated;
  };
  std::vector<const Mention*> good, contrary;
  auto consider = [&](const Mention& m) { (usable(m) ? good : contrary).push_back(&m); };
  auto unsupported = [&](std::string reason) {
    if (contrary.empty()) return ClaimSupport{false, std::move(reason), "", 0, 0};
    return Evidence(*contrary.front(), false, std::move(reason) + " (the encounter only denies it)");
  };
  auto find = [](const std::unordered_map<std::string, int>& map, const std::string& key) {
    auto it = map.find(key);
    return it == map.end() ? -1 : it->second;
  };
  auto said = [&](const Mention& m, const std::string& convert) {
    return std::all_of(c.numbers.begin(), c.numbers.end(), [&](double v) { return NumberSaid(v, m.numbers, convert); });
  };
  const std::string& subject = c.subject;
  const auto& mentions = by_class_[static_cast<size_t>(c.cls)];
  switch (c.cls) {
    case ClaimClass::kVital: {
      int v = find(r.vital_by_key, subject);
      bool generic = v >= 0 && r.vitals[v].generic;  // "vital signs stable": any vital
      for (const Mention* m : mentions)
        if (generic || m->subject == subject) consider(*m);
      if (good.empty()) return unsupported("the encounter gives no " + subject);
      if (c.numbers.empty()) return Evidence(*good.front(), true, "the encounter mentions " + subject);
      for (const Mention* m : good)
        if (said(*m, v >= 0 ? r.vitals[v].convert : ""))
          return Evidence(*m, true, "the encounter gives " + subject + " " + c.value);
      return Evidence(*good.front(), false, "the encounter gives no " + subject + " of " + c.value);
    }
    case ClaimClass::kExam: {
      int system = find(r.system_by_key, subject);
      bool any = system == static_cast<int>(r.systems.size()) - 1;  // unspecified: any examination
      const Mention* related = nullptr;
      for (const Mention* m : mentions) {
        if (any || m->subject == subject) {
          consider(*m);
        } else if (!related && system >= 0) {
          int other = find(r.system_by_key, m->subject);
          if (other >= 0 && r.related[system][other] && usable(*m)) related = m;
        }
      }
      auto a = [](const std::string& w) {
        return std::string(!w.empty() && std::string_view("aeiouAEIOU").find(w[0]) != std::string_view::npos ? "an "
                                                                                                             : "a ") +
               w;
      };
      if (!good.empty())
        return Evidence(*good.front(), true, "the encounter has " + a(subject) + " examination or finding");
      if (related)
        return Evidence(
            *related, true,
            "the encounter has " + a(related->subject) + " examination or finding (related to " + subject + ")");
      return unsupported("the encounter has no " + subject + " examination or finding");
    }
    case ClaimClass::kTest: {
      int t = find(r.test_by_key, subject);
      if (t < 0) return ClaimSupport{false, "unknown test " + subject, "", 0, 0};
      const ClaimRules::Subject& test = r.tests[t];
      auto measured = [&](int id) {
        return std::find(test.measures.begin(), test.measures.end(), id) != test.measures.end();
      };
      auto shares = [&](const Mention& m) {
        if (m.is_measure) return (test.generic && test.kind == "lab") || measured(find(r.measure_by_key, m.subject));
        int o = find(r.test_by_key, m.subject);
        if (o < 0) return false;
        if (o == t) return true;
        if (test.generic) return r.tests[o].kind == test.kind;
        return std::any_of(r.tests[o].measures.begin(), r.tests[o].measures.end(), measured);
      };
      const Mention* exact = nullptr;
      for (const Mention* m : mentions) {
        if (!shares(*m)) continue;
        consider(*m);
        if (!exact && !m->is_measure && m->subject == subject && usable(*m)) exact = m;
      }
      if (good.empty()) return unsupported("the encounter never mentions " + subject + " or what it measures");
      if (!c.numbers.empty()) {
        for (const Mention* m : good)
          if (said(*m, "")) return Evidence(*m, true, "the encounter gives " + subject + " " + c.value);
        return Evidence(*good.front(), false, "the encounter gives no " + subject + " of " + c.value);
      }
      if (exact) return Evidence(*exact, true, "the encounter mentions " + subject);
      // say what it measures when the encounter names that ("potassium, which BMP measures")
      auto measures_it = [&](const Mention* m) {
        int key = find(r.measure_by_key, FoldedPhrase(m->is_measure ? m->subject : Slice(m->tok_begin, m->tok_end)));
        return key >= 0 && measured(key);
      };
      const Mention* m = good.front();
      for (const Mention* g : good)
        if (measures_it(g)) {
          m = g;
          break;
        }
      std::string how =
          measures_it(m) ? ", which " + subject + " measures" : ", a test of what " + subject + " measures";
      return Evidence(*m, true, "the encounter mentions " + Slice(m->tok_begin, m->tok_end) + how);
    }
    case ClaimClass::kReferral: {
      int sp = find(r.specialty_by_key, subject);
      bool generic = sp >= 0 && r.specialties[sp].generic;  // "a specialist": any specialty
      for (const Mention* m : mentions)
        if (generic || m->subject == subject) consider(*m);
      if (good.empty()) return unsupported("the encounter never mentions " + subject);
      return Evidence(*good.front(), true, "the encounter mentions " + subject);
    }
    case ClaimClass::kAdmission: {
      bool any = subject == r.admission_subjects.back();  // a plain hospital admission: any kind
      for (const Mention* m : mentions)
        if (any || m->subject == subject) consider(*m);
      std::string what = any ? "admission" : subject + " admission";
      if (good.empty()) return unsupported("the encounter documents no " + what);
      return Evidence(*good.front(), true, "the encounter documents " + std::string(any ? "an " : "a ") + what);
    }
    case ClaimClass::kProcedure: {
      int pr = find(r.procedure_by_key, subject);
      bool generic = pr >= 0 && r.procedures[pr].generic;  // "surgery": any procedure
      std::string root;  // an open-vocabulary word: the longest root it contains ("cholecyst")
      if (pr < 0)
        for (const std::string& rt : r.procedure_roots)
          if (subject.find(rt) != std::string::npos && rt.size() > root.size()) root = rt;
      for (const Mention* m : mentions) {
        bool is_root = m->subject.rfind("root:", 0) == 0;
        if (m->subject == subject || (generic && !is_root) || (!root.empty() && m->subject == "root:" + root))
          consider(*m);
      }
      if (good.empty()) return unsupported("the encounter never mentions " + subject);
      return Evidence(*good.front(), true,
                      "the encounter mentions " + Slice(good.front()->tok_begin, good.front()->tok_end));
    }
    case ClaimClass::kLethalMeans: {
      for (const Mention* m : mentions) consider(*m);
      if (good.empty()) return unsupported("the encounter documents no removal or securing of lethal means");
      return Evidence(*good.front(), true, "the encounter documents lethal means removed or secured");
    }
  }
  return ClaimSupport{};
}

std::string SupportIndex::Slice(size_t b, size_t e) const {
  if (b >= e || e > byte_begin_.size()) return {};
  return text_.substr(byte_begin_[b], byte_end_[e - 1] - byte_begin_[b]);
}

// ---------------------------------------------------------------- completed actions

CompletedActions LoadCompletedActions(std::string_view yaml) {
  YAML::Node y;
  try {
    y = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("completed_actions.yaml: ") + e.what());
  }
  CompletedActions a;
  auto load = [&](const char* key, std::vector<std::string>& list, PhraseMatcher& matcher) {
    YAML::Node n = y[key];
    if (!n || !n.IsSequence())
      throw std::runtime_error(std::string("completed_actions.yaml: missing list '") + key + "'");
    for (const auto& item : n) list.push_back(item.as<std::string>());
    for (size_t i = 0; i < list.size(); ++i) matcher.Add(list[i], static_cast<int>(i));
  };
  load("prescription", a.prescription, a.prescription_matcher);
  load("admission", a.admission, a.admission_matcher);
  load("procedure", a.procedure, a.procedure_matcher);
  load("lethal_means", a.lethal_means, a.lethal_means_matcher);
  return a;
}

const CompletedActions& DefaultCompletedActions() {
  static const CompletedActions actions = LoadCompletedActions(embedded_file("corpus/rules/completed_actions.yaml"));
  return actions;
}

}  // namespace scribe
