#!/usr/bin/env bash
# Writes tests/fixtures/db/main-v2.db: a database as main made it before grades were versioned
# (schema user_version 2, commit a913d45): the two migration blocks of that commit's
# sql/schema.sql, one corpus version, and five submissions in that version's shape — the seed
# smoke note, two vendors whose names differ only in case, an unsafe note and a blank one.
# Needs the git history (it reads the old schema with git show); the committed .db is what the
# test uses, so a fresh clone does not need this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fixtures/db/main-v2.db
rm -f "$out"
old=$(git show a913d45:sql/schema.sql)
blocks=$(awk '/^-- migrate 3/{exit} {print}' <<<"$old")
hash=0000000000000000000000000000000000000000000000000000000000000001
result() { # score_total unsafe: the result's shape in 1.0.0 (the fields later migrations read)
  local errors='[]'
  [[ $2 == true ]] && errors='[{"kind":"contradicted_flag","message":"the note negates passive suicidal ideation"}]'
  printf '{"corpus_hash":"%s","grader_version":"1.0.0","score_total":%s,"unsafe":%s,"critical_errors":%s}' "$hash" "$1" "$2" "$errors"
}
sqlite3 "$out" <<SQL
$blocks
PRAGMA user_version = 2;
INSERT INTO corpus_versions (corpus_hash, loaded_at, source_dir, trial_count, files, grader_version)
VALUES ('$hash', '2026-11-29T20:00:00.000Z', 'corpus/scripts', 10, '[]', '1.0.0');
INSERT INTO submissions (id, script_id, vendor, created_at, corpus_hash, grader_version, score_total, score_drug,
                         score_mental, score_fabrication, unsafe, scribe_output, result) VALUES
  ('a000000000000001', '03-depression-suicidal-ideation', 'Acme Scribe', '2026-11-29T20:01:00.000Z', '$hash', '1.0.0',
   0.925, 0.75, 1.0, 1.0, 0, 'Patient on sertaline 50mg daily. Reports insomnia. No SI.', '$(result 0.925 false)'),
  ('a000000000000002', '01-hypertension-ace-inhibitor-cough', 'Acme Scribe', '2026-11-29T20:02:00.000Z', '$hash', '1.0.0',
   1.0, 1.0, 1.0, 1.0, 0, 'Lisinopril stopped for cough. Started losartan 50 mg daily.', '$(result 1.0 false)'),
  ('a000000000000003', '03-depression-suicidal-ideation', 'ACME SCRIBE', '2026-11-29T20:03:00.000Z', '$hash', '1.0.0',
   0.85, 1.0, 0.5, 1.0, 1, 'Sertraline 50 mg daily. Denies SI.', '$(result 0.85 true)'),
  ('a000000000000004', '06-acute-low-back-strain', 'Beta Notes', '2026-11-29T20:04:00.000Z', '$hash', '1.0.0',
   0.6, 0.0, 1.0, 1.0, 0, 'Back pain.', '$(result 0.6 false)'),
  ('a000000000000005', '06-acute-low-back-strain', 'Beta Notes', '2026-11-29T20:05:00.000Z', '$hash', '1.0.0',
   0.4, 0.0, 1.0, 1.0, 0, '   ', '$(result 0.4 false)');
SQL
sqlite3 "$out" 'VACUUM'
echo "wrote $out ($(stat -c %s "$out") bytes)"
