-- Issue 13: a Party's contacts. The directory row keeps the Party's whole
-- state (every contact, as the domain's `Authority` JSON); the history row
-- keeps each event as read today (first-release events upcast). Both read
-- models are disposable: they are emptied here and rebuilt from the log by
-- their projections (in server mode the projection's JetStream consumer is
-- recreated from the start of the stream when its checkpoint is 0).

ALTER TABLE directory ADD COLUMN state TEXT NOT NULL DEFAULT '';
DELETE FROM directory;
DELETE FROM authority_history;
UPDATE projection_checkpoints
   SET position = 0, stream_sequence = 0, halted = NULL
 WHERE name IN ('directory', 'history');
