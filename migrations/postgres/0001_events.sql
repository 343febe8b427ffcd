-- The event store: the source of truth for every aggregate.
--
-- Columns follow postgres-es 0.5 (`db/init.sql`) so that
-- `postgres_es::PostgresEventRepository` reads and writes this table as is.
-- payload and metadata are jsonb rather than json: sqlx binds serde_json::Value
-- as jsonb, and jsonb can be indexed; the JSON values are the same.
--
-- Added for the relay and the projections:
--   position     global order of events, assigned in COMMIT order (see below);
--   recorded_at  when the row was inserted (server clock);
--   published_at when the relay published the event to the log (NULL = not yet).
--
-- The table has no snapshots companion: basel loads aggregates from events
-- only (cqrs-es 0.5 snapshot stores apply new events twice).

CREATE SEQUENCE events_position_seq AS bigint;

CREATE TABLE events
(
    aggregate_type text                         NOT NULL,
    aggregate_id   text                         NOT NULL,
    sequence       bigint CHECK (sequence >= 0) NOT NULL,
    event_type     text                         NOT NULL,
    event_version  text                         NOT NULL,
    payload        jsonb                        NOT NULL,
    metadata       jsonb                        NOT NULL,
    -- No default: the trigger below assigns it (a default would burn a
    -- sequence value on every insert before the trigger overrides it).
    position       bigint                       NOT NULL,
    recorded_at    timestamptz                  NOT NULL DEFAULT now(),
    published_at   timestamptz,
    PRIMARY KEY (aggregate_type, aggregate_id, sequence),
    CONSTRAINT events_position_key UNIQUE (position)
);

ALTER SEQUENCE events_position_seq OWNED BY events.position;

-- The relay reads what is still unpublished, in position order.
CREATE INDEX events_unpublished_idx ON events (position) WHERE published_at IS NULL;

-- Why positions need a lock.
--
-- A plain bigserial takes its value when the row is INSERTed, not when the
-- transaction COMMITs. With two writers, T1 may take position 10, T2 take 11,
-- and T2 commit first. A reader that has seen 11 and then asks for
-- "position > 11" never sees 10: the event is silently skipped forever.
--
-- The trigger takes a transaction-scoped advisory lock before it draws the
-- next position. The lock is held until the inserting transaction commits or
-- rolls back, so a second writer waits before drawing its position. Hence
-- every uncommitted event has a higher position than every committed one, and
-- positions become visible in increasing order: a reader that has seen
-- position P will never later see a new event below P.
--
-- Writers to the events table are serialised by this lock; for basel's write
-- rate (steward updates, registrations, imports) that costs nothing noticeable.
-- The lock is taken before the row reaches the primary key index, so a
-- concurrent duplicate (aggregate_type, aggregate_id, sequence) waits for the
-- lock, then fails with unique_violation (23505) = an optimistic-lock conflict,
-- and no deadlock can arise between the two.
--
-- The key is a fixed constant (the bytes "basel\0po"); it is
-- commands::store::POSITION_LOCK_KEY and must not be used for anything else
-- (the relay's leader lock uses a different key).
CREATE FUNCTION events_assign_position() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_advisory_xact_lock(7089074167898730607);
    NEW.position := nextval('events_position_seq');
    RETURN NEW;
END;
$$;

CREATE TRIGGER events_assign_position
    BEFORE INSERT ON events
    FOR EACH ROW
EXECUTE FUNCTION events_assign_position();

-- Wake the relay: it LISTENs on 'basel_events'. Notifications are delivered
-- only when the transaction commits, so the relay never hears of a rollback.
-- The payload (the position) is a hint; the relay always reads the table.
CREATE FUNCTION events_notify() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('basel_events', NEW.position::text);
    RETURN NEW;
END;
$$;

CREATE TRIGGER events_notify
    AFTER INSERT ON events
    FOR EACH ROW
EXECUTE FUNCTION events_notify();
