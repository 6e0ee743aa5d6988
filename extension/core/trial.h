// trial.h — a benchmark trial: the keys every kind shares, the kind's own parsed keys, and the
// corpus (docs/trial-schema.md).
//
// A trial file is parsed and validated in full before anything is stored; every error names the
// file, the key path and the problem ("03-x.yaml: ground_truth.meds[0].dose: cannot parse dose
// \"fifty\""). The common keys are read here; `kind` (default `note`, so every seed-000 file
// loads unchanged) names the task kind (kinds/kind.h) whose schema reads the rest.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "audio.h"
#include "rules.h"
#include "schema.h"
#include "terminology.h"

namespace scribe {

// A kind's own parsed and validated keys (kinds/<kind>/): what it compiles and grades against.
struct TrialBody {
  virtual ~TrialBody() = default;
};

struct Trial {
  std::string id, kind = "note", title, difficulty, summary, encounter_text, instructions;
  bool sealed = false;
  std::string source_file;   // file name within the corpus directory
  std::string yaml;          // the file's text, as loaded (what trials.definition rebuilds from)
  std::string version_hash;  // SHA-256 of the file's bytes (and of the files it references)
  // Files the trial references (path as written → bytes), stored with its definition so a
  // database rebuilds every trial without the corpus directory.
  std::map<std::string, std::string> files;
  std::shared_ptr<const TrialBody> body;

  // The body as the kind's own type (the kind that parsed it knows it).
  template <class T>
  const T& As() const { return static_cast<const T&>(*body); }
};

// Reads a file a trial references, by the path written in the trial (relative to the corpus
// directory); throws TrialError naming the file when it cannot.
using FileReader = std::function<std::string(const std::string& path)>;

// Parses and validates one trial file's text. Throws TrialError("<file>: <key path>: <problem>").
// `read_file` resolves referenced files (FHIR bundles); without it a reference is an error.
Trial ParseTrial(std::string_view yaml_text, std::string_view file_name, const Rules& rules,
                 const Terminology& terminology, const FileReader& read_file = nullptr);

// Ground truth as published with a result (and stored in trials.ground_truth): the kind's.
nlohmann::json GroundTruthJson(const Trial& trial);
// Everything needed to rebuild the trial (stored in trials.definition): the file's own text and
// the files it references.
nlohmann::json TrialToJson(const Trial& trial);
Trial TrialFromJson(const nlohmann::json& j, const Rules& rules, const Terminology& terminology);

struct Corpus {
  std::vector<Trial> trials;        // sorted by id
  std::string corpus_hash;          // SHA-256 over the sorted files' bytes (referenced files after theirs), then the audio manifest's
  std::vector<std::pair<std::string, std::string>> files;  // file name, SHA-256, in hashing order
  AudioManifest audio;              // the recordings of these trials (audio.h); may be empty
};

// The largest trial file (and referenced file) LoadCorpus reads; larger files are refused
// before they are read.
constexpr size_t kMaxTrialFileBytes = 1u << 20;

// Loads every *.yaml / *.yml in `dir` (sorted by name), then the audio manifest beside it
// (AudioDirectory(dir), when there is one). Throws TrialError on the first invalid file, on
// duplicate ids, on an unreadable directory, when no trial file is found, or when the audio
// manifest is invalid or does not match its files.
Corpus LoadCorpus(const std::string& dir, const Rules& rules, const Terminology& terminology);

}  // namespace scribe
