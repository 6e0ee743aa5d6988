// stats.cpp — suite score, bootstrap interval and Cohen's kappa (see stats.h).
#include "stats.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

namespace scribe {
namespace {

// SplitMix64: small, fast and fully specified, so every platform draws the same numbers
// (std:: distributions are not specified bit for bit).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n): Lemire's multiply-shift with rejection. The threshold (a 64-bit division)
  // is computed only when the low half is below n, the one case where it can reject: the draws and
  // the values are the same as testing every draw against it.
  size_t Below(size_t n) {
    const uint64_t bound = n;
    __uint128_t m = static_cast<__uint128_t>(Next()) * bound;
    if (static_cast<uint64_t>(m) < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (static_cast<uint64_t>(m) < threshold) m = static_cast<__uint128_t>(Next()) * bound;
    }
    return static_cast<size_t>(m >> 64);
  }
  // What Below(1) does without computing it: one draw consumed, answer 0 (no draw is rejected
  // when n is 1, because the threshold is 0).
  void Skip() { state_ += 0x9E3779B97F4A7C15ull; }

 private:
  uint64_t state_;
};

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

double SuiteScore(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials) {
  if (suite_trials == 0) return 0;
  double sum = 0;
  for (const auto& [trial, runs] : runs_by_trial) sum += Mean(runs);
  return sum / static_cast<double>(suite_trials);
}

Interval SuiteInterval(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials,
                       uint64_t seed, int replicates) {
  if (suite_trials == 0 || replicates <= 0) return {};
  // The suite as a list: the trials run, then the trials not run (no runs: 0).
  std::vector<const std::vector<double>*> suite;
  for (const auto& [trial, runs] : runs_by_trial) suite.push_back(&runs);
  static const std::vector<double> kNone;
  while (suite.size() < suite_trials) suite.push_back(&kNone);
  SplitMix64 rng(seed);
  std::vector<double> stats;
  stats.reserve(static_cast<size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    double total = 0;
    for (size_t t = 0; t < suite.size(); ++t) {
      const std::vector<double>& runs = *suite[rng.Below(suite.size())];
      if (runs.empty()) continue;
      if (runs.size() == 1) {  // most trials a vendor ran once: the resample is that run
        rng.Skip();
        total += runs[0];
        continue;
      }
      double s = 0;
      for (size_t k = 0; k < runs.size(); ++k) s += runs[rng.Below(runs.size())];
      total += s / static_cast<double>(runs.size());
    }
    stats.push_back(total / static_cast<double>(suite.size()));
  }
  // Percentiles by the nearest-rank method. Only two order statistics are read, so each is
  // selected (nth_element) rather than the whole list sorted; the values are those of a sort.
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(stats.size())));
    size_t i = std::min(stats.size() - 1, k == 0 ? 0 : k - 1);
    std::nth_element(stats.begin(), stats.begin() + static_cast<std::ptrdiff_t>(i), stats.end());
    return stats[i];
  };
  return {rank(0.025), rank(0.975)};
}

namespace {

struct SuiteMemo {
  std::mutex mu;
  std::unordered_map<std::string, Interval> entries;
  size_t bytes = 0;
};

SuiteMemo& Memo() {
  static SuiteMemo memo;  // destroyed with the module (an extension unloaded, a process ending)
  return memo;
}

template <class T>
void AppendBits(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

Interval RememberedSuiteInterval(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials,
                                 uint64_t seed, int replicates) {
  size_t size = sizeof seed + sizeof suite_trials + sizeof replicates;
  for (const auto& [trial, runs] : runs_by_trial) size += 2 * sizeof(size_t) + trial.size() + runs.size() * sizeof(double);
  if (size > kSuiteMemoMaxKey) return SuiteInterval(runs_by_trial, suite_trials, seed, replicates);
  std::string key;
  key.reserve(size);
  AppendBits(key, seed);
  AppendBits(key, suite_trials);
  AppendBits(key, replicates);
  for (const auto& [trial, runs] : runs_by_trial) {
    AppendBits(key, trial.size());
    key += trial;
    AppendBits(key, runs.size());
    key.append(reinterpret_cast<const char*>(runs.data()), runs.size() * sizeof(double));
  }
  SuiteMemo& memo = Memo();
  {
    std::lock_guard<std::mutex> lock(memo.mu);
    if (auto it = memo.entries.find(key); it != memo.entries.end()) return it->second;
  }
  Interval ci = SuiteInterval(runs_by_trial, suite_trials, seed, replicates);  // not under the lock
  std::lock_guard<std::mutex> lock(memo.mu);
  const size_t n = key.size() + kSuiteMemoEntryBytes;
  if (memo.bytes + n > kSuiteMemoBytes) {
    memo.entries.clear();
    memo.bytes = 0;
  }
  if (memo.entries.emplace(std::move(key), ci).second) memo.bytes += n;
  return ci;
}

std::pair<size_t, size_t> SuiteMemoSize() {
  SuiteMemo& memo = Memo();
  std::lock_guard<std::mutex> lock(memo.mu);
  return {memo.entries.size(), memo.bytes};
}

std::optional<double> CohensKappa(const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (pairs.empty()) return std::nullopt;
  std::map<std::string, double> a, b;
  double agree = 0;
  for (const auto& [x, y] : pairs) {
    a[x] += 1;
    b[y] += 1;
    agree += x == y;
  }
  const double n = static_cast<double>(pairs.size());
  double po = agree / n, pe = 0;
  for (const auto& [label, count] : a) {
    auto it = b.find(label);
    if (it != b.end()) pe += (count / n) * (it->second / n);
  }
  if (pe >= 1.0 - 1e-12) return std::nullopt;
  return (po - pe) / (1 - pe);
}

uint64_t StableSeed(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace scribe
