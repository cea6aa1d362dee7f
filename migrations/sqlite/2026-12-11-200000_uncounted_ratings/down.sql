ALTER TABLE ratings DROP COLUMN opponents;
ALTER TABLE rating_changes DROP COLUMN uncounted;
