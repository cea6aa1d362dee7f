-- A personal token minted with another personal token goes with it: deleting
-- a token deletes every token minted with it, so a thief's copies end when
-- the owner revokes the token that was stolen.
ALTER TABLE personal_access_tokens
    ADD COLUMN minted_by TEXT REFERENCES personal_access_tokens (id) ON DELETE CASCADE;
