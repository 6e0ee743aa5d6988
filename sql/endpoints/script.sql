-- script.sql — GET /scribe-trials/api/scripts/:id: what a vendor feeds its scribe.
-- Read-only. Encounter text and instructions, never the ground truth. No row: 404.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/scripts/03-depression-suicidal-ideation
SELECT json_object(
         'id',             id,
         'title',          title,
         'difficulty',     difficulty,
         'summary',        summary,
         'encounter_text', encounter_text,
         'instructions',   instructions,
         'sealed',         json(CASE WHEN sealed THEN 'true' ELSE 'false' END),
         'version_hash',   version_hash,
         'corpus_hash',    corpus_hash
       ) AS body
FROM trials
WHERE id = :script_id;
