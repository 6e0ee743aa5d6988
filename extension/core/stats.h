// stats.h — the statistics the leaderboard and the review report publish, deterministic.
//
//   SuiteInterval(runs_by_trial, 10, seed)   // 95 % bootstrap interval of a vendor's suite score
//   CohensKappa(pairs)                        // grader–clinician agreement beyond chance
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scribe {

// A vendor's suite score: the mean over the suite's trials of the per-trial mean run score, a
// trial not run counting 0.
double SuiteScore(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials);

struct Interval {
  double low = 0, high = 0;
};

// The 95 % percentile bootstrap interval of SuiteScore: each of `replicates` resamples draws the
// suite's trials with replacement (a trial not run is 0) and, within each drawn trial, its runs
// with replacement. The random stream (SplitMix64) is fixed by `seed`, so the interval is the same
// on every machine. Trials in `runs_by_trial` beyond the suite count as part of it only if
// suite_trials says so; callers pass the suite's runs.
Interval SuiteInterval(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials,
                       uint64_t seed, int replicates = 2000);

// SuiteInterval, remembered: the same interval, bit for bit, computed once per distinct input in
// this process. A vendor's standing is recomputed whenever a change marks it dirty, and most such
// changes leave the runs it counts as they were (an identical resubmission counts once; a grade of
// a note that does not count): then its 2,000-replicate bootstrap, most of a refresh, is looked up
// instead of drawn again. The key is every input exactly (seed, suite size, replicates, each
// trial's id and its runs' bits in order), so nothing that differs can hit. Thread-safe; bounded:
// inputs larger than kSuiteMemoMaxKey bytes (a vendor of thousands of runs) are not kept, and when
// what it holds (each key, and kSuiteMemoEntryBytes for its entry) would pass kSuiteMemoBytes, it
// starts over.
inline constexpr size_t kSuiteMemoBytes = size_t{1} << 20, kSuiteMemoMaxKey = size_t{64} << 10,
                        kSuiteMemoEntryBytes = 96;
Interval RememberedSuiteInterval(const std::map<std::string, std::vector<double>>& runs_by_trial, size_t suite_trials,
                                 uint64_t seed, int replicates = 2000);
// What the memo holds now: entries, and the bytes counted against kSuiteMemoBytes (for tests).
std::pair<size_t, size_t> SuiteMemoSize();

// Cohen's kappa of two raters' labels (one pair per rated thing): (po - pe) / (1 - pe); nullopt
// with no pairs or when chance agreement is total (pe = 1).
std::optional<double> CohensKappa(const std::vector<std::pair<std::string, std::string>>& pairs);

// A 64-bit FNV-1a of a text: a stable bootstrap seed per vendor.
uint64_t StableSeed(const std::string& text);

}  // namespace scribe
