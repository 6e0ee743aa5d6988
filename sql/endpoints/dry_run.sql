-- dry_run.sql — POST /scribe-trials/api/submit with "dry_run": true: the graded result as a
-- submission would answer it (sealed trials minimal), with "dry_run": true and no id. Nothing is
-- stored or counted. Read-only.
--
--   curl -s -H 'Content-Type: application/json' -d '{"script_id":"03-depression-suicidal-ideation",
--     "vendor":"Acme","scribe_output":"No SI.","dry_run":true}' http://127.0.0.1:4779/scribe-trials/api/submit
SELECT scribe_public_result(json_set(:result, '$.vendor', :vendor, '$.dry_run', json('true'))) AS body;
