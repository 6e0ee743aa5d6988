#!/usr/bin/env bash
# heavy_vendor_bench.sh [RUNS] — what one vendor with RUNS distinct stored runs (default 10,000)
# costs each submit of theirs: the standings refresh the submit writer runs inside its commit for
# every vendor of the batch. Each run is a real graded result (trial 03's reference note, 5.6 KB
# stored twice: submissions.result and grades.result) with its own note text, so every run
# counts. Prints the time of the refresh, three times. Run from the repository root after a build.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
note=tests/fixtures/notes/03-depression-suicidal-ideation/reference.txt
{
  echo ".load build/scribe"
  echo "SELECT scribe_load_corpus('corpus/scripts');"
  echo "CREATE TEMP TABLE g AS SELECT grade_submission('03-depression-suicidal-ideation', readfile('$note')) AS r;"
  echo "BEGIN;"
  echo "WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $runs)
INSERT INTO submissions (id, script_id, kind, vendor, created_at, corpus_hash, grader_version, score_total, score_drug,
                         score_mental, score_fabrication, unsafe, scribe_output, result)
SELECT printf('%016x', x), g.r ->> '\$.script_id', g.r ->> '\$.kind', 'Heavy Vendor', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
       g.r ->> '\$.corpus_hash', g.r ->> '\$.grader_version', (x % 100) / 100.0, 1, 1, 1, 0, 'note ' || x,
       json_set(g.r, '\$.id', printf('%016x', x)) FROM i, g;"
  echo "SELECT scribe_refresh_standings();"
  echo "COMMIT;"
  echo ".timer on"
  for _ in 1 2 3; do
    echo "INSERT INTO standings_dirty VALUES (scribe_vendor_key('Heavy Vendor'));"
    echo "SELECT 'refresh of one vendor with $runs runs', scribe_refresh_standings() ->> '\$.recomputed';"
  done
} | SCRIBE_OFFLINE=1 sqlite3 "$dir/heavy.db" | grep -A1 '^refresh of one vendor' | grep -v '^--'
