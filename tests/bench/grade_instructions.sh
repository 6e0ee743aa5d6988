#!/usr/bin/env bash
# grade_instructions.sh — instructions per grade, counted by callgrind (valgrind; not installed
# by scripts/test: apt-get install valgrind). Deterministic where timings on a shared 2-core
# machine are not, so it is the figure to compare two builds by.
#
# The stock sqlite3 shell grades every fixture note (tests/fixtures/notes/*/ *.txt, *.json)
# against its trial, offline, once and then three times over in a second process. The first
# grade of each trial includes preparing it; the difference of the two runs divided by the
# extra grades is the steady-state cost of one grade. Prints both. Run from the repository
# root after a build.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "grade_instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {  # count REPS -> "grades instructions" inside grade_submission
  local reps=$1 sql=$tmp/q$1.sql
  {
    echo ".load build/scribe"
    echo "select scribe_load_corpus('corpus/scripts');"
    for _ in $(seq 1 "$reps"); do
      for d in tests/fixtures/notes/*/; do
        for f in "$d"*.txt "$d"*.json; do
          if [[ -f $f ]]; then echo "select length(grade_submission('$(basename "$d")', readfile('$f')));"; fi
        done
      done
    done
  } > "$sql"
  SCRIBE_OFFLINE=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg$reps" sqlite3 "$tmp/db$reps" < "$sql" > /dev/null 2>&1
  local ir
  callgrind_annotate --inclusive=yes "$tmp/cg$reps" > "$tmp/annotated$reps" 2>/dev/null
  ir=$(awk '/GradeSubmission/ {gsub(",", "", $1); print $1; exit}' "$tmp/annotated$reps")
  echo "$(grep -c grade_submission "$sql") $ir"
}
read -r n1 ir1 < <(count 1)
read -r n3 ir3 < <(count 3)
echo "grade_instructions: first pass $n1 grades, $((ir1 / n1)) instructions per grade (each trial prepared once)"
echo "grade_instructions: steady state $(((ir3 - ir1) / (n3 - n1))) instructions per grade ($((n3 - n1)) grades)"
