ALTER TABLE game_actions DROP COLUMN premove;
DROP TABLE premoves;
