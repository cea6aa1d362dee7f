-- A rated game whose result says nothing about skill counts for nothing: its
-- players' places are still recorded, with the reason it did not count
-- ('too-short', 'early-draw', 'repeated'), and their ratings stand.
ALTER TABLE rating_changes ADD COLUMN uncounted TEXT
    CHECK (uncounted IN ('too-short', 'early-draw', 'repeated'));

-- The distinct opponents of a player's counted rated games: the leaderboard
-- asks for several, so a player cannot climb it against the same two.
ALTER TABLE ratings ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;
UPDATE ratings SET opponents = (
    SELECT COUNT(DISTINCT other.user_id)
    FROM rating_changes mine
    JOIN rating_changes other ON other.game_id = mine.game_id AND other.user_id <> mine.user_id
    WHERE mine.user_id = ratings.user_id
);

