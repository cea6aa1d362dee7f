-- Each account's time zone (an IANA name), for weekends off in its own week.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
