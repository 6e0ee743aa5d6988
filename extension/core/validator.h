// validator.h — the seam where drug strings are validated: offline terminology, or live RxNav
// and openFDA behind a cache.
//
// Grading asks a DrugValidator about every drug string it reports. The offline validator
// answers from the compiled-in RxNorm subset; the live one (rxnav.h) consults drug_cache,
// RxNav and openFDA and falls back to the offline answer with a reason. Either way the answer
// is a value: transport failures are reasons, never exceptions.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.h"
#include "terminology.h"

namespace scribe {

struct Validation {
  std::string term;
  bool found = false;
  std::string source;                    // cache, rxnav, local, none
  std::string rxcui, name, tty;          // the matched concept
  std::vector<std::string> ingredients;  // ingredient RxCUIs
  std::string ingredient;                // ingredient names
  double score = 0;                      // 1 exact, < 1 approximate (local); RxNav's rank-1 score is not comparable
  std::vector<std::string> dose_forms, routes, strengths;
  std::string reason;                    // what happened, in words
  // As results publish it: {"found", "reason", "rxcui", "score", "source", "term"}, and for a found
  // drug also its name, tty, ingredient, ingredient_rxcuis, dose_forms, routes and strengths.
  void Write(JsonWriter& w) const;
};

class DrugValidator {
 public:
  virtual ~DrugValidator() = default;
  // Validates a drug string; `local` is the offline match the extractor already made, if any.
  virtual Validation Validate(std::string_view term, const std::optional<TermMatch>& local) = 0;
  // Versions of the sources consulted: {"offline": "...", "rxnav": ..., "openfda": ...}.
  virtual nlohmann::json Versions() = 0;
  // A new note (or lookup) begins: the live validator's per-note budget of time and upstream
  // requests starts again (docs/live-validation.md). The offline validator has no budget.
  virtual void BeginNote() {}
};

// Answers from the offline terminology only.
class OfflineValidator : public DrugValidator {
 public:
  explicit OfflineValidator(const Terminology& terminology) : terminology_(terminology) {}
  Validation Validate(std::string_view term, const std::optional<TermMatch>& local) override;
  nlohmann::json Versions() override;

 private:
  const Terminology& terminology_;
};

// The offline answer for a term (shared by every validator as its fallback).
Validation OfflineValidation(const Terminology& terminology, std::string_view term,
                             const std::optional<TermMatch>& local);

}  // namespace scribe
