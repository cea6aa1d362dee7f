-- A game's time control as JSON ({"kind": "per_move", "days": d},
-- {"kind": "fischer", ...} or {"kind": "none"}); days_per_move stays as the
-- per-move shorthand lists and old clients read.
ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT '{"kind":"none"}';
UPDATE games SET time_control = '{"kind":"per_move","days":' || days_per_move || '}'
WHERE days_per_move IS NOT NULL;
-- Saturdays and Sundays (in the player's own zone) do not count.
ALTER TABLE games ADD COLUMN pause_on_weekends BOOLEAN NOT NULL DEFAULT FALSE;
-- Whether players' vacations stop their clocks in this game.
ALTER TABLE games ADD COLUMN vacation BOOLEAN NOT NULL DEFAULT TRUE;
-- Each seat's clock as JSON: what it held when it last changed, and since
-- when it counts (the running seat only). NULL for a game without a limit,
-- or one that has not started.
ALTER TABLE games ADD COLUMN clocks TEXT;

-- Vacation: the credit held (in milliseconds of vacation) as of credit_at
-- (NULL: since registration), and the vacation under way.
ALTER TABLE users ADD COLUMN vacation_credit BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN vacation_credit_at TIMESTAMP;
ALTER TABLE users ADD COLUMN vacation_started_at TIMESTAMP;
ALTER TABLE users ADD COLUMN vacation_until TIMESTAMP;
CREATE INDEX users_on_vacation ON users (vacation_until) WHERE vacation_until IS NOT NULL;

-- Time one player gave another: once per turn (ply) per giver.
CREATE TABLE time_gifts (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    from_seat TEXT NOT NULL,
    to_seat TEXT NOT NULL,
    seconds BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, ply, from_seat)
);
