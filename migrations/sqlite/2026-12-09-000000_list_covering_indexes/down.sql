DROP INDEX games_list_keys_idx;
DROP INDEX game_seats_user_idx;
CREATE INDEX game_seats_user_idx ON game_seats (user_id);
