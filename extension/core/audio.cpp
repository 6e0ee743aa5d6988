// audio.cpp — reading and checking the encounter audio manifest (see audio.h).
#include "audio.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "hash.h"
#include "trial.h"

namespace scribe {
namespace {

using nlohmann::json;

constexpr std::uintmax_t kMaxManifestBytes = 1u << 20;
constexpr std::uintmax_t kMaxRecordingBytes = 64u << 20;

[[noreturn]] void Fail(const std::string& where, const std::string& problem) {
  throw TrialError(std::string(kAudioManifestName) + ": " + where + ": " + problem);
}

const json& Field(const json& entry, const char* key, const std::string& where) {
  auto it = entry.find(key);
  if (it == entry.end()) Fail(where.empty() ? std::string(key) : where + "." + key, "is required");
  return *it;
}

std::string Text(const json& entry, const char* key, const std::string& where) {
  const json& v = Field(entry, key, where);
  if (!v.is_string() || v.get<std::string>().empty()) Fail(where + "." + key, "expected non-empty text");
  return v.get<std::string>();
}

std::string Hex64(const json& entry, const char* key, const std::string& where) {
  static const std::regex kHex("^[0-9a-f]{64}$");
  std::string s = Text(entry, key, where);
  if (!std::regex_match(s, kHex)) Fail(where + "." + key, "must be 64 lower-case hex digits");
  return s;
}

std::string ReadAll(const std::filesystem::path& path, std::uintmax_t limit, const std::string& where) {
  std::error_code ec;
  std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) Fail(where, path.filename().string() + ": missing (run scripts/render_audio)");
  if (size > limit) Fail(where, path.filename().string() + ": larger than " + std::to_string(limit >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) Fail(where, path.filename().string() + ": cannot be read");
  return bytes;
}

Recording ParseRecording(const json& entry, const std::string& where) {
  static const std::regex kId("^[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$");
  if (!entry.is_object()) Fail(where, "expected an object");
  Recording r;
  r.trial_id = Text(entry, "trial_id", where);
  if (!std::regex_match(r.trial_id, kId))
    Fail(where + ".trial_id", "must look like NN-slug, got \"" + r.trial_id.substr(0, 80) + "\"");
  r.file = Text(entry, "file", where);
  if (r.file != r.trial_id + ".opus") Fail(where + ".file", "must be \"" + r.trial_id + ".opus\"");
  r.sha256 = Hex64(entry, "sha256", where);
  const json& bytes = Field(entry, "bytes", where);
  if (!bytes.is_number_integer() || bytes.get<std::int64_t>() <= 0)
    Fail(where + ".bytes", "expected a positive whole number");
  r.bytes = bytes.get<std::int64_t>();
  const json& duration = Field(entry, "duration_s", where);
  if (!duration.is_number() || !(duration.get<double>() > 0))
    Fail(where + ".duration_s", "expected a positive number of seconds");
  r.duration_s = duration.get<double>();
  r.text_sha256 = Hex64(entry, "text_sha256", where);
  r.voices = Field(entry, "voices", where);
  if (!r.voices.is_array() || r.voices.empty()) Fail(where + ".voices", "expected a non-empty list");
  for (size_t i = 0; i < r.voices.size(); ++i) {
    std::string at = where + ".voices[" + std::to_string(i) + "]";
    if (!r.voices[i].is_object()) Fail(at, "expected an object");
    for (const char* key : {"speaker", "role", "voice"}) Text(r.voices[i], key, at);
  }
  r.renderer = Field(entry, "renderer", where);
  if (!r.renderer.is_object()) Fail(where + ".renderer", "expected an object");
  return r;
}

}  // namespace

std::string AudioDirectory(const std::string& corpus_dir) {
  return (std::filesystem::path(corpus_dir) / ".." / "audio").string();
}

AudioManifest LoadAudioManifest(const std::string& audio_dir) {
  namespace fs = std::filesystem;
  AudioManifest out;
  fs::path manifest = fs::path(audio_dir) / "manifest.json";
  std::error_code ec;
  if (!fs::exists(manifest, ec)) return out;
  out.bytes = ReadAll(manifest, kMaxManifestBytes, "(file)");
  out.sha256 = Sha256Hex(out.bytes);
  json doc = json::parse(out.bytes, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) Fail("(top level)", "not a JSON object");
  if (doc.value("format", json()) != json(1)) Fail("format", "must be 1");
  const json& list = Field(doc, "recordings", "");
  if (!list.is_array()) Fail("recordings", "expected a list");
  std::set<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = "recordings[" + std::to_string(i) + "]";
    Recording r = ParseRecording(list[i], where);
    if (!ids.insert(r.trial_id).second) Fail(where + ".trial_id", "duplicate trial id \"" + r.trial_id + "\"");
    std::string bytes = ReadAll(fs::path(audio_dir) / r.file, kMaxRecordingBytes, where);
    if (static_cast<std::int64_t>(bytes.size()) != r.bytes)
      Fail(where,
           r.file + ": " + std::to_string(bytes.size()) + " bytes, the manifest says " + std::to_string(r.bytes));
    std::string actual = Sha256Hex(bytes);
    if (actual != r.sha256) Fail(where, r.file + ": SHA-256 is " + actual + ", the manifest says " + r.sha256);
    out.recordings.push_back(std::move(r));
  }
  std::sort(out.recordings.begin(), out.recordings.end(),
            [](const Recording& a, const Recording& b) { return a.trial_id < b.trial_id; });
  return out;
}

void MatchRecordings(AudioManifest& audio, const std::vector<Trial>& trials) {
  std::map<std::string, const Trial*> by_id;
  for (const Trial& t : trials) by_id[t.id] = &t;
  std::erase_if(audio.recordings, [&](const Recording& r) { return !by_id.count(r.trial_id); });
  for (Recording& r : audio.recordings) r.stale = r.text_sha256 != Sha256Hex(by_id.at(r.trial_id)->encounter_text);
}

}  // namespace scribe
