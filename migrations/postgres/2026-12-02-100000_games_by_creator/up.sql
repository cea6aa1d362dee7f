-- How many games an account created lately (the hourly limit) is asked on
-- every creation: without this index, a scan of every game.
CREATE INDEX IF NOT EXISTS games_created_by_idx ON games (created_by, created_at);
