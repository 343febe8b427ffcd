-- The event store of embedded mode: the same columns as the PostgreSQL
-- `events` table (which follows postgres-es 0.5), in SQLite types.
--
--   position      INTEGER PRIMARY KEY AUTOINCREMENT: the rowid, strictly
--                 increasing and never reused. SQLite has one writer at a time
--                 (basel appends inside BEGIN IMMEDIATE), so positions are
--                 assigned in commit order without any extra lock.
--   payload,
--   metadata      JSON text.
--   recorded_at   RFC 3339 UTC with milliseconds, e.g. 2025-01-31T12:00:00.123Z.
--   published_at  same format; NULL until the relay has published the event.
--
-- (aggregate_type, aggregate_id, sequence) is the optimistic lock: a second
-- writer of the same sequence fails with a unique-constraint violation.

CREATE TABLE events
(
    position       INTEGER PRIMARY KEY AUTOINCREMENT,
    aggregate_type TEXT    NOT NULL,
    aggregate_id   TEXT    NOT NULL,
    sequence       INTEGER NOT NULL CHECK (sequence >= 0),
    event_type     TEXT    NOT NULL,
    event_version  TEXT    NOT NULL,
    payload        TEXT    NOT NULL,
    metadata       TEXT    NOT NULL,
    recorded_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    published_at   TEXT,
    CONSTRAINT events_aggregate_sequence UNIQUE (aggregate_type, aggregate_id, sequence)
);

-- The relay reads what is still unpublished, in position order.
CREATE INDEX events_unpublished_idx ON events (position) WHERE published_at IS NULL;
