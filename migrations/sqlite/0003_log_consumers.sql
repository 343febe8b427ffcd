-- For projections fed by JetStream (server mode) and for the api_keys gap guard.
--
-- stream_sequence: the last JetStream stream sequence a projection applied
-- (0 in embedded mode, where the checkpoint's position is the log cursor).
-- A durable consumer that is missing (deleted, new stream) is re-created to
-- start after it.
ALTER TABLE projection_checkpoints ADD COLUMN stream_sequence BIGINT NOT NULL DEFAULT 0;

-- Last applied sequence per aggregate, for projections whose rows are not one
-- per aggregate (api_keys: one row per key generation). Lets them tell a
-- duplicate (skip) from a gap (retry) like the others.
CREATE TABLE projection_versions (
    projection    TEXT NOT NULL,
    aggregate_id  TEXT NOT NULL,
    version       BIGINT NOT NULL,
    PRIMARY KEY (projection, aggregate_id)
);

-- Stores projected before this migration: the api_keys projection has applied
-- every api_key event up to its checkpoint; record each aggregate's last one.
INSERT INTO projection_versions (projection, aggregate_id, version)
SELECT 'api_keys', aggregate_id, MAX(sequence)
FROM events
WHERE aggregate_type = 'api_key'
  AND position <= (SELECT position FROM projection_checkpoints WHERE name = 'api_keys')
GROUP BY aggregate_id;
