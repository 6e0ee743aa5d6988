-- connection: write
-- sealed_attempt_add.sql — records one grading of a sealed trial's current version (dry runs
-- included) for the vendor and the client address (salted SHA-256). See sealed_attempts.sql.
INSERT INTO sealed_attempts (trial_id, version_hash, vendor_key, client_hash, dry_run)
SELECT id, version_hash, scribe_vendor_key(:vendor),
       scribe_sha256((SELECT value FROM meta WHERE key = 'client_salt') || :client), :dry_run = '1'
FROM trials
WHERE id = :script_id AND sealed = 1;
