// kind.h — the seam between the benchmark and what it grades: a task kind.
//
// A trial's `kind` (default `note`) picks one row of the registry (registry.cpp). A kind is
//
//   schema     keys()/Parse(): the top-level keys it adds to the common ones and their validation
//   prepared   Prepare(): what is compiled once per trial (encounter analysed, phrases compiled)
//   scorer     Score(): prepared + output text → a typed Outcome (never throws for any output)
//   renderer   Render(): Outcome → the kind's members of the published result, written into the
//              result object through a JsonWriter
//
// plus GroundTruth() (revealed with results of open trials), Prompt() (what an agent is given),
// Reasons() (a result's main losses in words) and Methodology() (served by GET /api/methodology). grade.cpp builds the common envelope
// (scores, versions, critical errors, the sealed view) around Render(); the SQL functions, the
// API, the leaderboard and the web app read `kind` and never switch on it elsewhere. Adding a
// kind is adding a folder kinds/<kind>/ and one row in registry.cpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "assertion.h"
#include "evidence.h"
#include "json_writer.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"
#include "validator.h"

namespace scribe {

// The process-wide rule tables a kind prepares and grades with.
struct Environment {
  const Rules& rules;
  const Terminology& terminology;
  const AssertionAnalyzer& assertion;
};

// What a kind needs while parsing its keys.
struct ParseEnv {
  const Rules& rules;
  const Terminology& terminology;
  // Reads a file the trial references and records it in trial.files; throws TrialError.
  std::function<std::string(const std::string& path, const SchemaPath& where)> read_file;
};

// A kind's compiled form of one trial.
struct PreparedBody {
  virtual ~PreparedBody() = default;
};

// The typed result of grading one output. Kinds derive their own with everything they publish.
struct Outcome {
  virtual ~Outcome() = default;
  double score_total = 0;  // 0..1, rounded to 4 decimals
  std::vector<CriticalError> critical_errors;
};

// Per-grade services: drug strings are validated through the connection's validator.
struct GradeContext {
  DrugValidator& validator;
};

class Kind {
 public:
  virtual ~Kind() = default;
  virtual std::string_view name() const = 0;
  // One line: what is graded and how score_total is computed.
  virtual std::string_view description() const = 0;
  // The top-level keys this kind adds to id, kind, title, difficulty, summary, encounter_text,
  // instructions and sealed.
  virtual std::vector<std::string> keys() const = 0;
  // Whether the trial file must carry encounter_text (the text an agent is given). A kind whose
  // input is a referenced file (a FHIR bundle) sets trial.encounter_text in Parse instead.
  virtual bool needs_encounter_text() const { return true; }
  // Validates the kind's keys of `root` into trial.body. May fill trial.encounter_text (a kind
  // whose input is a file) and must fail when what the agent is given is missing.
  virtual void Parse(const YAML::Node& root, const SchemaPath& top, const ParseEnv& env, Trial& trial) const = 0;
  virtual nlohmann::json GroundTruth(const Trial& trial) const = 0;
  virtual std::shared_ptr<const PreparedBody> Prepare(const Trial& trial, const Environment& env) const = 0;
  virtual std::unique_ptr<Outcome> Score(const Trial& trial, const PreparedBody& prepared, std::string_view output,
                                         GradeContext& ctx) const = 0;
  // Writes the kind's members of the result into the open result object `w`, in any order (the
  // writer sorts them in among the envelope's). A key of the envelope's (GradeText, grade.cpp)
  // must not be written again: the writer throws std::logic_error on a repeated key.
  virtual void Render(const Trial& trial, const Outcome& outcome, JsonWriter& w) const = 0;
  // What an agent is given: by default the instructions, a blank line and the encounter text.
  virtual std::string Prompt(const Trial& trial) const;
  // What cost the most in a result this kind rendered, in words, worst first, at most `limit`
  // (scribe-run's per-case table). By default the critical errors' messages.
  virtual std::vector<std::string> Reasons(const nlohmann::json& result, size_t limit) const;
  virtual nlohmann::json Methodology() const = 0;
  // The version of the rules this kind grades by (results carry it; a grade belongs to it).
  virtual std::string methodology_version(const Rules& rules) const { return rules.methodology_version; }
};

// The kind named `name`, or nullptr.
const Kind* FindKind(std::string_view name);
// Every kind, in registry order.
const std::vector<const Kind*>& AllKinds();
// The kind of a parsed trial (its name was validated at load).
const Kind& KindOf(const Trial& trial);

}  // namespace scribe
