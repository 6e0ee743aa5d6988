// Unit tests for audio.h: the encounter audio manifest beside a trial directory, its place in
// the corpus hash, stale recordings, and every way a manifest can disagree with its files.
// Fixture: tests/fixtures/audio (scripts/ three trials; audio/ two recordings, the second
// rendered from an earlier text of its trial, the third trial has none).
#include "audio.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hash.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"

namespace scribe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kFixture = "tests/fixtures/audio";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

TEST(AudioDirectory, IsTheSiblingAudioFolder) {
  EXPECT_EQ(AudioDirectory("corpus/scripts"), "corpus/scripts/../audio");
  EXPECT_EQ(AudioDirectory("/srv/sealed"), "/srv/sealed/../audio");
}

TEST(AudioCorpus, FixtureRecordingsStaleAndMissing) {
  ASSERT_TRUE(fs::is_directory(kFixture)) << "run from the repository root";
  Corpus c = LoadCorpus(kFixture + "/scripts", DefaultRules(), DefaultTerminology());
  ASSERT_EQ(c.trials.size(), 3u);
  ASSERT_EQ(c.audio.recordings.size(), 2u);
  const Recording& fresh = c.audio.recordings[0];
  EXPECT_EQ(fresh.trial_id, "01-earache-three-voices");
  EXPECT_EQ(fresh.file, "01-earache-three-voices.opus");
  EXPECT_EQ(fresh.sha256, Sha256Hex(ReadFile(kFixture + "/audio/01-earache-three-voices.opus")));
  EXPECT_EQ(fresh.bytes, static_cast<std::int64_t>(fs::file_size(kFixture + "/audio/01-earache-three-voices.opus")));
  EXPECT_EQ(fresh.text_sha256, Sha256Hex(c.trials[0].encounter_text));
  EXPECT_FALSE(fresh.stale);
  ASSERT_EQ(fresh.voices.size(), 3u);
  EXPECT_EQ(fresh.voices[2],
            (json{{"speaker", "Mother"},
                  {"role", "other"},
                  {"voice", "flite cmu_us_slt 2.5 semitones lower (US English, female, a second voice)"}}));
  // Rendered from "Doctor: Any cough?\nPatient: No.\n", before the text was edited.
  EXPECT_EQ(c.audio.recordings[1].trial_id, "02-stale-recording");
  EXPECT_EQ(c.audio.recordings[1].text_sha256, Sha256Hex("Doctor: Any cough?\nPatient: No.\n"));
  EXPECT_TRUE(c.audio.recordings[1].stale);
  // 03-no-recording has none: allowed.

  // The corpus hash covers the trial files in order, then the manifest, and lists it last.
  std::string all;
  for (const char* f : {"01-earache-three-voices.yaml", "02-stale-recording.yaml", "03-no-recording.yaml"})
    all += ReadFile(kFixture + "/scripts/" + f);
  const std::string manifest = ReadFile(kFixture + "/audio/manifest.json");
  EXPECT_EQ(c.corpus_hash, Sha256Hex(all + manifest));
  ASSERT_EQ(c.files.size(), 4u);
  EXPECT_EQ(c.files[3], (std::pair<std::string, std::string>{"../audio/manifest.json", Sha256Hex(manifest)}));
}

TEST(AudioCorpus, NoManifestLeavesTheHashAsBefore) {
  Corpus c = LoadCorpus("tests/fixtures/corpus_extra", DefaultRules(), DefaultTerminology());
  EXPECT_TRUE(c.audio.bytes.empty());
  EXPECT_TRUE(c.audio.recordings.empty());
  EXPECT_EQ(c.files.size(), 2u);
}

// A copy of the fixture in a temporary directory whose manifest each test rewrites.
class AudioManifestErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("scribe-audio-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(kFixture, root_, fs::copy_options::recursive);
    manifest_ = json::parse(ReadFile(root_ / "audio/manifest.json"));
  }
  void TearDown() override { fs::remove_all(root_); }

  // The load error after the manifest is replaced by `m` ("(no error)" when it loads).
  std::string ErrorWith(const json& m) {
    WriteFile(root_ / "audio/manifest.json", m.dump(2));
    try {
      LoadCorpus((root_ / "scripts").string(), DefaultRules(), DefaultTerminology());
    } catch (const TrialError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path root_;
  json manifest_;
};

TEST_F(AudioManifestErrors, Shape) {
  WriteFile(root_ / "audio/manifest.json", "{not json");
  try {
    LoadCorpus((root_ / "scripts").string(), DefaultRules(), DefaultTerminology());
    FAIL() << "loaded";
  } catch (const TrialError& e) {
    EXPECT_STREQ(e.what(), "../audio/manifest.json: (top level): not a JSON object");
  }
  json m = manifest_;
  m["format"] = 2;
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: format: must be 1");
  m = manifest_;
  m.erase("recordings");
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings: is required");
  m = manifest_;
  m["recordings"][0]["sha256"] = "ABC";
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings[0].sha256: must be 64 lower-case hex digits");
  m = manifest_;
  m["recordings"][1].erase("text_sha256");
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings[1].text_sha256: is required");
  m = manifest_;
  m["recordings"][0]["duration_s"] = 0;
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings[0].duration_s: expected a positive number of seconds");
  m = manifest_;
  m["recordings"][0]["voices"][1].erase("role");
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings[0].voices[1].role: is required");
  m = manifest_;
  m["recordings"][1]["trial_id"] = "01-earache-three-voices";
  m["recordings"][1]["file"] = "01-earache-three-voices.opus";
  m["recordings"][1]["sha256"] = manifest_["recordings"][0]["sha256"];
  m["recordings"][1]["bytes"] = manifest_["recordings"][0]["bytes"];
  EXPECT_EQ(ErrorWith(m),
            "../audio/manifest.json: recordings[1].trial_id: duplicate trial id \"01-earache-three-voices\"");
}

TEST_F(AudioManifestErrors, NoPathTricks) {
  json m = manifest_;
  m["recordings"][0]["file"] = "../scripts/01-earache-three-voices.yaml";
  EXPECT_EQ(ErrorWith(m), "../audio/manifest.json: recordings[0].file: must be \"01-earache-three-voices.opus\"");
  m = manifest_;
  m["recordings"][0]["trial_id"] = "../../etc/passwd";
  EXPECT_EQ(ErrorWith(m),
            "../audio/manifest.json: recordings[0].trial_id: must look like NN-slug, got \"../../etc/passwd\"");
}

TEST_F(AudioManifestErrors, FilesMustMatch) {
  const std::string sha = manifest_["recordings"][0]["sha256"];
  // One byte changed: same size, another checksum.
  std::string bytes = ReadFile(root_ / "audio/01-earache-three-voices.opus");
  bytes[bytes.size() / 2] ^= 1;
  WriteFile(root_ / "audio/01-earache-three-voices.opus", bytes);
  EXPECT_EQ(ErrorWith(manifest_), "../audio/manifest.json: recordings[0]: 01-earache-three-voices.opus: SHA-256 is " +
                                      Sha256Hex(bytes) + ", the manifest says " + sha);
  WriteFile(root_ / "audio/01-earache-three-voices.opus", bytes + "x");
  EXPECT_EQ(ErrorWith(manifest_),
            "../audio/manifest.json: recordings[0]: 01-earache-three-voices.opus: " + std::to_string(bytes.size() + 1) +
                " bytes, the manifest says " + std::to_string(bytes.size()));
  fs::remove(root_ / "audio/01-earache-three-voices.opus");
  EXPECT_EQ(ErrorWith(manifest_),
            "../audio/manifest.json: recordings[0]: 01-earache-three-voices.opus: missing (run scripts/render_audio)");
}

TEST_F(AudioManifestErrors, OtherTrialsEntriesAreIgnoredButHashed) {
  // A recording of a trial this corpus does not have (the corpus moved on): not offered, still hashed.
  fs::remove(root_ / "scripts/01-earache-three-voices.yaml");
  Corpus c = LoadCorpus((root_ / "scripts").string(), DefaultRules(), DefaultTerminology());
  ASSERT_EQ(c.audio.recordings.size(), 1u);
  EXPECT_EQ(c.audio.recordings[0].trial_id, "02-stale-recording");
  EXPECT_EQ(c.files.back().first, "../audio/manifest.json");
}

}  // namespace
}  // namespace scribe
