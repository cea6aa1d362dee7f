DROP TABLE rating_changes;
DROP TABLE ratings;
ALTER TABLE games DROP COLUMN rated;
DROP TABLE bot_jobs;
DROP TRIGGER users_bot_level_known_insert;
DROP TRIGGER users_bot_level_known_update;
DELETE FROM users WHERE bot_level IS NOT NULL;
ALTER TABLE users DROP COLUMN bot_level;
