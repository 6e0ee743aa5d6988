-- vendor_key.sql — the SHA-256 of a claimed vendor's key (POST /api/submit checks the request's
-- Authorization: Bearer <key> against it). No row, or NULL, while the name is unclaimed.
-- Read-only.
SELECT key_sha256 FROM vendors WHERE vendor_key = scribe_vendor_key(:vendor);
