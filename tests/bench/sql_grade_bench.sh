#!/usr/bin/env bash
# tests/bench/sql_grade_bench.sh — grade_submission through SQL, as the submit endpoint's
# grade.sql calls it: one sqlite3 statement grades a trial's reference note N times (a recursive
# CTE; offline, SCRIBE_OFFLINE=1; the note read once, as the endpoint binds it), timed by the
# shell and divided by N. The load of the extension and the corpus is timed apart (the same
# statement with N = 1) and taken off. From the repository root, after a build:
#
#   tests/bench/sql_grade_bench.sh             # trials 01 (984 bytes) and 09, N=20000
#   N=5000 tests/bench/sql_grade_bench.sh 08 11
#
# Environment: N (20000), SCRIBE_BUILD_DIR (build), SCRIBE_SOURCE_DIR (this checkout: where the
# corpus and the fixture notes are read; before_after.sh points it at an older checkout).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
n=${N:-20000}
build=$(realpath "${SCRIBE_BUILD_DIR:-build}")
cd "${SCRIBE_SOURCE_DIR:-.}"
[[ -f $build/scribe.so ]] || { echo "sql_grade_bench: $build/scribe.so not built" >&2; exit 1; }
tmp=$(mktemp -d /tmp/scribe-sql-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export SCRIBE_OFFLINE=1
# In WAL mode, as the server keeps its database (scripts/serve): a grade's trial lookup then takes
# no file lock. The rollback journal's locks and checks cost 11 % of a grade here.
sqlite3 "$tmp/bench.db" ".load $build/scribe" "select scribe_load_corpus('corpus/scripts')" "PRAGMA journal_mode = WAL" >/dev/null

seconds() {  # trial note count -> wall seconds of one sqlite3 process grading the note count times
  local start end
  start=$(date +%s.%N)
  sqlite3 "$tmp/bench.db" ".load $build/scribe" \
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < $3)
     SELECT sum(length(grade_submission('$1', (SELECT readfile('$2'))))) FROM r" >/dev/null  # the note read once
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }'
}

prefixes=("$@")
(( ${#prefixes[@]} )) || prefixes=(01 09)
printf '%-46s %10s %8s %14s\n' trial note_bytes grades us_per_grade
for prefix in "${prefixes[@]}"; do
  dir=$(compgen -G "tests/fixtures/notes/$prefix*" | head -1 || true)
  [[ -n $dir && -f $dir/reference.txt ]] || { echo "sql_grade_bench: no trial $prefix" >&2; exit 1; }
  trial=$(basename "$dir") note=$dir/reference.txt
  once=$(seconds "$trial" "$note" 1)
  all=$(seconds "$trial" "$note" "$n")
  printf '%-46s %10s %8s %14s\n' "$trial" "$(wc -c <"$note")" "$n" \
    "$(awk -v a="$all" -v o="$once" -v n="$n" 'BEGIN { printf "%.1f", 1e6 * (a - o) / (n - 1) }')"
done
