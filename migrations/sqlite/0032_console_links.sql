-- Sign-in by a one-time mailed link (issue #28, commands::console).
--
-- console_links  one row per link mailed to a steward: only the SHA-256 of
--                its token is stored, never the token (which lives only in
--                the mail); it expires 15 minutes after it was issued and is
--                deleted when it is used, so it signs in once.

CREATE TABLE console_links (
    link_hash   TEXT PRIMARY KEY,
    steward_id  TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
);

-- console_digests  one row per steward and day a reminder digest was sent
--                  (the mail role's daily digest): never twice a day.
CREATE TABLE console_digests (
    steward_id  TEXT NOT NULL,
    day         TEXT NOT NULL,
    PRIMARY KEY (steward_id, day)
);
