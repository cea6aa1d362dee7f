-- Each player's private notes on a game, shown to no one else.
CREATE TABLE game_notes (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
