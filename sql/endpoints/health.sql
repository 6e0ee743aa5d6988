-- health.sql — GET /scribe-trials/health: is this worker ready to grade?
-- Read-only. ok is true when a corpus is loaded; the program answers 503 otherwise.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/health
--   {"ok":true,"grader_version":"1.1.0","schema_version":3,"trials":10,"corpus_hash":"055a…"}
SELECT json_object(
         'ok',             json(CASE WHEN count(*) > 0 THEN 'true' ELSE 'false' END),
         'grader_version', scribe_version(),
         'schema_version', (SELECT user_version FROM pragma_user_version),
         'trials',         count(*),
         'corpus_hash',    max(corpus_hash)
       ) AS body,
       count(*) > 0 AS ok
FROM trials;
