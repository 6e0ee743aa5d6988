#!/usr/bin/env bash
# leaderboard_bench.sh [VENDORS] [RUNS] — what the leaderboard costs at scale (default 50,000
# vendors x 3 runs): VENDORS x RUNS graded submissions spread over the public trials, written
# with the current grader (10 % with a critical error pending review), then
#   live      the leaderboard computed from the runs, as before migration 6 (every vendor's bootstrap)
#   rebuild   scribe_refresh_standings() from scratch (what a version change costs once)
#   read      GET /api/leaderboard's SQL over the standings table (what every uncached read costs)
#   submit    one more run and its vendor's refresh (what the submit endpoint adds to its commit)
#   badge, vendor, vendor_trials   one vendor's endpoints (each must cost that vendor's rows only)
# Each figure is one sqlite3 process (about 50 ms of it is starting and loading the extension).
# Run from the repository root after a build:  tests/bench/leaderboard_bench.sh 50000 3
set -euo pipefail
cd "$(dirname "$0")/../.."
vendors=${1:-50000}
runs=${2:-3}
dir=$(mktemp -d)
db=$dir/leaderboard.db
trap 'rm -rf "$dir"' EXIT
sqlite3 "$db" <<SQL >/dev/null
.load build/scribe
SELECT scribe_load_corpus('corpus/scripts');
CREATE TEMP TABLE t AS SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, kind, corpus_hash FROM trials WHERE sealed = 0;
BEGIN;
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < $vendors * $runs)
INSERT INTO submissions (id, script_id, kind, vendor, corpus_hash, grader_version, score_total, score_drug, score_mental,
                         score_fabrication, unsafe, scribe_output, result, created_at)
SELECT printf('%016x', x), t.id, t.kind, 'Vendor ' || (x / $runs), t.corpus_hash, scribe_version(),
       (abs(random()) % 1000) / 1000.0, 0.5, 0.5, 0.5, x % 10 = 0, 'note ' || x,
       CASE WHEN x % 10 = 0 THEN '{"critical_errors":[{"kind":"contradicted_flag","key":"contradicted_flag:1"}],"critical_error_count":1}'
            ELSE '{"critical_errors":[]}' END,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || x || ' seconds')
FROM i JOIN t ON t.k = x % (SELECT count(*) FROM t);
DELETE FROM standings_dirty;
DELETE FROM meta WHERE key = 'standings_for';
COMMIT;
SQL
timed() {  # label, then sqlite3 input on stdin; prints label, seconds, bytes of output
  local label=$1 start end out
  start=$(date +%s.%N)
  out=$(sqlite3 "$db" | wc -c)
  end=$(date +%s.%N)
  printf '%-8s %8.2f s %10d bytes\n' "$label" "$(echo "$end - $start" | bc)" "$out"
}
printf '%d vendors x %d runs\n' "$vendors" "$runs"
printf '.load build/scribe\n.read sql/endpoints/leaderboard.sql\n' | timed live
printf ".load build/scribe\nSELECT scribe_refresh_standings() ->> '\$.recomputed';\n" | timed rebuild
printf '.load build/scribe\n.read sql/endpoints/leaderboard.sql\n' | timed read
printf ".load build/scribe\nBEGIN;\nINSERT INTO submissions (id, script_id, kind, vendor, corpus_hash, grader_version, score_total, score_drug, score_mental, score_fabrication, unsafe, scribe_output, result) SELECT 'ffffffffffffffff', id, kind, 'Vendor 7', corpus_hash, scribe_version(), 0.9, 0.5, 0.5, 0.5, 0, 'one more', '{\"critical_errors\":[]}' FROM trials WHERE sealed = 0 LIMIT 1;\nSELECT scribe_refresh_standings() ->> '\$.recomputed';\nCOMMIT;\n" | timed submit
for endpoint in badge vendor vendor_trials; do
  printf ".load build/scribe\n.parameter init\n.parameter set :vendor 'Vendor 42'\n.read sql/endpoints/%s.sql\n" "$endpoint" | timed "$endpoint"
done
