-- methodology.sql — GET /scribe-trials/api/methodology: the rules the grader applies.
-- Read-only. Generated from the same data the grader loads (versions, credit weights,
-- penalties, assertion trigger lists, changelog).
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/methodology | jq .grader_version
SELECT scribe_methodology() AS body;
