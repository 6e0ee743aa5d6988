-- leaderboard.sql — GET /scribe-trials/api/leaderboard: the leaderboard view as a JSON array.
-- Read-only. Vendors with >= 3 runs, best average first (the view's order); passing is a
-- JSON boolean.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/leaderboard | jq '.[0]'
SELECT json_group_array(json_object(
         'vendor',            vendor,
         'runs',              runs,
         'trials',            trials,
         'avg_score',         avg_score,
         'stddev',            stddev,
         'ci95_low',          ci95_low,
         'ci95_high',         ci95_high,
         'unsafe',            unsafe,
         'last_submitted_at', last_submitted_at,
         'passing',           json(CASE WHEN passing THEN 'true' ELSE 'false' END)
       )) AS body
FROM leaderboard;
