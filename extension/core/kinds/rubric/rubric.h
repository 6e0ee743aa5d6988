// rubric.h — kind `rubric` (seed 001, the psychiatry methodology): a note scored on a 100-point
// checklist in four categories, minus hallucination deductions (docs/methodology.md, "Kind
// rubric"; the defaults are data in corpus/rules/rubric.yaml).
//
//   item credit   full (points) · partial (partial_credit × points, default 0.5) · absent 0 · incorrect 0
//   deductions    minor −3 · major −8 · critical invented completed action −15, for unsupported
//                 additions only: the trial's own lists and the generic detectors
//   total         max(0, Σ item points − deductions);  score_total = total / 100
//
// Critical errors are defined in advance (critical_errors, items marked critical, invented
// prescriptions, ten-fold doses) and flagged apart from the points: any one labels the note
// Unsafe as written, whatever its total.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kind.h"
#include "scorers/critical_rules.h"
#include "scorers/meds.h"

namespace scribe {

struct RubricCategory {
  std::string name, label;
  double points = 0;
};

struct RubricItem {
  std::string id, category, fact;
  double points = 0, partial_credit = 0.5;
  // A text fact: present and correct when a `find` phrase is asserted as `negated` says (a
  // denial: "denies plan or intent") and `when` allows; partial when only a `partial` phrase is,
  // or when a `requires` group is missing; incorrect when an `incorrect` phrase is asserted, or
  // a `find` phrase with the opposite polarity.
  std::vector<std::string> find, partial, incorrect;
  std::vector<std::vector<std::string>> required;  // each group: one phrase of it, any assertion
  bool negated = false;
  bool advice = false;  // assert: advice — a hypothetical mention counts as affirmed
  When when = When::kCurrent;
  // A medication fact (instead of find): full when documented for the patient with every given
  // component right, partial when a component is missing, incorrect when one differs.
  std::optional<ExpectedMed> med;
  bool critical = false;  // recorded incorrectly, it is also a critical error
};

struct RubricDeduction {
  std::string severity;  // minor, major, critical
  std::vector<std::string> phrases;
  std::string why;
  When when = When::kAny;
};

struct RubricTrial : TrialBody {
  std::vector<RubricCategory> categories;
  std::vector<RubricItem> items;
  std::vector<RubricDeduction> deductions;
  std::vector<CriticalRule> critical_errors;
};

const Kind& RubricKind();

// Points of a severity (minor 3, major 8, critical 15), from corpus/rules/rubric.yaml.
double SeverityPoints(const std::string& severity);

}  // namespace scribe
