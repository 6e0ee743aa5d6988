-- vendor_trials.sql — GET /scribe-trials/api/vendors/:vendor/trials: the vendor's standing per
-- current trial (every public trial, the ones not run with 0 runs: the suite score counts them
-- 0), from the vendor_trials view, plus the suite summary the leaderboard uses. Sealed trials
-- are listed only when run, and never in the suite. Read-only. NULL (404) for a vendor never seen.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/vendors/Acme%20Scribe/trials | jq .suite
WITH v AS (
  SELECT * FROM vendors WHERE vendor_key = scribe_vendor_key(:vendor)
)
SELECT json_object(
         'vendor', v.name,
         'suite', (SELECT json_object(
                            'suite_trials', (SELECT count(*) FROM trials WHERE sealed = 0),
                            'trials_run', (SELECT count(*) FROM vendor_trials vt JOIN trials t ON t.id = vt.script_id
                                           WHERE vt.vendor_key = v.vendor_key AND t.sealed = 0),
                            'runs', l.runs,
                            'suite_score', l.suite_score,
                            'ci95_low', l.ci95_low,
                            'ci95_high', l.ci95_high,
                            'unsafe', l.unsafe,
                            'unsafe_pending', l.unsafe_pending,
                            'passing', json(CASE WHEN l.passing THEN 'true' WHEN l.passing = 0 THEN 'false' ELSE 'null' END))
                   FROM (SELECT 1) LEFT JOIN leaderboard l ON l.vendor_key = v.vendor_key),
         'trials', (SELECT json_group_array(json_object(
                             'script_id', t.id,
                             'title', t.title,
                             'kind', t.kind,
                             'sealed', json(CASE WHEN t.sealed THEN 'true' ELSE 'false' END),
                             'runs', coalesce(vt.runs, 0),
                             'mean', vt.mean,
                             'min', vt.min,
                             'max', vt.max,
                             'unsafe', coalesce(vt.unsafe, 0),
                             'unsafe_pending', coalesce(vt.unsafe_pending, 0),
                             'last_run_at', vt.last_run_at))
                    FROM trials t
                    LEFT JOIN vendor_trials vt ON vt.script_id = t.id AND vt.vendor_key = v.vendor_key
                    WHERE t.sealed = 0 OR vt.runs IS NOT NULL
                    ORDER BY t.id)) AS body
FROM v;
