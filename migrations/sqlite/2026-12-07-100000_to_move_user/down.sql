DROP INDEX games_to_move_user_idx;
ALTER TABLE games DROP COLUMN to_move_user;
