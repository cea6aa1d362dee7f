-- SQLite cannot drop a column that holds a foreign key: rebuild the table.
CREATE TABLE chat_messages_before (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    n INTEGER NOT NULL CHECK (n >= 1),
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    from_seat TEXT NOT NULL CHECK (from_seat IN ('first', 'middle', 'last')),
    to_seat TEXT CHECK (to_seat IN ('first', 'middle', 'last')),
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, n),
    CHECK (to_seat IS NULL OR to_seat <> from_seat)
);
INSERT INTO chat_messages_before
SELECT game_id, n, user_id, from_seat, to_seat, body, created_at FROM chat_messages;
DROP TABLE chat_messages;
ALTER TABLE chat_messages_before RENAME TO chat_messages;
CREATE INDEX chat_messages_by_writer_idx ON chat_messages (game_id, user_id, created_at);
