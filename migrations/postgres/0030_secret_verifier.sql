-- The verifier of the server secret a store was created with
-- (commands::store::verifier): an HMAC of a constant under the secret, never
-- the secret. A process started with another secret finds a different
-- verifier and refuses to start, so API keys, sealed addresses and key ids
-- cannot silently change meaning. One row.
--
--   id           always 1
--   verifier     hex HMAC-SHA256 of "basel secret verifier v1" under the secret
--   recorded_at  RFC 3339 UTC

CREATE TABLE secret_verifier (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    verifier    TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
