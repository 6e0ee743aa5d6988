// terminology.h — the offline RxNorm subset: exact, normalised and approximate drug-name lookup.
//
// Loaded from corpus/terminology/ (derived by scripts/derive_terminology.py from RxNorm's
// prescribable content, RxTerms and Drugs@FDA). Every name resolves to a set of ingredient
// RxCUIs; two mentions name "the same drug" when their ingredient sets are equal, so a brand
// equals its generic (Zoloft ≡ sertraline) and salts equal their base (sertraline
// hydrochloride ≡ sertraline). Ingredients RxNorm keeps apart that a clinician prescribes as one
// (lithium ≡ lithium carbonate, vitamin B12 ≡ cyanocobalamin) share one comparison key through
// corpus/rules/equivalents.tsv; drug classes named as allergens (penicillins, sulfa, NSAIDs) are
// concepts of their own (tty CLASS, key "class:<id>") with member ingredients
// (corpus/rules/allergen_classes.yaml, corpus/rules/allergen_class_members.tsv).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "text.h"

namespace scribe {

struct Concept {
  std::string rxcui;  // empty for brands taken from RxTerms / Drugs@FDA (no BN RxCUI there) and classes
  std::string tty;    // IN, PIN, MIN, BN, SY (synonym), CLASS (an allergen class name)
  std::string name;
  std::string source;
  std::vector<std::string> ingredients;  // IN RxCUIs, numerically sorted; empty for a CLASS
  std::string norm = {};                 // NormalizePhrase(name)
  std::string drug_class = {};           // CLASS only: the class id ("penicillins")
};

// An allergen class (corpus/rules/allergen_classes.yaml).
struct AllergenClass {
  std::string id;            // "penicillins"
  std::string display;       // "penicillins", "sulfonamide antibiotics"
  std::vector<std::string> names;        // as written in the YAML
  std::vector<std::string> members;      // comparison keys of the member ingredients
  std::string prescribed_as;             // comparison key a dosed class name names ("penicillin 500 mg"), or empty
};

enum class MatchKind : uint8_t { kExact, kNormalized, kSynonym, kApproximate };
std::string_view MatchKindName(MatchKind k);

struct TermMatch {
  uint32_t concept_id = 0;
  MatchKind kind = MatchKind::kExact;
  int distance = 0;          // edit distance for approximate matches
  size_t token_count = 0;    // tokens consumed in free text
  bool operator==(const TermMatch&) const = default;
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

  // Adds the equivalence classes (corpus/rules/equivalents.tsv) and the allergen classes
  // (allergen_classes.yaml with its derived members TSV). Throws std::runtime_error naming the file
  // and line when a name is not an ingredient of the terminology.
  void LoadEquivalents(std::string_view equivalents_tsv);
  void LoadAllergenClasses(std::string_view classes_yaml, std::string_view members_tsv);

  const Concept& concept_at(uint32_t id) const { return concepts_[id]; }
  // Comparison key of a concept's ingredient set: "36437", "161+5489" for combinations, each
  // ingredient replaced by its equivalence-class canonical ingredient (lithium carbonate -> the
  // key of lithium); "class:penicillins" for an allergen class name.
  std::string IngredientKey(uint32_t id) const;
  // Comparison name of an ingredient set: "sertraline", "acetaminophen / hydrocodone", "lithium"
  // for lithium carbonate, "cyanocobalamin" for vitamin B12, "penicillins" for PCN.
  std::string IngredientNames(uint32_t id) const;
  const IngredientInfo* Ingredient(const std::string& rxcui) const;
  // The ingredient RxCUI an ingredient compares as (itself unless equivalents.tsv maps it).
  const std::string& CanonicalIngredient(const std::string& rxcui) const;
  // The salt or ester a concept names beyond its comparison ingredient: "tartrate" for
  // "metoprolol tartrate", "carbonate" for "lithium carbonate"; empty for brands, synonyms, bare
  // ingredients and combinations.
  std::string SaltOf(uint32_t id) const;

  // Allergen classes. A class is named by its id, a key "class:<id>", or any of its names
  // ("PCN", "penicillin", "sulfa", "NSAIDs"): nullptr when none.
  const AllergenClass* FindClass(std::string_view id_key_or_name) const;
  // Whether the class covers a drug: every ingredient key of `key` ("723", "723+48203") or a class
  // key equal to the class. "NSAIDs" covers ibuprofen; "penicillins" covers amoxicillin /
  // clavulanate (one member suffices for a combination).
  bool ClassCovers(std::string_view class_id_key_or_name, std::string_view key) const;
  // The classes that cover a drug key (ids, sorted).
  std::vector<std::string> ClassesOf(std::string_view key) const;
  const std::vector<AllergenClass>& classes() const { return classes_; }
  static bool IsClassKey(std::string_view key) { return key.substr(0, 6) == "class:"; }

  bool IsKnownWord(std::string_view lower_word) const;   // English or clinical word
  // The same for a token: its `known` once read (AnalyzeText reads it in this terminology's
  // known_words()), else looked up by its norm_hash.
  bool IsKnownWord(const Token& word) const {
    if (word.known != Token::Known::kUnread) return word.known == Token::Known::kYes;
    return known_words_.contains(word.norm, NormHash(word));
  }
  // The English and clinical words IsKnownWord looks in: what AnalyzeText gives Analyze.
  const WordSet& known_words() const { return known_words_; }
  bool IsNonRxnormSubstance(std::string_view normalized) const;
  bool IsNonRxnormSubstance(const Token& word) const {  // the same, by the token's norm_hash
    return non_rxnorm_.contains(word.norm, NormHash(word));
  }
  const std::string& version() const { return version_; }
  const std::string& release_date() const { return release_date_; }
  size_t size() const { return concepts_.size(); }

  // Builds the approximate-match index now rather than on the first unknown word (about 0.1 s):
  // a server calls it before its workers fork, so they share it and no request pays for it.
  void PrepareApproximateIndex() const { Deletes(); }

 private:
  void Index(uint32_t id, const std::string& normalized);
  void BuildApproximateIndex();

  std::vector<Concept> concepts_;
  StringMap<std::vector<uint32_t>> by_name_;                        // normalised name -> concepts
  // by_name_'s first (preferred) concept of each name, keyed by HashWord(name): MatchTokens hashes
  // a name of several words as it reads them, from the first word's norm_hash on, instead of
  // joining the words into a string and hashing that once per length it tries.
  WordMap<uint32_t> preferred_;
  WordMap<uint8_t> first_words_;                                    // first word -> longest name (words)
  WordBits preferred_bits_, first_word_bits_;                       // the keys of those two, for MatchTokens
  std::unordered_map<std::string, IngredientInfo> ingredients_;     // IN rxcui -> info
  std::unordered_map<std::string, std::string> canonical_;          // IN rxcui -> canonical IN rxcui
  std::unordered_map<std::string, std::string> display_;            // canonical IN rxcui -> comparison name
  std::unordered_set<std::string> salt_equivalents_;                // IN rxcuis that are salts of their canonical
  std::vector<AllergenClass> classes_;
  std::unordered_map<std::string, size_t> class_by_name_;           // NormalizePhrase(name or id) -> class
  // The single IN rxcui a name resolves to by exact or synonym lookup, or empty.
  std::string ExactIngredient(std::string_view name) const;
  WordSet ambiguous_;  // looked up by every name matched
  StringSet noise_;
  WordTable<char> non_rxnorm_;  // looked up by a token's norm_hash
  WordSet known_words_;                                             // english_words.txt
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
  static constexpr size_t kApproximateMemoWords = 100000;
  struct ApproximateMemo {
    std::shared_mutex mu;
    WordTable<std::optional<TermMatch>> answers;
  };
  std::unique_ptr<ApproximateMemo> memo_ = std::make_unique<ApproximateMemo>();
  std::optional<TermMatch> ApproximateUncached(const std::string& word) const;
  // IngredientKey, IngredientNames and SaltOf of the concepts asked for: pure functions of the
  // concept and the tables, which only LoadEquivalents and LoadAllergenClasses change (they
  // clear it). At most one entry per concept; an entry never moves once made.
  struct DerivedWords {
    std::string key, names, salt;
  };
  struct DerivedMemo {
    std::shared_mutex mu;
    std::unordered_map<uint32_t, DerivedWords> of;
  };
  std::unique_ptr<DerivedMemo> derived_ = std::make_unique<DerivedMemo>();
  const DerivedWords& Derived(uint32_t id) const;
  std::string ComputeIngredientKey(uint32_t id) const;
  std::string ComputeIngredientNames(uint32_t id) const;
  std::string ComputeSaltOf(uint32_t id) const;
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
