-- Columns that hold one of a fixed set of words (Rust enums stored as text)
-- accept only those words, so a stored value always reads back.
ALTER TABLE games ADD CONSTRAINT games_status_known CHECK (status IN ('open', 'active', 'finished', 'cancelled', 'expired', 'analysis'));
ALTER TABLE game_seats ADD CONSTRAINT game_seats_state_known CHECK (state IN ('open', 'invited', 'joined'));
ALTER TABLE alliance_proposals ADD CONSTRAINT alliance_proposals_status_known CHECK (status IN ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed'));
ALTER TABLE game_actions ADD CONSTRAINT game_actions_kind_known CHECK (kind IN ('move', 'alliance', 'resign', 'timeout'));
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_known CHECK (status IN ('pending', 'delivered', 'failed'));
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_status_known CHECK (status IN ('pending', 'sent', 'failed', 'cancelled'));
