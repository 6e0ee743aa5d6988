// committer_bench.cpp — the one writer of a submit worker (fcgi/committer.h) on its own: 32
// request threads each store graded submissions of trial 03's reference note (a 5.6 KB result)
// into a fresh database, so batches form as they do under load. It measures the writer's SQL per
// submission (INSERT with its triggers, savepoint, standings refresh, a share of the COMMIT),
// which bounds POST /api/submit whatever grading costs. synchronous=normal leaves the fsync out
// of the commit (WAL); synchronous=full is what scripts/serve runs. From the repository root:
//
//   build/tests/bench/committer_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "committer.h"
#include "database.h"

namespace scribe::http {
namespace {

namespace fs = std::filesystem;

constexpr int kThreads = 32, kPerThread = 8;

void BM_CommitterStore(benchmark::State& state, const char* synchronous) {
  const fs::path dir = fs::temp_directory_path() / ("scribe-committer-bench-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "bench.db").string();
  PrepareDatabase(path, "corpus/scripts");
  std::string note, result;
  {
    std::ifstream in("tests/fixtures/notes/03-depression-suicidal-ideation/reference.txt", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    note = s.str();
    Database db(path);
    Query grade = db.Run("grade");
    grade.Bind(":script_id", "03-depression-suicidal-ideation").Bind(":scribe_output", note);
    if (!grade.Step()) throw std::runtime_error("grade.sql returned no row");
    result = grade.Text(0);
  }
  {
    Committer committer(path, synchronous);
    for (auto _ : state) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
          for (int i = 0; i < kPerThread; ++i) {
            StoreOutcome out = committer.Store(PendingSubmission{"Bench Vendor " + std::to_string(t % 8), note, result, nullptr});
            if (out.status != StoreOutcome::kStored) state.SkipWithError(out.message.c_str());
          }
        });
      for (std::thread& t : threads) t.join();
    }
    state.counters["per_commit"] = static_cast<double>(committer.Stored()) / static_cast<double>(committer.Commits());
  }
  state.SetItemsProcessed(state.iterations() * kThreads * kPerThread);
  state.counters["result_bytes"] = static_cast<double>(result.size());
  fs::remove_all(dir);
}
BENCHMARK_CAPTURE(BM_CommitterStore, normal, "normal")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CommitterStore, full, "full")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace scribe::http

BENCHMARK_MAIN();
