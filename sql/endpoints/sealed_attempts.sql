-- connection: write
-- sealed_attempts.sql — before grading a submission (or dry run): is the trial sealed, and how
-- often have this vendor (NFKC case-folded) and this client address (salted SHA-256, never the
-- address itself) graded this version of it? No row for an unknown trial. Runs inside the
-- submit's write transaction, with sealed_attempt_add.sql, so two requests cannot both take the
-- last attempt.
SELECT t.sealed,
       (SELECT count(*) FROM sealed_attempts a
        WHERE a.trial_id = t.id AND a.version_hash = t.version_hash AND a.vendor_key = scribe_vendor_key(:vendor)),
       (SELECT count(*) FROM sealed_attempts a
        WHERE a.trial_id = t.id AND a.version_hash = t.version_hash
          AND a.client_hash = scribe_sha256((SELECT value FROM meta WHERE key = 'client_salt') || :client))
FROM trials t
WHERE t.id = :script_id;
