-- The last event of each aggregate type, for readiness, metrics and
-- read-your-writes (`Projector::lag`): an index lookup instead of a scan of
-- the whole log.
CREATE INDEX events_type_position_idx ON events (aggregate_type, position);
