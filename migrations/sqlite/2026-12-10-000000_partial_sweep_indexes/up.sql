-- The sweep looks for games whose deadline or invitation has passed
-- (`db::games::overdue_games`, `games_due_before`, `lapsed_open_games`):
-- only games that have one. Untimed games, and every game once it has
-- started (its invitation ends then), are left out of these indexes, so a
-- move of such a game no longer adds an entry to them.
DROP INDEX games_status_deadline_idx;
CREATE INDEX games_status_deadline_idx ON games (status, deadline) WHERE deadline IS NOT NULL;
DROP INDEX games_status_expires_idx;
CREATE INDEX games_status_expires_idx ON games (status, expires_at) WHERE expires_at IS NOT NULL;
