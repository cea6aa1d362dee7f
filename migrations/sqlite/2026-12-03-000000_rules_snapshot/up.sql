-- What the rules need to take a game up again without replaying it: the
-- positions seen with their counts (R31), the eliminations and the last
-- move, as JSON written in the same transaction as the game row. NULL (games
-- stored before this column) means "replay the actions", and the next change
-- of the game writes it.
ALTER TABLE games ADD COLUMN snapshot TEXT;
