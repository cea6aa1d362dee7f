ALTER TABLE personal_access_tokens DROP COLUMN minted_by;
