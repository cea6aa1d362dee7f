-- Nothing reads a person's events by time: the event list, its streams and
-- their cursors read (user_id, stream_order), which also serves the cascade
-- from users. One index fewer to keep up for every event written.
DROP INDEX game_events_user_idx;
