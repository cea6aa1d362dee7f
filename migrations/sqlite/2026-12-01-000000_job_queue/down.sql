ALTER TABLE webhook_attempts DROP COLUMN finished;
ALTER TABLE webhooks DROP COLUMN backoff_until;
ALTER TABLE webhooks DROP COLUMN unreachable_streak;
