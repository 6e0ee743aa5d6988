// grade.h — grading an output against a trial of any kind (kinds/kind.h, docs/methodology.md).
//
//   PreparedTrial prepared(trial, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer());
//   OfflineValidator validator(DefaultTerminology());
//   std::string stored = GradeText(prepared, note, corpus_hash, validator);   // what SQL stores
//   nlohmann::json result = Grade(prepared, note, corpus_hash, validator);   // the same, as a DOM
//   result["score_total"]                     // 0..1, 4 decimals
//
// The result is the published report: the envelope every kind shares (trial, kind, score_total,
// unsafe, critical_errors, versions, ground truth unless sealed) around the kind's own fields.
// GradeText writes it as text through a JsonWriter (json_writer.h): the envelope, the kind's
// members (Kind::Render) and the ground truth from its one serialization, no DOM in between.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "assertion.h"
#include "json_writer.h"
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
  // DumpJson(GroundTruthJson(trial())), serialized once: every result publishes it.
  const std::string& ground_truth_text() const { return ground_truth_text_; }

 private:
  const Trial trial_;
  const Kind& kind_;
  const Environment env_;
  std::shared_ptr<const PreparedBody> body_;
  const std::string ground_truth_text_;
};

// Grades an output, as results are stored: compact JSON, keys sorted, invalid UTF-8 replaced (the
// bytes DumpJson writes). Never throws for any output text (an empty text grades as an empty
// output). The result is complete, sealed trials included: it is for whoever holds the trial
// files (the operator); what the public may see of it is PublicResult().
std::string GradeText(const PreparedTrial& trial, std::string_view output, const std::string& corpus_hash,
                      DrugValidator& validator);

// GradeText() parsed (tests, scribe-run's local grader): strings as stored, invalid UTF-8 already
// replaced.
nlohmann::json Grade(const PreparedTrial& trial, std::string_view output, const std::string& corpus_hash,
                     DrugValidator& validator);

// What a result shows in public. Open trials: all of it. Sealed trials: the total, the Unsafe
// label and the number of critical errors (each withheld), the versions, and the submission's
// own facts (id, vendor, created_at) — nothing per category, item, count or evidence, because
// those rebuild the answer key over a few dozen probes.
nlohmann::json PublicResult(const nlohmann::json& result);
// PublicResult of a stored result's text, serialized (DumpJson): what scribe_public_result()
// answers and POST /api/submit sends. Throws std::invalid_argument when the text is not JSON.
std::string PublicResultText(std::string_view result);

// What POST /api/submit answers for a stored submission, made from the grade as grade_submission()
// wrote it (DumpJson of an object) and the submission's own facts: the grade's members with "id",
// "vendor" and "created_at" put in key order. The same bytes as PublicResultText of the stored
// result (the grade with those three members set), without parsing 9 KB of JSON back into a DOM
// and writing it again. nullopt where that shortcut does not hold (a sealed trial's grade, a
// grade that already has one of the three keys, text that is not DumpJson's compact object):
// the caller then uses PublicResultText.
std::optional<std::string> PublicSubmissionText(std::string_view grade, std::string_view id, std::string_view vendor,
                                                std::string_view created_at);

}  // namespace scribe
