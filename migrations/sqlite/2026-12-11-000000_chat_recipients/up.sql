-- A private message is addressed to a person, not to a seat: a seat can
-- change hands before the game starts (an invitation declined, an open seat
-- taken), and its next holder must not read what was written to the one
-- before. `to_user_id` is the recipient's account; NULL on a private
-- message means nobody but its writer may read it.
ALTER TABLE chat_messages ADD COLUMN to_user_id TEXT REFERENCES users (id) ON DELETE SET NULL;

-- Existing private messages go to whoever held the seat when the message was
-- written, if they had joined before it; otherwise to nobody. So nobody can
-- read a stored message after this migration who could not read it before.
UPDATE chat_messages
SET to_user_id = (
    SELECT s.user_id
    FROM game_seats s
    WHERE s.game_id = chat_messages.game_id
      AND s.seat = chat_messages.to_seat
      AND s.state = 'joined'
      AND s.joined_at < chat_messages.created_at
)
WHERE to_seat IS NOT NULL;
