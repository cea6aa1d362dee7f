-- Mail: a queue of rendered messages sent by the mail worker with retries, the
-- outbox events already turned into mail, and each user's opted-out event types.
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

-- Outbox events already considered for mail (whether or not one was written).
CREATE TABLE mail_fanout (
    event_id TEXT PRIMARY KEY NOT NULL
);

-- Event types a user receives no mail for; every other type is mailed.
CREATE TABLE email_opt_outs (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, event_type)
);
