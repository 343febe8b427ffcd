-- The steward console (issue #28, commands::console).
--
-- console_sessions  one row per signed-in browser: only the SHA-256 of the
--                   session id (the cookie's value) is stored, never the id;
--                   times are Unix seconds (idle and absolute expiry are
--                   checked against them on every request).
-- console_forms     one row per form the console rendered: the SHA-256 of its
--                   CSRF token, the session it belongs to, and when it was
--                   spent. A token is spent once: a reused or foreign token
--                   is refused, so a form submitted twice writes once.
-- console_evidence  files backing checks, by the SHA-256 of their bytes
--                   (see below).

CREATE TABLE console_sessions (
    session_hash  TEXT PRIMARY KEY,
    steward_id    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    last_seen_at  BIGINT NOT NULL
);
CREATE INDEX console_sessions_steward ON console_sessions (steward_id);

CREATE TABLE console_forms (
    token_hash    TEXT PRIMARY KEY,
    session_hash  TEXT NOT NULL,
    issued_at     BIGINT NOT NULL,
    spent_at      BIGINT
);
CREATE INDEX console_forms_session ON console_forms (session_hash);

-- Evidence files of checks, content-addressed: the key is the SHA-256 of
-- the bytes, which an EvidenceAttached event names. Outside the events (and
-- so outside the Merkle tree), so erasure can delete a file while every
-- proof stays valid.
CREATE TABLE console_evidence (
    sha256      TEXT PRIMARY KEY,
    media_type  TEXT NOT NULL,
    size        BIGINT NOT NULL,
    content     BLOB NOT NULL,
    stored_at   BIGINT NOT NULL
);
