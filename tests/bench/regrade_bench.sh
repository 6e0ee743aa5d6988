#!/usr/bin/env bash
# regrade_bench.sh [N] — how long scribe_regrade() takes over N stored notes (default 10000):
# N submissions, spread over the corpus's reference notes, each made distinct by a trailing
# line, stored under an old grader version; then one scribe_regrade() re-grades them all in
# batches. Prints notes, seconds and notes per second. Run from the repository root after a
# build:  tests/bench/regrade_bench.sh 100000
# Grading is offline (SCRIBE_OFFLINE=1, as the wrk benchmark): each batch is graded on every
# core. SCRIBE_OFFLINE=0 measures the live validator instead (one thread; with RxNav
# unreachable, every lookup falls back with its reason).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000}
export SCRIBE_OFFLINE=${SCRIBE_OFFLINE:-1}
db=$(mktemp -d)/regrade.db
trap 'rm -rf "$(dirname "$db")"' EXIT
sqlite3 "$db" <<SQL >/dev/null
.load build/scribe
SELECT scribe_load_corpus('corpus/scripts');
CREATE TEMP TABLE notes AS
  SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, readfile('tests/fixtures/notes/' || id || '/reference.txt') AS text
  FROM trials;
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < $n)
INSERT INTO submissions (id, script_id, kind, vendor, corpus_hash, grader_version, score_total, score_drug, score_mental,
                         score_fabrication, unsafe, scribe_output, result)
SELECT printf('%016x', x), n.id, t.kind, 'Bench Vendor ' || (x % 20), t.corpus_hash, '0.0.0', 0.5, 0.5, 0.5, 0.5, 0,
       n.text || char(10) || 'Run ' || x || '.', '{}'
FROM i JOIN notes n ON n.k = x % (SELECT count(*) FROM notes) JOIN trials t ON t.id = n.id;
SQL
start=$(date +%s.%N)
report=$(${REGRADE_PERF:-} sqlite3 "$db" ".load build/scribe" "SELECT scribe_regrade()")
end=$(date +%s.%N)
python3 - "$n" "$start" "$end" "$report" <<'PY'
import json, sys
n, start, end, report = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
s = end - start
print(f"regrade: {n} notes in {s:.1f} s ({n / s:.0f} notes/s); report {json.dumps(report)}")
PY
