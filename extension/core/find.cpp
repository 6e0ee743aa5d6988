// find.cpp — phrase matches with their assertion and deciding trigger (see find.h).
#include "find.h"

#include "grade.h"

namespace scribe {

std::vector<PhraseFinding> FindPhrase(std::string_view text, std::string_view phrase, const Rules& rules,
                                      const AssertionAnalyzer& assertion) {
  std::vector<PhraseFinding> out;
  const PhraseSet set(std::vector<std::string>{std::string(phrase)}, rules);
  if (set.empty()) return out;
  const TokenizedText tt = Analyze(text, rules.assertion.abbreviations);
  std::vector<PhraseSet::Hit> hits = set.Find(tt);
  if (hits.empty()) return out;
  std::vector<AssertionCue> cues;
  const std::vector<uint8_t> bits = assertion.Analyze(tt, nullptr, &cues);
  const auto& toks = tt.tokens;
  for (const PhraseSet::Hit& h : hits) {
    PhraseFinding f;
    f.mention = std::string(text.substr(toks[h.begin].byte_begin, toks[h.end - 1].byte_end - toks[h.begin].byte_begin));
    f.char_begin = toks[h.begin].char_begin;
    f.char_end = toks[h.end - 1].char_end;
    f.assertion = AssertionAnalyzer::Resolve(bits, h.begin, h.end);
    AssertionCue cue = AssertionAnalyzer::DecidingCue(bits, cues, h.begin, h.end);
    if (!cue.empty()) f.trigger = std::string(AssertionAnalyzer::CueText(tt, cue));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<PhraseFinding> FindPhrase(std::string_view text, std::string_view phrase) {
  return FindPhrase(text, phrase, DefaultRules(), DefaultAssertionAnalyzer());
}

}  // namespace scribe
