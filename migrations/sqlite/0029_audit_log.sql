-- The verifiable log (commands::audit, issue #29).
--
-- audit_leaves      one row per event in append order: leaf_index (0-based,
--                   the event's place in the RFC 9162 Merkle tree), the
--                   event's position and its leaf hash SHA-256(0x00 || the
--                   event's canonical bytes, commands::audit::leaf).
-- audit_checkpoints one signed checkpoint per tree size: its root and the
--                   C2SP signed note (origin, size, root, Ed25519 signature).
--
-- All three tables are append-only: UPDATE and DELETE are refused by the
-- triggers below. On `events` two narrow updates remain: `published_at`
-- (the relay's outbox mark, not part of any leaf), and the one-time sealing
-- of a first-release plaintext address (event_version 1 -> 2 of
-- ApiKeyIssued / StewardEnrolled) of an event no leaf covers yet.

CREATE TABLE audit_leaves
(
    leaf_index INTEGER PRIMARY KEY CHECK (leaf_index >= 0),
    position   INTEGER NOT NULL UNIQUE,
    leaf_hash  BLOB    NOT NULL CHECK (length(leaf_hash) = 32)
);

CREATE TABLE audit_checkpoints
(
    tree_size INTEGER PRIMARY KEY CHECK (tree_size > 0),
    root_hash BLOB    NOT NULL CHECK (length(root_hash) = 32),
    note      TEXT    NOT NULL,
    signed_at TEXT    NOT NULL
);

CREATE TRIGGER events_no_delete
    BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: DELETE is refused');
END;

CREATE TRIGGER events_no_update
    BEFORE UPDATE ON events
    WHEN NOT (
        NEW.position IS OLD.position
        AND NEW.aggregate_type IS OLD.aggregate_type
        AND NEW.aggregate_id IS OLD.aggregate_id
        AND NEW.sequence IS OLD.sequence
        AND NEW.event_type IS OLD.event_type
        AND NEW.metadata IS OLD.metadata
        AND NEW.recorded_at IS OLD.recorded_at
        AND (
            (NEW.payload IS OLD.payload AND NEW.event_version IS OLD.event_version)
            OR (OLD.event_version = '1' AND NEW.event_version = '2'
                AND OLD.event_type IN ('ApiKeyIssued', 'StewardEnrolled')
                AND NOT EXISTS (SELECT 1 FROM audit_leaves WHERE audit_leaves.position = OLD.position))
        )
    )
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: UPDATE is refused (only published_at may change)');
END;

CREATE TRIGGER audit_leaves_no_update
    BEFORE UPDATE ON audit_leaves
BEGIN
    SELECT RAISE(ABORT, 'audit_leaves is append-only: UPDATE is refused');
END;

CREATE TRIGGER audit_leaves_no_delete
    BEFORE DELETE ON audit_leaves
BEGIN
    SELECT RAISE(ABORT, 'audit_leaves is append-only: DELETE is refused');
END;

CREATE TRIGGER audit_checkpoints_no_update
    BEFORE UPDATE ON audit_checkpoints
BEGIN
    SELECT RAISE(ABORT, 'audit_checkpoints is append-only: UPDATE is refused');
END;

CREATE TRIGGER audit_checkpoints_no_delete
    BEFORE DELETE ON audit_checkpoints
BEGIN
    SELECT RAISE(ABORT, 'audit_checkpoints is append-only: DELETE is refused');
END;
