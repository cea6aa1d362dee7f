-- The draw offer standing in a game (R36), as JSON: the offering seat, the
-- seats that accepted (the offerer among them), the ply and time of the
-- offer. NULL when none stands. Changed only with the game's version.
ALTER TABLE games ADD COLUMN draw_offer TEXT;

-- An agreed draw is an action of its own.
DROP TRIGGER game_actions_kind_known_insert;
DROP TRIGGER game_actions_kind_known_update;
CREATE TRIGGER game_actions_kind_known_insert BEFORE INSERT ON game_actions
WHEN NEW.kind NOT IN ('move', 'alliance', 'resign', 'timeout', 'draw_agreed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_actions_kind_known');
END;
CREATE TRIGGER game_actions_kind_known_update BEFORE UPDATE OF kind ON game_actions
WHEN NEW.kind NOT IN ('move', 'alliance', 'resign', 'timeout', 'draw_agreed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_actions_kind_known');
END;
