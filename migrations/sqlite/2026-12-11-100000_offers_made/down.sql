DROP INDEX game_actions_by_player_idx;
DROP TABLE offers_made;
