// grade.h — scoring a scribe note against a trial (docs/methodology.md).
//
//   PreparedTrial prepared(trial);            // once per trial: encounter analysed, phrases compiled
//   OfflineValidator validator(DefaultTerminology());
//   nlohmann::json result = Grade(prepared, note, corpus_hash, validator);
//   result["score_total"]                     // 0..1, 4 decimals
//
// The result is the published report: category scores, per-medication credit with what was
// expected and found, flags, allergies, traps, deferred diagnoses, unsupported drugs, critical
// errors, versions, and the ground truth (unless the trial is sealed).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "assertion.h"
#include "extract.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"
#include "validator.h"

namespace scribe {

// A phrase and its equivalents (clinical synonyms), compiled for matching in any text.
class PhraseSet {
 public:
  PhraseSet() : matcher_(true) {}
  PhraseSet(const std::vector<std::string>& phrases, const Rules& rules);
  struct Hit { size_t begin, end; };
  std::vector<Hit> Find(const TokenizedText& text) const;
  bool empty() const { return matcher_.empty(); }

 private:
  PhraseMatcher matcher_;
};

// A trial ready to grade many notes: owns the trial and its analysed encounter.
class PreparedTrial {
 public:
  PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology, const AssertionAnalyzer& assertion);
  PreparedTrial(const PreparedTrial&) = delete;
  PreparedTrial& operator=(const PreparedTrial&) = delete;

  const Trial& trial() const { return trial_; }
  const Rules& rules() const { return rules_; }
  const Terminology& terminology() const { return terminology_; }
  const AssertionAnalyzer& assertion() const { return assertion_; }

  const Trial trial_;
  const Rules& rules_;
  const Terminology& terminology_;
  const AssertionAnalyzer& assertion_;
  AnalyzedText encounter;
  std::unordered_set<std::string> encounter_drug_keys;  // every drug the encounter names
  std::unordered_set<std::string> encounter_words;      // lower-case words of the encounter
  std::vector<PhraseSet> flag_phrases, trap_phrases, deferred_phrases, allergy_phrases, critical_phrases;
  std::vector<std::vector<std::string>> flag_words;     // flag name words, for qualifier checks
  std::vector<std::string> allergy_keys;                // ingredient key of each allergy substance ("" if none)
  std::vector<bool> allergy_is_drug;
  PhraseSet allergy_cues, no_allergies, no_drug_allergies;
  std::unordered_set<std::string> qualifiers;
};

// Grades a note. Never throws for any note text (NULL/empty grade as an empty note).
nlohmann::json Grade(const PreparedTrial& trial, std::string_view note, const std::string& corpus_hash,
                     DrugValidator& validator);

}  // namespace scribe
