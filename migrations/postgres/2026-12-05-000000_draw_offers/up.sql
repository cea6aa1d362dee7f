-- The draw offer standing in a game (R36), as JSON: the offering seat, the
-- seats that accepted (the offerer among them), the ply and time of the
-- offer. NULL when none stands. Changed only with the game's version.
ALTER TABLE games ADD COLUMN draw_offer TEXT;

-- An agreed draw is an action of its own.
ALTER TABLE game_actions DROP CONSTRAINT game_actions_kind_known;
ALTER TABLE game_actions ADD CONSTRAINT game_actions_kind_known CHECK (kind IN ('move', 'alliance', 'resign', 'timeout', 'draw_agreed'));
