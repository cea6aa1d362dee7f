-- When each player last offered a draw, or proposed an alliance to each
-- other player, in a game, for the limit on how often they may (each offer
-- mails the others): again only once they have moved since, or a day later.
CREATE TABLE offers_made (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL
        CHECK (kind IN ('draw', 'alliance-to-first', 'alliance-to-middle', 'alliance-to-last')),
    made_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id, kind)
);
-- The limit asks whether the player moved since: their moves in the game.
CREATE INDEX game_actions_by_player_idx ON game_actions (game_id, user_id, created_at);
