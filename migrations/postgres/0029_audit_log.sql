-- The verifiable log (commands::audit, issue #29).
--
-- audit_leaves      one row per event in append order: leaf_index (0-based,
--                   the event's place in the RFC 9162 Merkle tree), the
--                   event's position and its leaf hash SHA-256(0x00 || the
--                   event's canonical bytes, commands::audit::leaf).
-- audit_checkpoints one signed checkpoint per tree size: its root and the
--                   C2SP signed note (origin, size, root, Ed25519 signature).
--
-- All three tables are append-only: UPDATE, DELETE and TRUNCATE are refused
-- by the triggers below. On `events` two narrow updates remain:
-- `published_at` (the relay's outbox mark, not part of any leaf), and the
-- one-time sealing of a first-release plaintext address (event_version
-- 1 -> 2 of ApiKeyIssued / StewardEnrolled) of an event no leaf covers yet.

CREATE TABLE audit_leaves
(
    leaf_index bigint PRIMARY KEY CHECK (leaf_index >= 0),
    position   bigint NOT NULL UNIQUE,
    leaf_hash  bytea  NOT NULL CHECK (length(leaf_hash) = 32)
);

CREATE TABLE audit_checkpoints
(
    tree_size bigint PRIMARY KEY CHECK (tree_size > 0),
    root_hash bytea       NOT NULL CHECK (length(root_hash) = 32),
    note      text        NOT NULL,
    signed_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION refuse_change() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    RAISE EXCEPTION '% is append-only: % is refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE FUNCTION events_append_only() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    IF NEW.position IS DISTINCT FROM OLD.position
        OR NEW.aggregate_type IS DISTINCT FROM OLD.aggregate_type
        OR NEW.aggregate_id IS DISTINCT FROM OLD.aggregate_id
        OR NEW.sequence IS DISTINCT FROM OLD.sequence
        OR NEW.event_type IS DISTINCT FROM OLD.event_type
        OR NEW.metadata IS DISTINCT FROM OLD.metadata
        OR NEW.recorded_at IS DISTINCT FROM OLD.recorded_at
        OR ((NEW.payload IS DISTINCT FROM OLD.payload OR NEW.event_version IS DISTINCT FROM OLD.event_version)
            AND NOT (OLD.event_version = '1' AND NEW.event_version = '2'
                AND OLD.event_type IN ('ApiKeyIssued', 'StewardEnrolled')
                AND NOT EXISTS (SELECT 1 FROM audit_leaves WHERE audit_leaves.position = OLD.position)))
    THEN
        RAISE EXCEPTION 'events are append-only: UPDATE is refused (only published_at may change)'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER events_append_only
    BEFORE UPDATE ON events
    FOR EACH ROW
EXECUTE FUNCTION events_append_only();

CREATE TRIGGER events_no_delete
    BEFORE DELETE ON events
    FOR EACH ROW
EXECUTE FUNCTION refuse_change();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT
EXECUTE FUNCTION refuse_change();

CREATE TRIGGER audit_leaves_append_only
    BEFORE UPDATE OR DELETE ON audit_leaves
    FOR EACH ROW
EXECUTE FUNCTION refuse_change();

CREATE TRIGGER audit_leaves_no_truncate
    BEFORE TRUNCATE ON audit_leaves
    FOR EACH STATEMENT
EXECUTE FUNCTION refuse_change();

CREATE TRIGGER audit_checkpoints_append_only
    BEFORE UPDATE OR DELETE ON audit_checkpoints
    FOR EACH ROW
EXECUTE FUNCTION refuse_change();

CREATE TRIGGER audit_checkpoints_no_truncate
    BEFORE TRUNCATE ON audit_checkpoints
    FOR EACH STATEMENT
EXECUTE FUNCTION refuse_change();
