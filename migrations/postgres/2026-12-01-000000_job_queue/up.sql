-- The job queue: an endpoint that times out or refuses connections is backed
-- off as a whole, so its deliveries wait together instead of each finding it
-- dead in turn.
ALTER TABLE webhooks ADD COLUMN unreachable_streak INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN backoff_until TIMESTAMP;

-- An attempt is logged when it starts, before the request leaves, and
-- finished when its outcome is known: the log shows every request a receiver
-- may have seen, including one whose sender died.
ALTER TABLE webhook_attempts ADD COLUMN finished BOOLEAN NOT NULL DEFAULT TRUE;
