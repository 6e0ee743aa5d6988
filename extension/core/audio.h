// audio.h — the frozen encounter audio of a corpus: the recordings scripts/render_audio wrote
// beside the trial directory (<corpus dir>/../audio/manifest.json and one <trial id>.opus per
// trial), read and checked at corpus load.
//
//   AudioManifest audio = LoadAudioManifest(AudioDirectory("corpus/scripts"));  // corpus/audio
//   MatchRecordings(audio, trials);   // drops other trials' entries, marks stale recordings
//
// The manifest's bytes are part of the corpus hash (LoadCorpus), so a changed recording is a
// new corpus version. A trial without a recording is allowed; a recording whose text_sha256 is
// not the SHA-256 of its trial's encounter_text is *stale* (rendered from another text) and is
// not offered as the trial's recording. A listed file that is missing, or whose size or SHA-256
// differs from the manifest, fails the load (TrialError naming the entry and the problem).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scribe {

struct Trial;

struct Recording {
  std::string trial_id;
  std::string file;    // <trial id>.opus, inside the audio directory
  std::string sha256;  // of the file
  std::int64_t bytes = 0;
  double duration_s = 0;
  nlohmann::json voices;    // [{"speaker", "role", "voice"}]
  std::string text_sha256;  // of the encounter text it was rendered from (UTF-8)
  nlohmann::json renderer;  // {"script", "render_version", "packages": {name: version}}
  bool stale = false;       // set by MatchRecordings
};

struct AudioManifest {
  std::string bytes;                  // the manifest file as read; empty when there is none
  std::string sha256;                 // of bytes; empty when there is none
  std::vector<Recording> recordings;  // sorted by trial id
};

// The label recordings are named by in messages and in corpus_versions.files.
inline constexpr const char* kAudioManifestName = "../audio/manifest.json";

// The audio directory of a trial directory: <dir>/../audio.
std::string AudioDirectory(const std::string& corpus_dir);

// Reads and checks <audio_dir>/manifest.json and the files it lists. No manifest: an empty
// AudioManifest. Throws TrialError("../audio/manifest.json: recordings[1].sha256: …").
AudioManifest LoadAudioManifest(const std::string& audio_dir);

// Keeps the recordings of `trials` only, and marks those whose text_sha256 differs from the
// SHA-256 of their trial's encounter_text as stale.
void MatchRecordings(AudioManifest& audio, const std::vector<Trial>& trials);

}  // namespace scribe
