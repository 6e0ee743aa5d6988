-- connection: write
-- sealed_attempts.sql — before grading a submission (or dry run): is the trial sealed, and how
-- often have this vendor (NFKC case-folded) and this client address (salted SHA-256, never the
-- address itself) graded this version of it? No row for an unknown trial. Runs inside the
-- submit's write transaction, with sealed_attempt_add.sql, so two requests cannot both take the
-- last attempt. The counts are made for a sealed trial only (0 for a public one, whose counts
-- nobody reads): every submission asks, and hashing the address cost more than the rest.
SELECT t.sealed,
       CASE WHEN t.sealed THEN
         (SELECT count(*) FROM sealed_attempts a
          WHERE a.trial_id = t.id AND a.version_hash = t.version_hash AND a.vendor_key = scribe_vendor_key(:vendor))
       ELSE 0 END,
       CASE WHEN t.sealed THEN
         (SELECT count(*) FROM sealed_attempts a
          WHERE a.trial_id = t.id AND a.version_hash = t.version_hash
            AND a.client_hash = scribe_sha256((SELECT value FROM meta WHERE key = 'client_salt') || :client))
       ELSE 0 END
FROM trials t
WHERE t.id = :script_id;
