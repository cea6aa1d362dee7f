-- Conditional premoves: a player's lines (JSON, an array of arrays of R33
-- moves in turn order) that answer predicted replies, kept as what remains
-- of them from ply `from_ply` on. Every move advances them in its own
-- transaction; an alliance, an elimination or a draw offer removes them all.
CREATE TABLE premoves (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seat TEXT NOT NULL CHECK (seat IN ('first', 'middle', 'last')),
    from_ply INTEGER NOT NULL,
    lines TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);

-- A move the server played from its player's premoves.
ALTER TABLE game_actions ADD COLUMN premove BOOLEAN NOT NULL DEFAULT FALSE;
