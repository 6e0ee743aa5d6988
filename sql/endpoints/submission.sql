-- submission.sql — GET /scribe-trials/api/submissions/:id: a stored graded result.
-- Read-only. The grade under the current versions (the loaded grader and corpus) when the note
-- has one, else the grade it was answered with; `current` says which, and `grades` lists every
-- grade the note ever had. Shown through scribe_public_result: a sealed trial's result keeps
-- only the total, the Unsafe label and the number of critical errors. No row: 404.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/submissions/3f9c0a1b2c3d4e5f
SELECT scribe_public_result(json_set(
         coalesce(c.result, s.result),
         '$.id', s.id,
         '$.vendor', s.vendor,
         '$.created_at', s.created_at,
         '$.current', json(CASE WHEN c.result IS NOT NULL THEN 'true' ELSE 'false' END),
         '$.grades', (SELECT json_group_array(json_object(
                               'grader_version', g.grader_version,
                               'methodology_version', g.methodology_version,
                               'corpus_hash', g.corpus_hash,
                               'score_total', g.score_total,
                               'unsafe', json(CASE WHEN g.unsafe THEN 'true' ELSE 'false' END),
                               'graded_at', g.graded_at))
                      FROM (SELECT * FROM grades WHERE submission_id = s.id ORDER BY graded_at, grader_version) AS g))) AS body
FROM submissions s
LEFT JOIN current_grades c ON c.submission_id = s.id
WHERE s.id = :id;
