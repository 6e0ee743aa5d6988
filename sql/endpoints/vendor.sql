-- vendor.sql — GET /scribe-trials/api/vendors/:vendor[?before=<submission id>]: the vendor's
-- runs, newest first, 50 per page (keyset pagination: `next` is the `before` of the next page,
-- null on the last). Every run says its current grade (NULL scores while none exists under the
-- current versions), whether it counts (blank notes and identical resubmissions do not) and
-- whether its critical errors are confirmed, pending review or cleared. The vendor is found by
-- its NFKC case-folded name. Read-only. NULL (404) for a vendor never seen.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/vendors/Acme%20Scribe | jq '.runs[0]'
WITH v AS (
  SELECT * FROM vendors WHERE vendor_key = scribe_vendor_key(:vendor)
), cursor AS (
  SELECT created_at, id FROM submissions WHERE id = :before
), page AS (
  SELECT s.id, s.script_id, s.kind, s.created_at, s.blank
  FROM submissions s, v
  WHERE s.vendor_key = v.vendor_key
    AND (:before IS NULL OR (s.created_at, s.id) < (SELECT created_at, id FROM cursor))
  ORDER BY s.created_at DESC, s.id DESC
  LIMIT 51
), rows AS (
  SELECT p.*, row_number() OVER (ORDER BY p.created_at DESC, p.id DESC) AS n FROM page p
)
SELECT json_object(
         'vendor', v.name,
         'claimed', json(CASE WHEN v.key_sha256 IS NOT NULL THEN 'true' ELSE 'false' END),
         'first_seen_at', v.first_seen_at,
         'runs', (SELECT json_group_array(json_object(
                           'id', r.id,
                           'script_id', r.script_id,
                           'kind', r.kind,
                           'created_at', r.created_at,
                           'score_total', g.score_total,
                           'unsafe', json(CASE WHEN g.unsafe THEN 'true' WHEN g.unsafe = 0 THEN 'false' ELSE 'null' END),
                           'unsafe_status', c.unsafe_status,
                           'counted', json(CASE WHEN c.id IS NOT NULL THEN 'true' ELSE 'false' END),
                           'blank', json(CASE WHEN r.blank THEN 'true' ELSE 'false' END),
                           'grader_version', g.grader_version,
                           'methodology_version', g.methodology_version,
                           'corpus_hash', g.corpus_hash))
                  FROM (SELECT * FROM rows WHERE n <= 50 ORDER BY n) r
                  LEFT JOIN current_grades g ON g.submission_id = r.id
                  LEFT JOIN counted_runs c ON c.id = r.id),
         'next', (SELECT id FROM rows WHERE n = 50 AND (SELECT count(*) FROM rows) > 50)) AS body
FROM v;
