// grade.h — grading an output against a trial of any kind (kinds/kind.h, docs/methodology.md).
//
//   PreparedTrial prepared(trial, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer());
//   OfflineValidator validator(DefaultTerminology());
//   nlohmann::json result = Grade(prepared, note, corpus_hash, validator);
//   result["score_total"]                     // 0..1, 4 decimals
//
// The result is the published report: the envelope every kind shares (trial, kind, score_total,
// unsafe, critical_errors, versions, ground truth unless sealed) around the kind's own fields.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "assertion.h"
#include "kind.h"
#include "phrases.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"
#include "validator.h"

namespace scribe {

// A trial ready to grade many outputs: owns the trial and its kind's prepared form.
class PreparedTrial {
 public:
  PreparedTrial(Trial trial, const Rules& rules, const Terminology& terminology, const AssertionAnalyzer& assertion);
  PreparedTrial(const PreparedTrial&) = delete;
  PreparedTrial& operator=(const PreparedTrial&) = delete;

  const Trial& trial() const { return trial_; }
  const Kind& kind() const { return kind_; }
  const PreparedBody& body() const { return *body_; }
  const Rules& rules() const { return env_.rules; }
  // GroundTruthJson(trial()), built once: every result publishes it. Also serialized once, as
  // GradeText() writes it.
  const nlohmann::json& ground_truth() const { return ground_truth_; }
  const std::string& ground_truth_text() const { return ground_truth_text_; }

 private:
  const Trial trial_;
  const Kind& kind_;
  const Environment env_;
  std::shared_ptr<const PreparedBody> body_;
  const nlohmann::json ground_truth_;
  const std::string ground_truth_text_;
};

// Grades an output. Never throws for any output text (an empty text grades as an empty output).
// The result is complete, sealed trials included: it is for whoever holds the trial files (the
// operator); what the public may see of it is PublicResult().
nlohmann::json Grade(const PreparedTrial& trial, std::string_view output, const std::string& corpus_hash,
                     DrugValidator& validator);

// Grade() serialized as results are stored: compact, keys sorted, invalid UTF-8 replaced
// (DumpJson). The same bytes as DumpJson(Grade(...)), without copying and re-serializing the
// trial's ground truth for every output.
std::string GradeText(const PreparedTrial& trial, std::string_view output, const std::string& corpus_hash,
                      DrugValidator& validator);

// How results are serialized: compact, keys sorted, invalid UTF-8 written as U+FFFD.
std::string DumpJson(const nlohmann::json& j);

// What a result shows in public. Open trials: all of it. Sealed trials: the total, the Unsafe
// label and the number of critical errors (each withheld), the versions, and the submission's
// own facts (id, vendor, created_at) — nothing per category, item, count or evidence, because
// those rebuild the answer key over a few dozen probes.
nlohmann::json PublicResult(const nlohmann::json& result);

}  // namespace scribe
