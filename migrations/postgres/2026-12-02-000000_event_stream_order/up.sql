-- The order in which each recipient's events are streamed and listed. A
-- transaction that writes events first takes a lock per recipient (see
-- db::live), so values drawn from this sequence afterwards follow the order
-- in which those transactions commit, per recipient: a reader that has seen
-- an event never misses one written before it. (Processes of an older
-- version take no such locks: upgrade every process before relying on it.)
CREATE SEQUENCE game_events_stream_order_seq AS BIGINT;
ALTER TABLE game_events ADD COLUMN stream_order BIGINT;
WITH ordered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM game_events)
UPDATE game_events e SET stream_order = ordered.n FROM ordered WHERE e.id = ordered.id;
SELECT setval('game_events_stream_order_seq', COALESCE((SELECT MAX(stream_order) FROM game_events), 0) + 1, false);
ALTER TABLE game_events
    ALTER COLUMN stream_order SET NOT NULL,
    ALTER COLUMN stream_order SET DEFAULT nextval('game_events_stream_order_seq');
ALTER SEQUENCE game_events_stream_order_seq OWNED BY game_events.stream_order;
CREATE INDEX game_events_stream_idx ON game_events (user_id, stream_order);
