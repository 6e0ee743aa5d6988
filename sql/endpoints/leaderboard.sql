-- leaderboard.sql — GET /scribe-trials/api/leaderboard: the leaderboard view as a JSON array.
-- Read-only. Vendors with >= 3 runs, vendors without a confirmed unsafe note first, then best suite score
-- (the view's order); unsafe counts confirmed unsafe notes, unsafe_pending those whose critical
-- errors await clinician review; passing is a JSON boolean.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/leaderboard | jq '.[0]'
SELECT json_group_array(json_object(
         'vendor',            vendor,
         'runs',              runs,
         'trials',            trials,
         'suite_trials',      suite_trials,
         'avg_score',         avg_score,
         'stddev',            stddev,
         'ci95_low',          ci95_low,
         'ci95_high',         ci95_high,
         'unsafe',            unsafe,
         'unsafe_pending',    unsafe_pending,
         'last_submitted_at', last_submitted_at,
         'passing',           json(CASE WHEN passing THEN 'true' ELSE 'false' END)
       )) AS body
FROM leaderboard;
