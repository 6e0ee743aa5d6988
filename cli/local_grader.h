// local_grader.h — the server's grader, in process: the same extension, corpus load and validator.
//
//   LocalGrader grader("corpus/scripts", /*sealed_dir=*/"", /*live=*/false);
//   for (const TrialInfo& t : grader.trials()) run(t.prompt);
//   nlohmann::json result = grader.Grade("03-depression-suicidal-ideation", note);
//
// scribe-fcgi prepares its database with `SELECT scribe_load_corpus(corpus, sealed)` and grades
// with `grade_submission(script_id, note)` (sql/endpoints/grade.sql); so does this, on an
// in-memory database with the statically linked extension. A prompt is the trial's kind's
// Prompt() of the trial rebuilt from its stored definition, as the grader rebuilds it.
//
// Drug strings are validated offline (the compiled-in RxNorm subset) unless `live` is set; then
// the extension's own choice applies — the environment the server reads (SCRIBE_OFFLINE,
// SCRIBE_RXNAV_URL, …, docs/live-validation.md) with its fallback to offline, reasons included.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace scribe::run {

struct TrialInfo {
  std::string id, kind, title;
  bool sealed = false;
  std::string prompt;         // what the agent is given on stdin
  std::string prompt_sha256;  // SHA-256 of the prompt's bytes
};

class LocalGrader {
 public:
  // Loads the corpus (and the sealed trials of `sealed_dir` when not empty); throws
  // std::runtime_error with the loader's message ("loading corpus/x: …") when it cannot.
  LocalGrader(const std::string& corpus_dir, const std::string& sealed_dir, bool live);
  ~LocalGrader();
  LocalGrader(const LocalGrader&) = delete;
  LocalGrader& operator=(const LocalGrader&) = delete;

  // Every trial of the corpus, sorted by id.
  const std::vector<TrialInfo>& trials() const { return trials_; }
  const TrialInfo* Find(std::string_view id) const;
  const std::string& corpus_hash() const { return corpus_hash_; }
  bool live() const { return live_; }

  // The full result grade_submission gives (sealed trials included: whoever runs this holds
  // the trial files). Throws std::runtime_error for an unknown trial.
  nlohmann::json Grade(const std::string& trial_id, std::string_view output);

  // {"grader_version", "methodology_versions": {kind: version}, "corpus_hash", "validation"}.
  nlohmann::json Versions() const;

 private:
  void ReadTrials();  // the loaded trials and their prompts
  sqlite3* db_ = nullptr;
  bool live_ = false;
  std::string corpus_hash_;
  std::vector<TrialInfo> trials_;
};

}  // namespace scribe::run
