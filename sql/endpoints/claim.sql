-- connection: write
-- claim.sql — POST /scribe-trials/api/vendors/:vendor/claim: records the SHA-256 of a new key for
-- an unclaimed vendor name (NFKC case-folded: "Acme" and "ACME" are one vendor). One row (the
-- name as first written) when the claim took; no row when the name was already claimed (409).
-- The key itself is never stored.
--
--   curl -s -X POST http://127.0.0.1:4779/scribe-trials/api/vendors/Acme%20Scribe/claim
INSERT INTO vendors (vendor_key, name, key_sha256, claimed_at)
VALUES (scribe_vendor_key(:vendor), :vendor, :key_sha256, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
ON CONFLICT (vendor_key) DO UPDATE SET key_sha256 = excluded.key_sha256, claimed_at = excluded.claimed_at
  WHERE vendors.key_sha256 IS NULL
RETURNING name;
