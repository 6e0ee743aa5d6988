-- submission.sql — GET /scribe-trials/api/submissions/:id: a stored graded result.
-- Read-only. The result is returned as it was answered at submit time (ground truth
-- included, except for sealed trials, where the grader never put it in). No row: 404.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/submissions/3f9c0a1b2c3d4e5f
SELECT result AS body
FROM submissions
WHERE id = :id;
