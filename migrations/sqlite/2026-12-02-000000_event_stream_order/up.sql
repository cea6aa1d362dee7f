-- The order in which a recipient's events are streamed and listed. SQLite
-- has one writer at a time (across processes, by its file lock), so a
-- counter advanced as each row is written follows the order of commits. The
-- counter has a row of its own, so numbers are never given out twice, even
-- after the newest events are deleted.
CREATE TABLE game_event_counter (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
);
INSERT INTO game_event_counter (id, value) SELECT 1, COALESCE(MAX(rowid), 0) FROM game_events;
ALTER TABLE game_events ADD COLUMN stream_order INTEGER NOT NULL DEFAULT 0;
UPDATE game_events SET stream_order = rowid;
CREATE INDEX game_events_stream_idx ON game_events (user_id, stream_order);
CREATE TRIGGER game_events_stream_order AFTER INSERT ON game_events
BEGIN
    UPDATE game_event_counter SET value = value + 1 WHERE id = 1;
    UPDATE game_events
    SET stream_order = (SELECT value FROM game_event_counter WHERE id = 1)
    WHERE rowid = NEW.rowid;
END;
