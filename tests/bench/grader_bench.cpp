// grader_bench — throughput of the pure core (Google Benchmark). Run from the repository root:
//
//   build/tests/bench/grader_bench --benchmark_min_time=1
//
// BM_TerminologyLoad: parsing the compiled-in offline RxNorm subset (start-up cost);
// BM_TerminologyLoadAndFirstMisspelling adds the approximate index, built on first use.
// BM_Grade/<trial>: grading each trial's reference note (tests/fixtures/notes/<id>/reference.txt)
//   against a prepared trial, offline; items/s = grades per second on one core.
// BM_ExtractDrugs: extract_drugs (ExtractDrugs) over all reference notes joined; bytes/s.
// BM_AssertionWorstCase/<shape>/<bytes>: AssertionAnalyzer::Analyze alone over adversarial
//   shapes (many triggers × many clause breaks, one long sentence of triggers, post-triggers,
//   headings); the reported complexity must be O(N). BM_FindWorstCase: the same shapes through
//   scribe_find's reader (a phrase match per token, each with its deciding cue).
// Peak RSS of the process is reported as a counter on every benchmark.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "embedded.h"
#include "extract.h"
#include "find.h"
#include "grade.h"
#include "hash.h"
#include "stats.h"
#include "trial.h"
#include "validator.h"

namespace {

using namespace scribe;

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

struct Fixture {
  Corpus corpus;
  std::map<std::string, std::unique_ptr<PreparedTrial>> prepared;
  std::map<std::string, std::string> notes;
  Fixture() : corpus(LoadCorpus("corpus/scripts", DefaultRules(), DefaultTerminology())) {
    for (Trial& t : corpus.trials) {
      std::string id = t.id;
      notes[id] = ReadFile("tests/fixtures/notes/" + id + "/reference.txt");
      prepared[id] = std::make_unique<PreparedTrial>(std::move(t), DefaultRules(), DefaultTerminology(),
                                                     DefaultAssertionAnalyzer());
    }
  }
};

Fixture& Shared() {
  static Fixture f;
  return f;
}

// A fresh terminology from the compiled-in files, as DefaultTerminology() builds it.
Terminology LoadTerminology(const Rules& rules) {
  return Terminology::Load(
      embedded_file("corpus/terminology/concepts.tsv"), embedded_file("corpus/terminology/synonyms.tsv"),
      embedded_file("corpus/terminology/dose_forms.tsv"), embedded_file("corpus/terminology/english_words.txt"),
      embedded_file("corpus/terminology/ambiguous_brands.txt"), embedded_file("corpus/terminology/VERSION"),
      embedded_file("corpus/rules/name_noise.txt"), rules.non_rxnorm_substances);
}

void BM_TerminologyLoad(benchmark::State& state) {
  const Rules& rules = DefaultRules();
  for (auto _ : state) {
    Terminology t = LoadTerminology(rules);
    benchmark::DoNotOptimize(t.size());
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_TerminologyLoad)->Unit(benchmark::kMillisecond);

// The approximate-match index is built on the first misspelling a process meets.
void BM_TerminologyLoadAndFirstMisspelling(benchmark::State& state) {
  const Rules& rules = DefaultRules();
  for (auto _ : state) {
    Terminology t = LoadTerminology(rules);
    benchmark::DoNotOptimize(t.Approximate("sertaline"));
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_TerminologyLoadAndFirstMisspelling)->Unit(benchmark::kMillisecond);

void BM_Grade(benchmark::State& state, std::string id) {
  Fixture& f = Shared();
  OfflineValidator validator(DefaultTerminology());
  const PreparedTrial& trial = *f.prepared.at(id);
  const std::string& note = f.notes.at(id);
  for (auto _ : state) {
    std::string out = GradeText(trial, note, f.corpus.corpus_hash, validator);  // as grade_submission stores it
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(note.size()));
  state.counters["note_bytes"] = static_cast<double>(note.size());
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_ExtractDrugs(benchmark::State& state) {
  Fixture& f = Shared();
  std::string all;
  for (const auto& [id, note] : f.notes) all += note + "\n\n";
  for (auto _ : state) {
    std::vector<DrugMention> drugs = ExtractDrugs(all);  // as extract_drugs(text) reads it
    benchmark::DoNotOptimize(drugs.size());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(all.size()));
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_ExtractDrugs)->Unit(benchmark::kMicrosecond);

// The same notes one at a time, as extract_drugs(text) is called on a stored note: whether the
// joined 40 KB text of BM_ExtractDrugs (0.9 MB of tokens, which the core's caches do not hold)
// reads slower than notes of 1–5 KB do.
void BM_ExtractDrugsPerNote(benchmark::State& state) {
  Fixture& f = Shared();
  int64_t bytes = 0;
  for (const auto& [id, note] : f.notes) bytes += static_cast<int64_t>(note.size());
  for (auto _ : state) {
    for (const auto& [id, note] : f.notes) {
      std::vector<DrugMention> drugs = ExtractDrugs(note);
      benchmark::DoNotOptimize(drugs.size());
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["notes"] = static_cast<double>(f.notes.size());
}
BENCHMARK(BM_ExtractDrugsPerNote)->Unit(benchmark::kMicrosecond);

// What every submit hashes besides grading: its note (note_sha256) and vendor key.
void BM_Sha256Note(benchmark::State& state) {
  const std::string& note = Shared().notes.begin()->second;
  for (auto _ : state) {
    std::string hex = Sha256Hex(note);
    benchmark::DoNotOptimize(hex.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(note.size()));
}
BENCHMARK(BM_Sha256Note)->Unit(benchmark::kMicrosecond);

// What every standings refresh pays per vendor in the writer's transaction: the 2,000-replicate
// bootstrap of the suite score, for a vendor that ran `state.range(0)` trials of a 40-trial
// suite `state.range(1)` times each (the corpus has 40 trials).
void BM_SuiteInterval(benchmark::State& state) {
  std::map<std::string, std::vector<double>> runs;
  for (int64_t t = 0; t < state.range(0); ++t)
    for (int64_t k = 0; k < state.range(1); ++k)
      runs["trial-" + std::to_string(t)].push_back(static_cast<double>((t * 37 + k * 11) % 101) / 100.0);
  for (auto _ : state) {
    Interval ci = SuiteInterval(runs, 40, StableSeed("acme scribe"));
    benchmark::DoNotOptimize(ci);
  }
}
BENCHMARK(BM_SuiteInterval)->ArgNames({"trials", "runs"})->Args({1, 1})->Args({14, 1})->Args({14, 10})
    ->Args({40, 100})->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- assertion worst cases
// Each shape is repeated to `state.range(0)` bytes; the time must grow linearly (issue 9 item 2:
// 200,000 bytes of "no;" took 2.8 s when every trigger scanned every clause break).
const std::map<std::string, std::string>& AssertionShapes() {
  static const std::map<std::string, std::string> shapes = {
      {"no_semicolon", "no;"},                  // a pre-trigger and a clause break per token pair
      {"no_space", "no "},                      // one sentence of pre-triggers, no break at all
      {"denied", "fever denied "},              // post-triggers reaching back over one sentence
      {"no_but", "no fever but "},              // trigger, finding, terminator
      {"mother_she", "mother has asthma she "}, // family scopes and experiencer terminators
      {"heading", "COMPLICATIONS: None "},      // section headings without line breaks
      {"no_change_list", "no change in pain, "} // distributing pseudo-triggers in one list
  };
  return shapes;
}

std::string Repeat(const std::string& unit, int64_t bytes) {
  std::string s;
  s.reserve(static_cast<size_t>(bytes) + unit.size());
  while (static_cast<int64_t>(s.size()) < bytes) s += unit;
  return s;
}

void BM_AssertionWorstCase(benchmark::State& state, std::string shape) {
  std::string text = Repeat(AssertionShapes().at(shape), state.range(0));
  TokenizedText tt = Analyze(text, DefaultRules().assertion.abbreviations);
  for (auto _ : state) {
    std::vector<uint32_t> clauses;
    std::vector<uint8_t> bits = DefaultAssertionAnalyzer().Analyze(tt, &clauses);
    benchmark::DoNotOptimize(bits.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetComplexityN(state.range(0));
}

// scribe_find over the same shapes, looking for the shape's first word: a match (with its
// assertion and deciding cue) at nearly every repetition.
void BM_FindWorstCase(benchmark::State& state, std::string shape) {
  const std::string& unit = AssertionShapes().at(shape);
  std::string text = Repeat(unit, state.range(0));
  std::string phrase = unit.substr(0, unit.find_first_of(" ;:,"));
  for (auto _ : state) {
    std::vector<PhraseFinding> found = FindPhrase(text, phrase);
    benchmark::DoNotOptimize(found.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetComplexityN(state.range(0));
}

const bool kRegistered = [] {
  for (const auto& [shape, unit] : AssertionShapes()) {
    benchmark::RegisterBenchmark(("BM_AssertionWorstCase/" + shape).c_str(), BM_AssertionWorstCase, shape)
        ->RangeMultiplier(4)->Range(1 << 12, 1 << 18)->Complexity()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_FindWorstCase/" + shape).c_str(), BM_FindWorstCase, shape)
        ->RangeMultiplier(4)->Range(1 << 12, 1 << 18)->Complexity()->Unit(benchmark::kMillisecond);
  }
  for (const auto& entry : std::filesystem::directory_iterator("tests/fixtures/notes")) {
    std::string id = entry.path().filename().string();
    if (!std::filesystem::exists(entry.path() / "reference.txt")) continue;
    benchmark::RegisterBenchmark(("BM_Grade/" + id).c_str(), BM_Grade, id)->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
