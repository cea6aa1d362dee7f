DROP TRIGGER game_events_stream_order;
DROP INDEX game_events_stream_idx;
ALTER TABLE game_events DROP COLUMN stream_order;
DROP TABLE game_event_counter;
