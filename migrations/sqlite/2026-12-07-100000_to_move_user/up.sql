-- Whose move it is, as an account: the user in the seat to move of an
-- active game (NULL otherwise), kept by every save of the game row, so
-- "my turn" is one index lookup instead of a join per game.
ALTER TABLE games ADD COLUMN to_move_user TEXT;
UPDATE games SET to_move_user = (
    SELECT s.user_id FROM game_seats s
    WHERE s.game_id = games.id AND s.seat = games.to_move AND s.state = 'joined'
) WHERE status = 'active';
CREATE INDEX games_to_move_user_idx ON games (to_move_user, deadline) WHERE to_move_user IS NOT NULL;
