DROP INDEX game_events_stream_idx;
ALTER TABLE game_events DROP COLUMN stream_order;
