-- refresh_standings.sql (sql/store) — cluster mode (docs/scale-out.md): the standings refresh
-- as plain statements, run by a grader on the replicated store in the same transaction as the
-- submissions of a batch. The store's connections have the extension's pure functions only, so
-- scribe_refresh_standings() (extension/sql/results.cpp, Refresh) cannot run there; these do
-- the same, in its order. `fresh` says whether the table holds the current versions' standings:
-- when it does not, every vendor is recomputed (a full refresh); when it does, the dirty ones.
-- Nothing here changes meta or standings_dirty before the statements that read them have run.
-- tests/sql/standings_store.test compares the two. One statement per ';' (no ';' inside one).
DELETE FROM standings
WHERE NOT (SELECT fresh FROM standings_versions) OR vendor_key IN (SELECT vendor_key FROM standings_dirty);
INSERT INTO standings SELECT * FROM standings_recomputed;
DELETE FROM standings_dirty;
DELETE FROM meta
WHERE key = 'standings_for' AND NOT (SELECT fresh FROM standings_versions)
  AND (SELECT versions FROM standings_versions) IS NULL;
INSERT INTO meta (key, value)
SELECT 'standings_for', versions FROM standings_versions WHERE NOT fresh AND versions IS NOT NULL
ON CONFLICT (key) DO UPDATE SET value = excluded.value;
