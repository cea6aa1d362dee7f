-- Password guessing is limited per account, in the database so that every
-- server process counts the same failures: after a run of failures the
-- account refuses passwords for a while, except from networks it has logged
-- in from before (so an attacker cannot lock its owner out). The subject is
-- a user id, or the digest of a log-in name no account has, so that names
-- with and without an account behave alike.
CREATE TABLE password_guards (
    subject TEXT PRIMARY KEY NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    blocked_until TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX password_guards_updated_at ON password_guards (updated_at);

CREATE TABLE known_networks (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    network TEXT NOT NULL,
    last_seen_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, network)
);
