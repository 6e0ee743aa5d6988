-- scripts.sql — GET /scribe-trials/api/scripts: the trial cards, never the ground truth.
-- Read-only. Columns are listed one by one so ground_truth and definition cannot leak.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/scripts | jq '.[0]'
SELECT json_group_array(json_object(
         'id',           id,
         'title',        title,
         'kind',         kind,
         'difficulty',   difficulty,
         'summary',      summary,
         'sealed',       json(CASE WHEN sealed THEN 'true' ELSE 'false' END),
         'version_hash', version_hash,
         'corpus_hash',  corpus_hash,
         'locked_at',    locked_at
       )) AS body
FROM (SELECT t.id, t.title, t.kind, t.difficulty, t.summary, t.sealed, t.version_hash, t.corpus_hash,
             (SELECT c.locked_at FROM sealed_commitments c
              WHERE c.trial_id = t.id AND c.version_hash = t.version_hash) AS locked_at
      FROM trials t
      ORDER BY t.id);
