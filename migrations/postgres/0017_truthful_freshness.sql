-- Issue 25 (directory data release): the directory folds events with new
-- rules (domain::authority::apply): a check no longer replaces a contact's
-- source and moves `last_checked` only when it reached and verified the
-- authority; a defunct primary stops being primary; an area-limited
-- authority is never primary by default. The directory is disposable:
-- emptied here and rebuilt from the log by its projection, as in 0013.

DELETE FROM directory;
UPDATE projection_checkpoints
   SET position = 0, stream_sequence = 0, halted = NULL
 WHERE name = 'directory';
