-- The game list finds its page from the sort keys of a player's games
-- alone, then reads the page's rows (`db::games::list_games`). These two
-- indexes answer that first step without reading a table: a player's game
-- ids, and each game's status and sort keys.
DROP INDEX game_seats_user_idx;
CREATE INDEX game_seats_user_idx ON game_seats (user_id, game_id);
CREATE INDEX games_list_keys_idx ON games (id) INCLUDE (status, to_move_user, deadline, updated_at);
