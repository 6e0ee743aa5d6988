// grade_profile — the steady-state grade, for a profiler. Run from the repository root:
//
//   valgrind --tool=callgrind --instr-atstart=no build/tests/bench/grade_profile [ROUNDS [TRIAL_PREFIX]]
//   callgrind_annotate --inclusive=yes callgrind.out.<pid>
//
// Loads the corpus, prepares every trial and grades every fixture note once (warm-up: trial
// preparation, the approximate-match index, memos), then grades every fixture note
// (tests/fixtures/notes/<trial>/*.txt, *.json) ROUNDS more times (default 3) with callgrind's
// instrumentation on only around those grades, offline, as grade_submission stores them
// (GradeText); with TRIAL_PREFIX, only the trials whose id starts with it. Prints the number of grades and the bytes of results written. Outside valgrind
// it times the same rounds (wall clock, one core).
//
// With TRIAL_PREFIX `--extract`, profiles extract_drugs instead: ExtractDrugs over every
// reference note joined into one text, as grader_bench's BM_ExtractDrugs reads it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "callgrind_marks.h"
#include "grade.h"
#include "trial.h"
#include "validator.h"

namespace {

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scribe;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string prefix = argc > 2 ? argv[2] : "";
  Corpus corpus = LoadCorpus("corpus/scripts", DefaultRules(), DefaultTerminology());
  std::map<std::string, std::unique_ptr<PreparedTrial>> prepared;
  for (Trial& t : corpus.trials) {
    std::string id = t.id;
    prepared[id] = std::make_unique<PreparedTrial>(std::move(t), DefaultRules(), DefaultTerminology(),
                                                   DefaultAssertionAnalyzer());
  }
  std::vector<std::pair<const PreparedTrial*, std::string>> notes;
  for (const auto& [id, trial] : prepared) {
    std::filesystem::path dir = "tests/fixtures/notes/" + id;
    if (id.compare(0, prefix.size(), prefix) != 0 || !std::filesystem::is_directory(dir)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      std::string ext = e.path().extension().string();
      if (ext == ".txt" || ext == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) notes.emplace_back(trial.get(), ReadFile(f));
  }
  if (prefix == "--extract") {
    std::string all;
    for (const auto& [id, trial] : prepared) {
      std::filesystem::path ref = "tests/fixtures/notes/" + id + "/reference.txt";
      if (std::filesystem::exists(ref)) all += ReadFile(ref) + "\n\n";
    }
    size_t drugs = ExtractDrugs(all).size();  // warm-up: the approximate-match index
    auto start = std::chrono::steady_clock::now();
    CALLGRIND_START_INSTRUMENTATION;
    for (int r = 0; r < rounds; ++r) drugs += ExtractDrugs(all).size();
    CALLGRIND_STOP_INSTRUMENTATION;
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("grade_profile --extract: %d passes over %zu bytes, %zu drugs, %.1f MB/s\n", rounds, all.size(), drugs,
                static_cast<double>(all.size()) * rounds / seconds / 1e6);
    return 0;
  }
  OfflineValidator validator(DefaultTerminology());
  size_t bytes = 0;
  for (const auto& [trial, note] : notes) bytes += GradeText(*trial, note, corpus.corpus_hash, validator).size();
  bytes = 0;
  auto start = std::chrono::steady_clock::now();
  CALLGRIND_START_INSTRUMENTATION;
  for (int r = 0; r < rounds; ++r)
    for (const auto& [trial, note] : notes) bytes += GradeText(*trial, note, corpus.corpus_hash, validator).size();
  CALLGRIND_STOP_INSTRUMENTATION;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t grades = notes.size() * static_cast<size_t>(rounds);
  std::printf("grade_profile: %zu grades, %zu result bytes, %.1f us per grade\n", grades, bytes,
              seconds * 1e6 / static_cast<double>(grades));
  return 0;
}
