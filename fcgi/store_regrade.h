// store_regrade.h — cluster mode's scribe_regrade(): every stored note graded again under this
// grader's version and corpus, the grades written to the replicated store (docs/scale-out.md,
// "Upgrading graders").
//
//   scribe-fcgi --store http://10.0.0.1:9211,… --db grader.db --corpus corpus/scripts --regrade
//
// On one machine the supervisor runs scribe_regrade() at start (extension/sql/results.cpp). In
// cluster mode the notes are on the store and the grading is here: RegradeOnStore reads, a page
// at a time by id, the submissions that have no grade of this grader's (grader_version,
// corpus_hash); grades each one with the grader's own `grade` endpoint on its --db (the corpus
// loaded there), on several threads; writes each page's grade rows in one /v1/exec transaction
// (INSERT … ON CONFLICT DO NOTHING: two graders regrading at once, or a run repeated after a
// failure, write each row once); and, after the last page, runs the standings refresh
// (sql/store/refresh_standings.sql) on the store. The rows written are the ones scribe_regrade()
// writes for the same notes, byte for byte (tests/cluster/test_cluster_http.py compares them).
//
// Idempotent and resumable: what is stored is skipped on the next run. The store's own corpus
// must be this grader's (publish first: cluster/publish); the grader version the store's
// standings count is the store's (its voters' extension), reported as "store_grader_version".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "store_client.h"

namespace scribe::http {

class Database;

// The versions a grade carries: a grader's (what its --db's `health` reports) or the ones the
// store's standings count (its `current_versions`: the voters' extension and the corpus
// published last). "" where there is none.
struct GradeVersions {
  std::string grader_version, corpus_hash;
};
GradeVersions GraderVersions(Database& db);
// Throws std::runtime_error naming what failed when the store does not answer within
// `deadline_ms` (0: the client's own deadline).
GradeVersions StoreVersions(StoreClient& store, std::int64_t deadline_ms = 0);

// The line a grader in cluster mode logs at start (main.cpp): that the store counts what it
// grades, or, starting with "warning: ", which version differs and what follows from it (its
// submissions are stored but not counted in the standings until a regrade or an upgrade).
std::string CompareVersions(const GradeVersions& grader, const GradeVersions& store);

struct RegradeOptions {
  int batch = 64;    // notes read, graded and written per store transaction
  int threads = 0;   // grading threads; 0: one per core, at most 8
};

// {"submissions", "graded", "already_current", "unknown_trial", "batches", "grader_version",
// "corpus_hash", "store_grader_version"} (scribe_regrade()'s report and the version the store
// counts). Throws std::runtime_error with what failed and what was stored so far.
nlohmann::json RegradeOnStore(const std::string& db_path, StoreClient& store, const RegradeOptions& options);

}  // namespace scribe::http
