-- Read models (projections). Disposable: each can be dropped and rebuilt from
-- the log. Dates are ISO text ('YYYY-MM-DD'), instants RFC 3339 UTC text, so
-- the same SQL serves SQLite and PostgreSQL.

CREATE TABLE projection_checkpoints (
    name        TEXT PRIMARY KEY,
    position    BIGINT NOT NULL,
    halted      TEXT,
    updated_at  TEXT NOT NULL
);

CREATE TABLE directory (
    country_code     TEXT PRIMARY KEY,
    country_name     TEXT NOT NULL,
    ca_name          TEXT,
    email            TEXT,
    phone            TEXT,
    address          TEXT,
    notes            TEXT,
    verified         BIGINT NOT NULL,   -- 0 or 1 (the Any driver cannot decode SQLite booleans)
    last_checked     TEXT,
    source           TEXT,
    source_method    TEXT,
    source_steward   TEXT,
    source_note      TEXT,
    version          BIGINT NOT NULL,
    position         BIGINT NOT NULL,
    updated_at       TEXT NOT NULL
);

CREATE TABLE authority_history (
    country_code  TEXT NOT NULL,
    sequence      BIGINT NOT NULL,
    event_type    TEXT NOT NULL,
    recorded_at   TEXT NOT NULL,
    actor         TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    position      BIGINT NOT NULL,
    details       TEXT NOT NULL,
    PRIMARY KEY (country_code, sequence)
);

CREATE TABLE api_keys (
    key_hash    TEXT PRIMARY KEY,
    key_id      TEXT NOT NULL,
    generation  BIGINT NOT NULL,
    status      TEXT NOT NULL,
    issued_at   TEXT NOT NULL
);
CREATE INDEX api_keys_by_id ON api_keys (key_id, generation);

CREATE TABLE stewards (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL,
    status      TEXT NOT NULL,
    version     BIGINT NOT NULL
);
CREATE INDEX stewards_by_token ON stewards (token_hash);
