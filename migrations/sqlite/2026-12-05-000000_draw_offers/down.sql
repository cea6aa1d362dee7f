DROP TRIGGER game_actions_kind_known_insert;
DROP TRIGGER game_actions_kind_known_update;
CREATE TRIGGER game_actions_kind_known_insert BEFORE INSERT ON game_actions
WHEN NEW.kind NOT IN ('move', 'alliance', 'resign', 'timeout')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_actions_kind_known');
END;
CREATE TRIGGER game_actions_kind_known_update BEFORE UPDATE OF kind ON game_actions
WHEN NEW.kind NOT IN ('move', 'alliance', 'resign', 'timeout')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_actions_kind_known');
END;
ALTER TABLE games DROP COLUMN draw_offer;
