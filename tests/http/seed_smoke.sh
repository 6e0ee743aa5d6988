#!/usr/bin/env bash
# seed_smoke.sh — the smoke test of the original product description (seed 000), step by step,
# against a running scribe-trials server.
#
#   tests/http/seed_smoke.sh [BASE_URL] [DB_PATH]     # defaults: http://127.0.0.1:4779 ./data.db
#
# Needs curl, jq and sqlite3 (scripts/serve installs them). Prints what each step saw; exits 1 on
# the first step that does not hold, naming it. tests/http/test_api.py runs it against the stack.
set -u
base=${1:-http://127.0.0.1:4779}
db=${2:-data.db}
fail() { echo "seed-smoke: FAIL: $*"; exit 1; }
for tool in curl jq sqlite3; do command -v "$tool" >/dev/null || fail "$tool is not installed"; done

# Health -> {"ok":true,...}
health=$(curl -s --max-time 10 "$base/scribe-trials/health") || fail "health: no answer from $base"
echo "health: $health"
[[ $(jq -r .ok <<<"$health" 2>/dev/null) == true ]] || fail "health is not {\"ok\":true}"

# List trials -> at least 8
n=$(curl -s --max-time 10 "$base/scribe-trials/api/scripts" | jq 'length' 2>/dev/null)
echo "scripts: $n"
[[ $n =~ ^[0-9]+$ ]] && ((n >= 8)) || fail "expected at least 8 trials, got '$n'"

# Grade a deliberately broken submission -> four numeric scores
graded=$(curl -s --max-time 30 -X POST "$base/scribe-trials/api/submit" \
  -H 'content-type: application/json' \
  -d '{"script_id":"03-depression-suicidal-ideation","vendor":"test","scribe_output":"Patient on sertaline 50mg daily. Reports insomnia. No SI."}' |
  jq -c '{total:.score_total, drug:.score_drug, mental:.score_mental, fab:.score_fabrication}' 2>/dev/null)
echo "graded: $graded"
for key in total drug mental fab; do
  [[ $(jq -r ".$key | type" <<<"$graded" 2>/dev/null) == number ]] || fail "score '$key' missing from the graded result"
done

# The drug cache is a table an analyst can read (empty when offline)
echo "drug_cache:"
sqlite3 "$db" "SELECT source, count(*) FROM drug_cache GROUP BY source;" || fail "drug_cache not readable in $db"
echo "seed-smoke: all steps hold"
