ALTER TABLE games DROP COLUMN snapshot;
