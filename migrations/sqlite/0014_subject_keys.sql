-- Per-person keys for crypto-shredding (commands::identity). Every address
-- of a person an event records (a registrant's, a steward's) is sealed
-- (XChaCha20-Poly1305) under a data key of that person; the data key is kept
-- here, itself sealed under a key derived from the server secret, never in
-- the log. `basel forget EMAIL` deletes the person's rows: every event and
-- every copy of the log then holds only ciphertext nobody can open.
--
--   key_id      random id named by each sealed address ({"key", "sealed"})
--   subject     keyed digest (HMAC under the server secret) of the
--               normalised address: finds a person's keys, reveals nothing
--   wrapped     hex of nonce + the data key sealed under the key-encryption key
--   created_at  RFC 3339 UTC

CREATE TABLE subject_keys (
    key_id     TEXT PRIMARY KEY,
    subject    TEXT NOT NULL,
    wrapped    TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX subject_keys_by_subject ON subject_keys (subject);
