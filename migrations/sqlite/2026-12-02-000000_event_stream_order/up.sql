-- The order in which a recipient's events are streamed and listed. SQLite
-- has one writer at a time (across processes, by its file lock), so a counter
-- set as each row is written follows the order of commits.
ALTER TABLE game_events ADD COLUMN stream_order INTEGER NOT NULL DEFAULT 0;
UPDATE game_events SET stream_order = rowid;
CREATE INDEX game_events_order_idx ON game_events (stream_order);
CREATE INDEX game_events_stream_idx ON game_events (user_id, stream_order);
CREATE TRIGGER game_events_stream_order AFTER INSERT ON game_events
BEGIN
    UPDATE game_events
    SET stream_order = (SELECT COALESCE(MAX(stream_order), 0) + 1 FROM game_events)
    WHERE rowid = NEW.rowid;
END;
