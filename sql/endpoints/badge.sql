-- badge.sql — GET /scribe-trials/api/badge/:vendor.svg: the vendor's badge from the badges view.
-- Read-only. Exactly one row: the vendor's badge (passing 1 → 200, 0 → 404 with the badge
-- saying why, e.g. "2 of 3 runs"), or for an unknown vendor a grey "no passing result" (404).
-- badge_svg XML-escapes its arguments.
--
--   curl -s http://127.0.0.1:4779/scribe-trials/api/badge/Acme%20Scribe.svg
SELECT passing, svg
FROM (SELECT 1 AS arm, passing, badge_svg(label, message, color) AS svg
      FROM badges
      WHERE vendor_key = scribe_vendor_key(:vendor)
      UNION ALL
      SELECT 2, 0, badge_svg('scribe-trials', 'no passing result', 'lightgrey'))
ORDER BY arm
LIMIT 1;
