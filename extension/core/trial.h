// trial.h — a benchmark trial: the YAML schema (docs/trial-schema.md), its validation, and the
// resolved ground truth the grader compares notes with.
//
// A trial file is parsed and validated in full before anything is stored; every error names the
// file, the key path and the problem ("03-x.yaml: ground_truth.meds[0].dose: cannot parse dose
// \"fifty\""). Doses, frequencies, routes and actions are parsed by the same normalisers that
// read notes, so a malformed value is caught at load, not at grading.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "audio.h"
#include "rules.h"
#include "sig.h"
#include "terminology.h"

namespace scribe {

class TrialError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExpectedMed {
  std::string name;
  std::string dose_text, frequency_text, route_text, action_text;  // as written ("" when absent)
  std::vector<std::string> synonyms;
  // Resolved.
  std::optional<Dose> dose;
  std::optional<Frequency> frequency;
  std::optional<std::string> route, action;
  std::vector<std::string> keys;   // ingredient keys of the name and its synonyms
  std::string drug, rxcui;         // ingredient names and RxCUIs for display
  bool in_terminology = false;
};

struct ExpectedAllergy { std::string substance, reaction; };
struct MentalFlag { std::string flag; std::vector<std::string> keywords; };
struct Trap { std::string phrase; std::vector<std::string> variants; bool match_any = false; };
struct CriticalRule {
  std::string id, description, med;
  std::vector<std::string> actions;   // canonical
  std::vector<std::string> asserts;
  std::vector<std::string> med_keys;  // resolved ingredient keys of `med`
};
struct Credit { double name = 0.5, dose = 0.25, frequency = 0.25, route = 0, action = 0; };
struct Weights { double drug = 0, mental = 0, fabrication = 0; };

struct Trial {
  std::string id, title, difficulty, summary, encounter_text, instructions;
  std::vector<ExpectedMed> meds;
  std::vector<ExpectedAllergy> allergies;
  std::vector<MentalFlag> mental_flags;
  std::vector<std::string> deferred_dx;
  std::vector<Trap> traps;
  Weights weights;
  Credit credit;
  bool credit_overridden = false;
  std::vector<CriticalRule> critical_errors;
  bool sealed = false;
  std::string source_file;    // file name within the corpus directory
  std::string version_hash;   // SHA-256 of the file's bytes
};

// Parses and validates one trial file's text. Throws TrialError("<file>: <key path>: <problem>").
Trial ParseTrial(std::string_view yaml_text, std::string_view file_name, const Rules& rules,
                 const Terminology& terminology);

// Ground truth as published with a result (and stored in trials.ground_truth).
nlohmann::json GroundTruthJson(const Trial& trial);
// Everything needed to rebuild the trial (stored in trials.definition).
nlohmann::json TrialToJson(const Trial& trial);
Trial TrialFromJson(const nlohmann::json& j, const Rules& rules, const Terminology& terminology);

struct Corpus {
  std::vector<Trial> trials;        // sorted by id
  std::string corpus_hash;          // SHA-256 over the sorted files' bytes, then the audio manifest's
  std::vector<std::pair<std::string, std::string>> files;  // file name, SHA-256, in hashing order
  AudioManifest audio;              // the recordings of these trials (audio.h); may be empty
};

// Loads every *.yaml / *.yml in `dir` (sorted by name), then the audio manifest beside it
// (AudioDirectory(dir), when there is one). Throws TrialError on the first invalid file, on
// duplicate ids, on an unreadable directory, when no trial file is found, or when the audio
// manifest is invalid or does not match its files.
Corpus LoadCorpus(const std::string& dir, const Rules& rules, const Terminology& terminology);

}  // namespace scribe
