CREATE TABLE webhook_fanout (
    event_id TEXT PRIMARY KEY NOT NULL
);
INSERT INTO webhook_fanout (event_id)
    SELECT id FROM game_events
    WHERE id NOT IN (SELECT event_id FROM outbox_pending WHERE channel = 'webhook');
DROP TABLE outbox_pending;
DROP TABLE email_opt_outs;
DROP TABLE mail_messages;
