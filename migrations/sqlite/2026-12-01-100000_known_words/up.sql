-- Columns that hold one of a fixed set of words (Rust enums stored as text)
-- accept only those words, so a stored value always reads back.
-- SQLite cannot add a CHECK constraint to a table, so triggers do its job.
CREATE TRIGGER games_status_known_insert BEFORE INSERT ON games
WHEN NEW.status NOT IN ('open', 'active', 'finished', 'cancelled', 'expired', 'analysis')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: games_status_known');
END;
CREATE TRIGGER games_status_known_update BEFORE UPDATE OF status ON games
WHEN NEW.status NOT IN ('open', 'active', 'finished', 'cancelled', 'expired', 'analysis')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: games_status_known');
END;
CREATE TRIGGER game_seats_state_known_insert BEFORE INSERT ON game_seats
WHEN NEW.state NOT IN ('open', 'invited', 'joined')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_seats_state_known');
END;
CREATE TRIGGER game_seats_state_known_update BEFORE UPDATE OF state ON game_seats
WHEN NEW.state NOT IN ('open', 'invited', 'joined')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: game_seats_state_known');
END;
CREATE TRIGGER alliance_proposals_status_known_insert BEFORE INSERT ON alliance_proposals
WHEN NEW.status NOT IN ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: alliance_proposals_status_known');
END;
CREATE TRIGGER alliance_proposals_status_known_update BEFORE UPDATE OF status ON alliance_proposals
WHEN NEW.status NOT IN ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: alliance_proposals_status_known');
END;
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
CREATE TRIGGER webhook_deliveries_status_known_insert BEFORE INSERT ON webhook_deliveries
WHEN NEW.status NOT IN ('pending', 'delivered', 'failed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: webhook_deliveries_status_known');
END;
CREATE TRIGGER webhook_deliveries_status_known_update BEFORE UPDATE OF status ON webhook_deliveries
WHEN NEW.status NOT IN ('pending', 'delivered', 'failed')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: webhook_deliveries_status_known');
END;
CREATE TRIGGER mail_messages_status_known_insert BEFORE INSERT ON mail_messages
WHEN NEW.status NOT IN ('pending', 'sent', 'failed', 'cancelled')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: mail_messages_status_known');
END;
CREATE TRIGGER mail_messages_status_known_update BEFORE UPDATE OF status ON mail_messages
WHEN NEW.status NOT IN ('pending', 'sent', 'failed', 'cancelled')
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: mail_messages_status_known');
END;
