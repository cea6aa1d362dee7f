ALTER TABLE game_actions DROP CONSTRAINT game_actions_kind_known;
ALTER TABLE game_actions ADD CONSTRAINT game_actions_kind_known CHECK (kind IN ('move', 'alliance', 'resign', 'timeout'));
ALTER TABLE games DROP COLUMN draw_offer;
