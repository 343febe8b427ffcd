-- Idempotency-Key (issue #30): a steward or registration write that carries
-- the header stores the key (hashed, scoped to its sender) and the digest of
-- its request in the metadata of its events, in the same commit. A retry
-- finds them through this index and gets the original answer instead of a
-- second change.
CREATE INDEX IF NOT EXISTS events_idempotency
    ON events (json_extract(metadata, '$.idempotency_key'))
    WHERE json_extract(metadata, '$.idempotency_key') IS NOT NULL;
