-- Table talk: messages to the whole table (to_seat NULL) or from one player
-- to another, numbered per game in the order written (under the game's
-- lock). A private message is shown only to its two players.
CREATE TABLE chat_messages (
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
-- The rate limit counts a player's recent messages in a game.
CREATE INDEX chat_messages_by_writer_idx ON chat_messages (game_id, user_id, created_at);

-- Players who muted a game's table chat: no game.chat events (so no mail,
-- webhook or stream message) for messages to the whole table.
CREATE TABLE chat_mutes (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
