#!/usr/bin/env bash
# tests/bench/before_after.sh [BASE] — the grader's speed before and after, on this machine, in
# the same run: BASE (a commit; default 47c052f, main when issue 15 was filed) is checked out
# into a worktree and built as this checkout's build is (RelWithDebInfo, no profile), then the
# two builds take turns, ROUNDS times, at
#
#   grade    grader_bench BM_Grade over the free-text trials 01–13 (µs per grade)
#   sql      grade_submission through SQL (sql_grade_bench.sh, N grades of trials 01 and 08;
#            each build reads its own checkout's corpus; the notes are the same bytes)
#   extract  the extract_drugs table function over the 40 reference notes joined (this
#            checkout's), E times in one sqlite3 statement, less the load (ms per extraction)
#
# and the medians are printed side by side with after/before speed-ups. Wall clocks move ±10–30 %
# between identical runs on a shared machine; what one run of both builds shows is their ratio.
# The two builds do not grade alike (later methodology reads more), so the ratio is the speed of
# the grader as each commit shipped it, not of the same work.
#
# From the repository root, after a build without the profile:
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCRIBE_PGO= -DSCRIBE_PGO_DIR=
#   cmake --build build -j2 --target scribe grader_bench
#   tests/bench/before_after.sh
# Environment: ROUNDS (3), N (10000), E (1000), SCRIBE_BUILD_DIR (build), BASE_DIR
# (/tmp/scribe-base-<commit>: the worktree and its build, kept for the next run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
base=$(git rev-parse --short=7 "${1:-47c052f}^{commit}")
rounds=${ROUNDS:-3} n=${N:-10000} e=${E:-1000}
after=$(realpath "${SCRIBE_BUILD_DIR:-build}")
before_src=${BASE_DIR:-/tmp/scribe-base-$base}
before=$before_src/build
for f in scribe.so tests/bench/grader_bench; do
  [[ -f $after/$f ]] || { echo "before_after: $after/$f not built" >&2; exit 1; }
done
if [[ ! -f $before/scribe.so || ! -f $before/tests/bench/grader_bench ]]; then
  [[ -d $before_src ]] || git worktree add --detach "$before_src" "$base" >/dev/null
  echo "before_after: building $base in $before (about 10 minutes on 2 cores)" >&2
  cmake -S "$before_src" -B "$before" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$before" -j "$(nproc)" --target scribe grader_bench >/dev/null
fi
tmp=$(mktemp -d /tmp/scribe-before-after.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for d in tests/fixtures/notes/*/; do cat "$d/reference.txt"; printf '\n\n'; done >"$tmp/all.txt"
export SCRIBE_OFFLINE=1

extract_seconds() {  # build count -> wall seconds of one sqlite3 process extracting count times
  local start end
  start=$(date +%s.%N)
  # CROSS JOIN and an argument that names r.i keep one extraction per row of r
  sqlite3 :memory: ".load $1/scribe" \
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < $2)
     SELECT count(*) FROM r CROSS JOIN extract_drugs(readfile('$tmp/all.txt') || substr(r.i, 1, 0))" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }'
}

measure() {  # side build source -> lines "metric value" appended to $tmp/<side>
  local side=$1 build=$2 src=$3 once all
  (cd "$src" && "$build/tests/bench/grader_bench" --benchmark_filter='BM_Grade/(0[1-9]|1[0-3])-' \
    --benchmark_min_time=0.3 --benchmark_format=csv 2>/dev/null) |
    awk -F, '/^"BM_Grade/ { gsub(/"/, "", $1); sub(/^BM_Grade\//, "", $1); print "grade_us " substr($1, 1, 2), $4 }' >>"$tmp/$side"
  N=$n SCRIBE_BUILD_DIR=$build SCRIBE_SOURCE_DIR=$src "$root/tests/bench/sql_grade_bench.sh" 01 08 |
    awk 'NR > 1 { print "sql_us " substr($1, 1, 2), $4 }' >>"$tmp/$side"
  once=$(extract_seconds "$build" 1)
  all=$(extract_seconds "$build" "$e")
  awk -v a="$all" -v o="$once" -v e="$e" 'BEGIN { printf "extract_ms all %.3f\n", 1e3 * (a - o) / (e - 1) }' >>"$tmp/$side"
}

for ((r = 1; r <= rounds; ++r)); do
  echo "before_after: round $r of $rounds" >&2
  measure before "$before" "$before_src"
  measure after "$after" "$root"
done

python3 - "$tmp/before" "$tmp/after" "$base" "$(git rev-parse --short=7 HEAD)" "$rounds" <<'PY'
import statistics, sys
def read(path):
    runs = {}
    for line in open(path):
        metric, key, value = line.split()
        runs.setdefault((metric, key), []).append(float(value))
    return runs
before, after = read(sys.argv[1]), read(sys.argv[2])
print(f"before: {sys.argv[3]}; after: this build (HEAD {sys.argv[4]}); medians of {sys.argv[5]} alternating rounds")
print(f"{'metric':<16} {'before':>10} {'after':>10} {'speed-up':>9}  after (each round)")
for key in sorted(before, key=lambda k: ({'grade_us': 0, 'sql_us': 1, 'extract_ms': 2}[k[0]], k[1])):
    if key not in after:
        continue
    b, a = statistics.median(before[key]), statistics.median(after[key])
    label = f"{key[0]} {key[1]}" if key[1] != "all" else key[0]
    print(f"{label:<16} {b:>10.2f} {a:>10.2f} {b / a:>8.2f}x  {' '.join(f'{v:.2f}' for v in after[key])}")
PY
