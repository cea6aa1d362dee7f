-- Webhooks: endpoints that receive a user's game events, signed per Standard Webhooks.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    -- JSON array of event types
    events TEXT NOT NULL,
    -- Only this game's events, when set
    game_id TEXT REFERENCES games (id) ON DELETE CASCADE,
    -- whsec_<base64 of 32 random bytes>
    secret TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT 1,
    -- Deliveries that failed every retry since the last success
    failure_count INTEGER NOT NULL DEFAULT 0,
    -- Why the server disabled it: gone (410) | failing
    disabled_reason TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id);

-- One row per (webhook, event): the unique key makes fan-out idempotent, and the
-- row's id is the `webhook-id` receivers de-duplicate on.
CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY NOT NULL,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    -- The outbox event (game_events.id), or a fresh id for a ping
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    -- The exact request body, so every attempt sends the same bytes
    payload TEXT NOT NULL,
    -- pending | delivered | failed
    status TEXT NOT NULL,
    -- Attempts in the current retry run (a redelivery starts a new run)
    attempts INTEGER NOT NULL DEFAULT 0,
    -- Due time while pending; a claim pushes it past the request timeout (a lease)
    next_attempt_at TIMESTAMP NOT NULL,
    last_status_code INTEGER,
    last_error TEXT,
    last_duration_ms INTEGER,
    created_at TIMESTAMP NOT NULL,
    delivered_at TIMESTAMP,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_at);

-- Every attempt, for the deliveries listing.
CREATE TABLE webhook_attempts (
    id TEXT PRIMARY KEY NOT NULL,
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at TIMESTAMP NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error TEXT
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);

-- Outbox events already fanned out to webhooks. The worker scans events without
-- a row here, so an event committed late (out of id order) is never skipped.
CREATE TABLE webhook_fanout (
    event_id TEXT PRIMARY KEY NOT NULL
);
