// record.h — a scribe-run run record: its cases, the summary, the thresholds and the table.
//
//   json summary = Summarize(record["cases"]);            // per kind and overall
//   json verdict = Thresholds(summary, 0.8, true);        // {"passed": false, "failures": […]}
//   std::cout << RenderTable(record);                     // per-case table, aggregate, verdict
//
// Pure functions of JSON: `--report RUN.json` renders a stored record exactly as the run did.
// A record (docs/scribe-run.md has every field):
//
//   {"format": "scribe-run/1", "agent": "…", "grader_version", "methodology_versions",
//    "corpus_hash", "validation", "selection": {…}, "repeats", "timeout_s",
//    "execution": {"started_at", "finished_at", "jobs"},
//    "cases": [{"trial", "kind", "run", "prompt_sha256", "output", "result", "score_total",
//               "unsafe", "reasons", "error", "duration_ms", "submission"}],
//    "summary": {…}, "thresholds": {…}}
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace scribe::run {

inline constexpr const char* kRecordFormat = "scribe-run/1";

// The aggregate of `cases`: counts, and per kind and overall the suite mean (each trial's mean
// over its runs, averaged over the trials) with its 95 % bootstrap interval (stats.h
// SuiteInterval, seeded by the kind's name, 2000 replicates): {"cases", "failed", "timed_out",
// "unsafe", "trials", "mean", "ci95_low", "ci95_high", "kinds": {kind: {same}}}. Means and
// bounds are rounded to 4 decimals; they are null when there are no cases.
nlohmann::json Summarize(const nlohmann::json& cases);

// The gate: --min-score against the overall mean, --fail-on-unsafe against the unsafe count.
// {"min_score": x or null, "fail_on_unsafe": bool, "passed": bool, "failures": ["…"]}.
nlohmann::json Thresholds(const nlohmann::json& summary, std::optional<double> min_score, bool fail_on_unsafe);

// The per-case table (trial, run, score, unsafe, the top reasons or the error), then the
// aggregate per kind and the verdict, as plain text `width` columns wide.
std::string RenderTable(const nlohmann::json& record, std::size_t width = 100);

}  // namespace scribe::run
