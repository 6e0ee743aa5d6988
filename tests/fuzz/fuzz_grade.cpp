// fuzz_grade.cpp — libFuzzer: note text → AnalyzeText and Grade against a corpus trial.
//
// The first byte picks the trial (corpus/scripts plus the sealed fixture), the rest is the note
// (for the FHIR kinds, the agent's answer: tests/fixtures/notes/1[4-9]-*..40-* seed them), graded offline. Grade's contract is that no note text throws, crashes or trips a sanitizer;
// the result must also serialise (invalid UTF-8 replaced). Run by scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "assertion.h"
#include "extract.h"
#include "grade.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"
#include "validator.h"

namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every trial of the shipped corpus and the sealed fixture, prepared once.
const std::vector<std::unique_ptr<scribe::PreparedTrial>>& Trials() {
  static const auto* trials = [] {
    auto* out = new std::vector<std::unique_ptr<scribe::PreparedTrial>>();
    const scribe::Rules& rules = scribe::DefaultRules();
    std::vector<std::filesystem::path> files;
    for (const char* dir : {"corpus/scripts", "tests/fixtures/corpus_extra"})
      for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SCRIBE_SOURCE_DIR) / dir))
        if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      // Files a trial references (FHIR bundles and write cases) beside it, as LoadCorpus reads them.
      scribe::FileReader reader = [dir = f.parent_path()](const std::string& path) { return ReadFile(dir / path); };
      scribe::Trial trial =
          scribe::ParseTrial(ReadFile(f), f.filename().string(), rules, scribe::DefaultTerminology(), reader);
      out->push_back(std::make_unique<scribe::PreparedTrial>(std::move(trial), rules, scribe::DefaultTerminology(),
                                                             scribe::DefaultAssertionAnalyzer()));
    }
    return out;
  }();
  return *trials;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& trials = Trials();
  if (size == 0) return 0;
  const scribe::PreparedTrial& trial = *trials[data[0] % trials.size()];
  std::string_view note(reinterpret_cast<const char*>(data) + 1, size - 1);
  scribe::AnalyzeText(note, trial.rules(), scribe::DefaultTerminology(), scribe::DefaultAssertionAnalyzer());
  scribe::OfflineValidator validator(scribe::DefaultTerminology());
  nlohmann::json result = scribe::Grade(trial, note, "fuzz", validator);
  (void)result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)scribe::PublicResult(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
