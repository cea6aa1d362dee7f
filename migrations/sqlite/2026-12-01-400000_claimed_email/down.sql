ALTER TABLE users DROP COLUMN claimed_email;
