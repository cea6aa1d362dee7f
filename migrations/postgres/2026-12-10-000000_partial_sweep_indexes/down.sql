DROP INDEX games_status_expires_idx;
CREATE INDEX games_status_expires_idx ON games (status, expires_at);
DROP INDEX games_status_deadline_idx;
CREATE INDEX games_status_deadline_idx ON games (status, deadline);
