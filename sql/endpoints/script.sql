-- script.sql — GET /scribe-trials/api/scripts/:id: what a vendor feeds its scribe.
-- Read-only. Encounter text, instructions and the frozen recording, never the ground truth.
-- No row: 404. `audio` is the recording ({url, sha256, bytes, duration_s, voices, content_type})
-- or null, and then `audio_reason` says why (no recording, or a stale one).
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/scripts/03-depression-suicidal-ideation
SELECT json_object(
         'id',             t.id,
         'title',          t.title,
         'kind',           t.kind,
         'difficulty',     t.difficulty,
         'summary',        t.summary,
         'encounter_text', t.encounter_text,
         'instructions',   t.instructions,
         'sealed',         json(CASE WHEN t.sealed THEN 'true' ELSE 'false' END),
         'version_hash',   t.version_hash,
         'corpus_hash',    t.corpus_hash,
         'locked_at',      (SELECT c.locked_at FROM sealed_commitments c
                            WHERE c.trial_id = t.id AND c.version_hash = t.version_hash),
         'audio',          CASE WHEN a.stale = 0 THEN json_object(
                             'url',          '/scribe-trials/api/scripts/' || t.id || '/audio',
                             'sha256',       a.sha256,
                             'bytes',        a.bytes,
                             'duration_s',   a.duration_s,
                             'voices',       json(a.voices),
                             'content_type', 'audio/ogg; codecs=opus') END,
         'audio_reason',   CASE
                             WHEN a.trial_id IS NULL THEN 'this trial has no recording yet'
                             WHEN a.stale THEN 'the recording is stale: it was rendered from an earlier encounter text'
                           END
       ) AS body
FROM trials t
LEFT JOIN trial_audio a ON a.trial_id = t.id
WHERE t.id = :script_id;
