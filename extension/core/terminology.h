// terminology.h — the offline RxNorm subset: exact, normalised and approximate drug-name lookup.
//
// Loaded from corpus/terminology/ (derived by scripts/derive_terminology.py from RxNorm's
// prescribable content, RxTerms and Drugs@FDA). Every name resolves to a set of ingredient
// RxCUIs; two mentions name "the same drug" when their ingredient sets are equal, so a brand
// equals its generic (Zoloft ≡ sertraline) and salts equal their base (sertraline
// hydrochloride ≡ sertraline).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "text.h"

namespace scribe {

struct Concept {
  std::string rxcui;  // empty for brands taken from RxTerms / Drugs@FDA (no BN RxCUI there)
  std::string tty;    // IN, PIN, MIN, BN, SY (synonym)
  std::string name;
  std::string source;
  std::vector<std::string> ingredients;  // IN RxCUIs, numerically sorted
  std::string norm = {};                 // NormalizePhrase(name)
};

enum class MatchKind : uint8_t { kExact, kNormalized, kSynonym, kApproximate };
std::string_view MatchKindName(MatchKind k);

struct TermMatch {
  uint32_t concept_id = 0;
  MatchKind kind = MatchKind::kExact;
  int distance = 0;          // edit distance for approximate matches
  size_t token_count = 0;    // tokens consumed in free text
};

struct IngredientInfo {
  std::string rxcui, name;
  std::vector<std::string> dose_forms, strengths;
};

class Terminology {
 public:
  // Parses the terminology files; throws std::runtime_error naming the file and line.
  static Terminology Load(std::string_view concepts_tsv, std::string_view synonyms_tsv,
                          std::string_view dose_forms_tsv, std::string_view english_words,
                          std::string_view ambiguous_brands, std::string_view version_file,
                          std::string_view name_noise, const std::vector<std::string>& non_rxnorm_substances);

  // A term as an analyst types it: exact name, then normalised (case, punctuation, salt and
  // formulation words), then approximate (single words).
  std::optional<TermMatch> Lookup(std::string_view term) const;

  // The longest drug name starting at token k of a text (free-text rules: ambiguous names need a
  // dose right after them; approximate matches only for words that are not English or clinical).
  std::optional<TermMatch> MatchTokens(const std::vector<Token>& toks, size_t k, size_t limit) const;

  // Approximate match of one word (misspellings), or nothing.
  std::optional<TermMatch> Approximate(std::string_view word) const;

  const Concept& concept_at(uint32_t id) const { return concepts_[id]; }
  // Key of a concept's ingredient set: "36437", or "161+5489" for combinations.
  std::string IngredientKey(uint32_t id) const;
  // Display name of an ingredient set: "sertraline", "acetaminophen / hydrocodone".
  std::string IngredientNames(uint32_t id) const;
  const IngredientInfo* Ingredient(const std::string& rxcui) const;

  bool IsKnownWord(std::string_view lower_word) const;   // English or clinical word
  bool IsNonRxnormSubstance(std::string_view normalized) const;
  const std::string& version() const { return version_; }
  const std::string& release_date() const { return release_date_; }
  size_t size() const { return concepts_.size(); }

 private:
  void Index(uint32_t id, const std::string& normalized);
  void BuildApproximateIndex();

  std::vector<Concept> concepts_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_name_;  // normalised name -> concepts
  std::unordered_map<std::string, uint8_t> first_words_;            // first word -> longest name (words)
  std::unordered_map<std::string, IngredientInfo> ingredients_;     // IN rxcui -> info
  std::unordered_set<std::string> ambiguous_, non_rxnorm_, noise_;
  std::string known_words_blob_;                                    // english_words.txt, owned
  std::vector<std::string_view> known_words_;                       // views into the blob, sorted
  // Approximate index (sorted deletes), built on first use: start-up stays cheap.
  struct ApproximateIndex {
    std::once_flag once;
    std::vector<std::pair<uint64_t, uint32_t>> deletes;
  };
  std::unique_ptr<ApproximateIndex> index_ = std::make_unique<ApproximateIndex>();
  const std::vector<std::pair<uint64_t, uint32_t>>& Deletes() const;
  std::string version_, release_date_;
  // Memo of approximate answers: notes repeat their vocabulary, and the answer for a word
  // never changes. Bounded; cleared when full.
  struct ApproximateMemo {
    std::mutex mu;
    std::unordered_map<std::string, std::optional<TermMatch>> answers;
  };
  std::unique_ptr<ApproximateMemo> memo_ = std::make_unique<ApproximateMemo>();
  std::optional<TermMatch> ApproximateUncached(const std::string& word) const;
};

// The terminology compiled into the binary, loaded once (thread-safe).
const Terminology& DefaultTerminology();

// The largest edit distance an approximate match of a word of this length may have:
// 1 from six letters, 2 from ten, none past 32 (docs/methodology.md).
int ApproximateMaxDistance(size_t length);

// Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions),
// or max_distance + 1 when larger.
int EditDistance(std::string_view a, std::string_view b, int max_distance);

}  // namespace scribe
