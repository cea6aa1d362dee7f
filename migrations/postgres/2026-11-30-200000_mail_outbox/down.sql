CREATE TABLE webhook_fanout (
    event_id TEXT PRIMARY KEY NOT NULL
);
INSERT INTO webhook_fanout (event_id)
    SELECT e.id FROM game_events e
    WHERE NOT EXISTS (
        SELECT 1 FROM outbox_pending p WHERE p.channel = 'webhook' AND p.event_id = e.id
    );
DROP TABLE outbox_pending;
DROP TABLE email_opt_outs;
DROP TABLE mail_messages;
