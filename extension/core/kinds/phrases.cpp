// phrases.cpp — phrase expansion and matching (see phrases.h).
#include "phrases.h"

namespace scribe {

std::vector<std::string> ExpandPhrase(const std::string& phrase, const Rules& rules) {
  std::vector<std::string> out{phrase};
  std::string norm = FoldedPhrase(phrase);
  if (auto it = rules.synonyms_of.find(norm); it != rules.synonyms_of.end())
    out.insert(out.end(), it->second.begin(), it->second.end());
  std::string padded = " " + norm + " ";
  // LoadRules folds both sides of every pair once (clinical_synonyms_folded, same order).
  for (size_t i = 0; i < rules.clinical_synonyms_folded.size(); ++i) {
    const auto& [a, b] = rules.clinical_synonyms.at(i);
    const auto& [folded_a, folded_b] = rules.clinical_synonyms_folded[i];
    for (const auto& [f, to] : {std::pair<const std::string&, const std::string&>{folded_a, b},
                                std::pair<const std::string&, const std::string&>{folded_b, a}}) {
      size_t p = padded.find(f);
      if (p == std::string::npos || f.size() == padded.size()) continue;
      std::string replaced = padded.substr(0, p) + " " + to + " " + padded.substr(p + f.size());
      out.push_back(std::string(Trim(replaced)));
    }
  }
  return out;
}

PhraseSet::PhraseSet(const std::vector<std::string>& phrases, const Rules& rules) : matcher_(true) {
  for (size_t i = 0; i < phrases.size(); ++i)
    for (const std::string& e : ExpandPhrase(phrases[i], rules)) {
      matcher_.Add(e, static_cast<int>(phrase_of_.size()));
      phrase_of_.push_back(i);
    }
}

std::vector<PhraseSet::Hit> PhraseSet::Find(const TokenizedText& text) const {
  std::vector<Hit> hits;
  for (const PatternMatch& m : matcher_.FindAll(text.tokens, 0, text.tokens.size()))
    hits.push_back({m.begin, m.end, phrase_of_[static_cast<size_t>(m.id)]});
  return hits;
}

std::vector<PhraseSet::Hit> PhraseSet::Find(const TokenizedText& text, const PhraseStarts& starts) const {
  if (!starts.Covers(matcher_)) return Find(text);
  std::vector<Hit> hits;
  for (const PatternMatch& m : matcher_.FindAll(text.tokens, 0, text.tokens.size(), starts.Of(matcher_)))
    hits.push_back({m.begin, m.end, phrase_of_[static_cast<size_t>(m.id)]});
  return hits;
}

}  // namespace scribe
