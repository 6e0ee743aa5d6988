-- connection: write
-- sealed_attempt_take.sql — cluster mode (docs/scale-out.md): records one grading of a sealed
-- trial's current version for the vendor and the client address only while both have graded it
-- fewer than :limit times, in one statement, so that two graders cannot both take the last
-- attempt (the store's leader runs one write at a time). One row changed: the attempt is taken;
-- none: the trial is public or unknown, or a limit is reached (sealed_attempts.sql says which).
-- On a single machine sealed_attempts.sql and sealed_attempt_add.sql do the same inside the
-- submit's write transaction.
INSERT INTO sealed_attempts (trial_id, version_hash, vendor_key, client_hash, dry_run)
SELECT t.id, t.version_hash, scribe_vendor_key(:vendor),
       scribe_sha256((SELECT value FROM meta WHERE key = 'client_salt') || :client), :dry_run = '1'
FROM trials t
WHERE t.id = :script_id AND t.sealed = 1
  AND (SELECT count(*) FROM sealed_attempts a
       WHERE a.trial_id = t.id AND a.version_hash = t.version_hash AND a.vendor_key = scribe_vendor_key(:vendor)) < :limit
  AND (SELECT count(*) FROM sealed_attempts a
       WHERE a.trial_id = t.id AND a.version_hash = t.version_hash
         AND a.client_hash = scribe_sha256((SELECT value FROM meta WHERE key = 'client_salt') || :client)) < :limit;
