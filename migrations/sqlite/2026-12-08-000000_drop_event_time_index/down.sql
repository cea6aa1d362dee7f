CREATE INDEX game_events_user_idx ON game_events (user_id, created_at);
