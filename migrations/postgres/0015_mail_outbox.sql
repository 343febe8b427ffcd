-- The mail outbox (crate `mail`). Fed from the events table: one row per
-- message, keyed by a Message-ID derived from the event (and, for a notice,
-- the recipient), so an event yields at most one message whatever the
-- restarts. Rows name the recipient by their api_key aggregate id, never by
-- address, and hold no key: the key is derived again when the mail is built.
--
--   kind             'key' (the API key, KeyMailRequested) or 'notice'
--   reference        key: the key generation; notice: the notice id
--   position         the log position of the event that queued it
--   status           queued, sent, failed (gave up), skipped (nothing to send
--                    any more: key revoked, recipient unsubscribed)
--   next_attempt_at  RFC 3339 UTC; retries back off exponentially

CREATE TABLE mail_outbox (
    message_id       TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    recipient        TEXT NOT NULL,
    reference        TEXT NOT NULL,
    position         BIGINT NOT NULL,
    status           TEXT NOT NULL,
    attempts         BIGINT NOT NULL,
    next_attempt_at  TEXT NOT NULL,
    last_error       TEXT,
    queued_at        TEXT NOT NULL,
    sent_at          TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at);
CREATE INDEX mail_outbox_reference ON mail_outbox (kind, reference);

-- How far the outbox has read the log.
CREATE TABLE mail_feed (
    name      TEXT PRIMARY KEY,
    position  BIGINT NOT NULL
);
INSERT INTO mail_feed (name, position) VALUES ('outbox', 0);
