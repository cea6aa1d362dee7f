DROP TABLE game_notes;
