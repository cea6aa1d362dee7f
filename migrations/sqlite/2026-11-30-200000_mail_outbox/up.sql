-- Mail: a queue of rendered messages sent by the mail worker with retries, and
-- each user's opted-out event types. Also: outbox events waiting for each
-- channel, in place of webhooks' table of events already fanned out (which a
-- worker had to scan in full to find what was new).
CREATE TABLE mail_messages (
    id TEXT PRIMARY KEY NOT NULL,
    -- The recipient's account
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The outbox event (game_events.id) it reports, if any: one mail per event
    event_id TEXT UNIQUE,
    -- game.your_turn, …, account.verify_email, webhook.disabled
    kind TEXT NOT NULL,
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    -- One-click unsubscribe (RFC 8058) target, for the List-Unsubscribe header
    unsubscribe_url TEXT,
    -- pending | sent | failed
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    -- Due time while pending; a claim pushes it past the send timeout (a lease)
    next_attempt_at TIMESTAMP NOT NULL,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL,
    sent_at TIMESTAMP
);
CREATE INDEX mail_messages_due_idx ON mail_messages (status, next_attempt_at);
CREATE INDEX mail_messages_user_idx ON mail_messages (user_id, created_at);

-- Outbox events a channel (`webhook`, `mail`) has yet to fan out: written with
-- the event, deleted when the channel has handled it.
CREATE TABLE outbox_pending (
    channel TEXT NOT NULL,
    event_id TEXT NOT NULL REFERENCES game_events (id) ON DELETE CASCADE,
    PRIMARY KEY (channel, event_id)
);
INSERT INTO outbox_pending (channel, event_id)
    SELECT 'webhook', e.id FROM game_events e
    WHERE NOT EXISTS (SELECT 1 FROM webhook_fanout f WHERE f.event_id = e.id);
DROP TABLE webhook_fanout;

-- Event types a user receives no mail for; every other type is mailed.
CREATE TABLE email_opt_outs (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, event_type)
);
