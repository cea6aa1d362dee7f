-- Registration and email changes do not tell whether an address is already
-- registered. An account that asks for an address another account holds
-- keeps it here, as the address it claims, and `email` holds a placeholder
-- that is never mailed (`<id>@unclaimed.invalid`); the mail that would have
-- verified the address tells its owner instead.
ALTER TABLE users ADD COLUMN claimed_email TEXT;
