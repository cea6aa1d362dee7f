DROP INDEX games_created_by_idx;
