ALTER TABLE chat_messages DROP COLUMN to_user_id;
