#!/usr/bin/env bash
# The README's analyst command, run as written with the stock sqlite3 shell from the
# repository root (against a temporary database instead of ./data.db). Expects the seed
# smoke-test note to score 0.85 (see tests/sql/grading.test for the arithmetic).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(SCRIBE_OFFLINE=1 sqlite3 "$tmp/data.db" ".load build/scribe" "select scribe_load_corpus('corpus/scripts')" \
  "select json_extract(grade_submission('03-depression-suicidal-ideation','Patient on sertaline 50mg daily. Reports insomnia. No SI.'),'\$.score_total')")
trials=$(find corpus/scripts -maxdepth 1 -name '*.yaml' | wc -l)  # every trial file loads
expected="$trials"$'\n0.85'
if [[ $out != "$expected" ]]; then
  printf 'readme_command: expected:\n%s\ngot:\n%s\n' "$expected" "$out"
  echo "0 passed, 1 failed"
  exit 1
fi
# The database is migrated, in WAL mode, and keeps the corpus for the next session.
mode=$(sqlite3 "$tmp/data.db" "PRAGMA journal_mode")
count=$(sqlite3 "$tmp/data.db" "SELECT count(*) FROM trials")
if [[ $mode != wal || $count != "$trials" ]]; then
  echo "readme_command: journal_mode=$mode trials=$count (expected wal, $trials)"
  echo "0 passed, 1 failed"
  exit 1
fi
# readfile() of a missing file is NULL in the stock shell, and so is its grade (not an empty note).
missing=$(SCRIBE_OFFLINE=1 sqlite3 "$tmp/data.db" ".load build/scribe" \
  "select grade_submission('03-depression-suicidal-ideation', readfile('$tmp/no-such-note.txt')) is null")
if [[ $missing != 1 ]]; then
  echo "readme_command: grade of readfile(missing) is not NULL: $missing"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
