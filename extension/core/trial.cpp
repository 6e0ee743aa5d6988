// trial.cpp — the keys every trial shares, dispatch to its kind's schema, (de)serialisation and
// the corpus (see trial.h).
#include "trial.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "hash.h"
#include "kind.h"

namespace scribe {
namespace {

using nlohmann::json;

constexpr size_t kMaxIdLength = 64;
// Nodes a trial document may hold once aliases are expanded: far above any real trial (the
// largest in the corpus has a few hundred), far below what a billion-laughs file expands to.
constexpr size_t kMaxExpandedNodes = 100000;

const std::vector<std::string>& CommonKeys() {
  static const std::vector<std::string> keys = {"id", "kind", "title", "difficulty", "summary", "encounter_text",
                                                "instructions", "sealed"};
  return keys;
}

// NN-slug: two digits, a hyphen, lower-case words joined by single hyphens.
bool IsTrialId(std::string_view id) {
  if (id.size() < 4 || id.size() > kMaxIdLength) return false;
  if (!(id[0] >= '0' && id[0] <= '9' && id[1] >= '0' && id[1] <= '9' && id[2] == '-')) return false;
  bool previous_hyphen = true;
  for (char c : id.substr(3)) {
    bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word && c != '-') return false;
    if (c == '-' && previous_hyphen) return false;
    previous_hyphen = c == '-';
  }
  return !previous_hyphen;
}

// Counts nodes as a reader walking the document sees them (aliases expanded), stopping at the
// bound: the cost of the check is bounded by the bound, whatever the file.
bool WithinExpandedBound(const YAML::Node& n, size_t& budget) {
  if (budget == 0) return false;
  --budget;
  if (n.IsSequence())
    for (const auto& v : n)
      if (!WithinExpandedBound(v, budget)) return false;
  if (n.IsMap())
    for (const auto& kv : n)
      if (!WithinExpandedBound(kv.first, budget) || !WithinExpandedBound(kv.second, budget)) return false;
  return true;
}

std::string KindList() {
  std::string list;
  for (const Kind* k : AllKinds()) list += (list.empty() ? "" : ", ") + std::string(k->name());
  return list;
}

}  // namespace

Trial ParseTrial(std::string_view yaml_text, std::string_view file_name, const Rules& rules,
                 const Terminology& terminology, const FileReader& read_file) {
  const std::string file(file_name);
  SchemaPath top(file, "");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw TrialError(file + ": line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) +
                     ": invalid YAML: " + e.msg);
  }
  if (!root || !root.IsMap()) top.Fail("expected a mapping of trial keys (id, title, difficulty, …)");
  try {
    size_t budget = kMaxExpandedNodes;
    if (!WithinExpandedBound(root, budget))
      top.Fail("more than " + std::to_string(kMaxExpandedNodes) + " values once YAML aliases are expanded");
    Trial t;
    t.source_file = file;
    t.yaml = std::string(yaml_text);
    std::string kind_name = "note";
    if (YAML::Node k = root["kind"]; k && !k.IsNull()) {
      if (!k.IsScalar()) top.Key("kind").Fail("expected text");
      kind_name = std::string(Trim(k.as<std::string>()));
    }
    const Kind* kind = FindKind(kind_name);
    if (!kind) top.Key("kind").Fail("unknown kind " + Quote(kind_name) + " (known kinds: " + KindList() + ")");
    t.kind = kind_name;
    std::vector<std::string> allowed = CommonKeys();
    for (const std::string& k : kind->keys()) allowed.push_back(k);
    CheckKeys(root, top, allowed);

    t.id = RequiredString(root, "id", top);
    if (!IsTrialId(t.id))
      top.Key("id").Fail("must look like NN-slug (two digits, a hyphen, lower-case words; at most " +
                         std::to_string(kMaxIdLength) + " characters), got " + Quote(t.id));
    t.title = std::string(Trim(RequiredString(root, "title", top)));
    t.difficulty = RequiredString(root, "difficulty", top);
    if (t.difficulty != "easy" && t.difficulty != "medium" && t.difficulty != "hard")
      top.Key("difficulty").Fail("must be easy, medium or hard, got " + Quote(t.difficulty));
    t.summary = std::string(Trim(RequiredString(root, "summary", top)));
    if (kind->needs_encounter_text()) t.encounter_text = RequiredString(root, "encounter_text", top);
    else if (root["encounter_text"]) top.Key("encounter_text").Fail("is not used by kind " + kind_name + " (its input comes from its own keys)");
    t.instructions = std::string(Trim(RequiredString(root, "instructions", top)));
    if (YAML::Node s = root["sealed"]; s && !s.IsNull()) t.sealed = Boolean(s, top.Key("sealed"));

    ParseEnv env{rules, terminology, [&](const std::string& path, const SchemaPath& where) {
                   if (!read_file) where.Fail("cannot read " + Quote(path) + ": no corpus directory to read it from");
                   auto it = t.files.find(path);
                   if (it != t.files.end()) return it->second;
                   std::string bytes = read_file(path);
                   t.files.emplace(path, bytes);
                   return bytes;
                 }};
    kind->Parse(root, top, env, t);
    // The version covers the file and every file it references.
    if (t.files.empty()) {
      t.version_hash = Sha256Hex(yaml_text);
    } else {
      Sha256 h;
      h.Update(yaml_text);
      for (const auto& [path, bytes] : t.files) {
        h.Update(path);
        h.Update(bytes);
      }
      t.version_hash = h.HexDigest();
    }
    return t;
  } catch (const YAML::Exception& e) {
    throw TrialError(file + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

json GroundTruthJson(const Trial& t) { return KindOf(t).GroundTruth(t); }

json TrialToJson(const Trial& t) {
  // The definition is the file itself (and the files it references): rebuilding parses it again
  // with the same validator, so a stored trial is exactly the trial that was loaded.
  return {{"format", 2}, {"kind", t.kind}, {"source_file", t.source_file}, {"version_hash", t.version_hash},
          {"yaml", t.yaml}, {"files", t.files}};
}

Trial TrialFromJson(const json& j, const Rules& rules, const Terminology& terminology) {
  std::string file = j.value("source_file", std::string("(stored trial)"));
  std::string hash = j.value("version_hash", std::string());
  Trial t;
  if (j.value("format", 1) >= 2 && j.contains("yaml") && j["yaml"].is_string()) {
    std::map<std::string, std::string> files;
    if (j.contains("files") && j["files"].is_object())
      for (const auto& [path, bytes] : j["files"].items())
        if (bytes.is_string()) files[path] = bytes.get<std::string>();
    FileReader stored = [&](const std::string& path) -> std::string {
      auto it = files.find(path);
      if (it == files.end()) throw TrialError(file + ": referenced file " + Quote(path) + " is not in the stored definition");
      return it->second;
    };
    t = ParseTrial(j["yaml"].get<std::string>(), file, rules, terminology, stored);
  } else {
    // Format 1 (databases written before kinds): the trial's own structure as JSON, which is YAML.
    json copy = j;
    copy.erase("source_file");
    copy.erase("version_hash");
    if (copy.contains("critical_errors") && copy["critical_errors"].empty()) copy.erase("critical_errors");
    t = ParseTrial(copy.dump(-1, ' ', false, json::error_handler_t::replace), file, rules, terminology);
  }
  t.version_hash = hash;
  return t;
}

Corpus LoadCorpus(const std::string& dir, const Rules& rules, const Terminology& terminology) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw TrialError(dir + ": not a readable directory");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".yml") files.push_back(entry.path());
  }
  if (ec) throw TrialError(dir + ": " + ec.message());
  if (files.empty()) throw TrialError(dir + ": no trial files (*.yaml) found");
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  // Reads a file of at most kMaxTrialFileBytes, refusing a larger one before reading it.
  auto read_capped = [](const fs::path& p, const std::string& name) {
    std::error_code size_ec;
    auto size = fs::file_size(p, size_ec);
    if (size_ec) throw TrialError(name + ": cannot be read");
    if (size > kMaxTrialFileBytes) throw TrialError(name + ": larger than 1 MiB");
    std::ifstream in(p, std::ios::binary);
    if (!in) throw TrialError(name + ": cannot be read");
    std::string bytes(kMaxTrialFileBytes + 1, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<size_t>(in.gcount()));
    if (bytes.size() > kMaxTrialFileBytes) throw TrialError(name + ": larger than 1 MiB");
    return bytes;
  };
  const fs::path root = fs::path(dir);
  Corpus corpus;
  Sha256 corpus_hash;
  std::set<std::string> ids;
  for (const fs::path& p : files) {
    const std::string name = p.filename().string();
    std::string bytes = read_capped(p, name);
    corpus_hash.Update(bytes);
    // Referenced files: paths relative to the corpus directory, never outside it.
    FileReader reader = [&](const std::string& path) {
      fs::path rel(path);
      bool escapes = rel.is_absolute() || path.empty();
      for (const auto& part : rel) escapes = escapes || part == "..";
      if (escapes) throw TrialError(name + ": referenced file " + Quote(path) + " must be a relative path inside the corpus directory");
      return read_capped(root / rel, name + ": " + path);
    };
    Trial t = ParseTrial(bytes, name, rules, terminology, reader);
    for (const auto& [path, content] : t.files) corpus_hash.Update(content);
    if (!ids.insert(t.id).second) throw TrialError(name + ": id: duplicate trial id \"" + t.id + "\"");
    corpus.files.emplace_back(name, t.version_hash);
    corpus.trials.push_back(std::move(t));
  }
  std::sort(corpus.trials.begin(), corpus.trials.end(), [](const Trial& a, const Trial& b) { return a.id < b.id; });

  // The recordings (audio.h). Their manifest is part of the corpus version.
  corpus.audio = LoadAudioManifest(AudioDirectory(dir));
  if (!corpus.audio.bytes.empty()) {
    corpus_hash.Update(corpus.audio.bytes);
    corpus.files.emplace_back(kAudioManifestName, corpus.audio.sha256);
  }
  MatchRecordings(corpus.audio, corpus.trials);

  corpus.corpus_hash = corpus_hash.HexDigest();
  return corpus;
}

}  // namespace scribe
