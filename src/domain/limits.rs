//! What one account may hold and how often it may do costly things. Each
//! limit is counted from the stored rows themselves (webhooks, tokens, games,
//! mail, deliveries), so every server process sees the same counts and no
//! extra state is kept.

use chrono::{Duration, NaiveDateTime};

/// A request over one of the account's limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverLimit {
    /// The account holds as many as it may; some must go first.
    #[error("an account may hold at most {max} {what}")]
    Quota { what: &'static str, max: usize },
    /// The account did this as often as it may for now.
    #[error("an account may do this at most {max} times {per}")]
    Rate {
        max: usize,
        per: &'static str,
        retry_after_secs: u64,
        /// Where the caller stands: nothing left until `retry_after_secs`.
        standing: Standing,
    },
}

/// Where a caller stands against one rate limit, as the IETF `RateLimit-Policy`
/// and `RateLimit` header fields say it (draft-ietf-httpapi-ratelimit-headers):
/// the policy's quota in its window, what remains of it, and the seconds until
/// more is available again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// The policy's name (`login`, `chat`, …), the same in both fields.
    pub policy: &'static str,
    pub quota: usize,
    pub window_secs: u64,
    pub remaining: usize,
    pub reset_secs: u64,
}

impl Standing {
    /// `RateLimit-Policy: "chat";q=10;w=60`
    pub fn policy_field(&self) -> String {
        format!(
            "\"{}\";q={};w={}",
            self.policy, self.quota, self.window_secs
        )
    }

    /// `RateLimit: "chat";r=7;t=42`
    pub fn limit_field(&self) -> String {
        format!(
            "\"{}\";r={};t={}",
            self.policy, self.remaining, self.reset_secs
        )
    }
}

/// At most `max` held at once.
#[derive(Debug, Clone, Copy)]
pub struct Quota {
    pub what: &'static str,
    pub max: usize,
}

impl Quota {
    /// Whether one more may be added to the `held` ones.
    pub fn admit(&self, held: usize) -> Result<(), OverLimit> {
        if held < self.max {
            Ok(())
        } else {
            Err(OverLimit::Quota {
                what: self.what,
                max: self.max,
            })
        }
    }
}

/// At most `max` times in any `window`.
#[derive(Debug, Clone, Copy)]
pub struct Rate {
    pub max: usize,
    pub window: Duration,
    /// How the window reads in a message ("an hour").
    pub per: &'static str,
    /// Its name in the `RateLimit` header fields.
    pub policy: &'static str,
}

impl Rate {
    /// The start of the window that ends `now`.
    pub fn since(&self, now: NaiveDateTime) -> NaiveDateTime {
        now - self.window
    }

    /// Whether once more is allowed, given when it was done within the
    /// window (any order); if so, where the caller stands once it is done.
    pub fn admit(
        &self,
        done_at: &[NaiveDateTime],
        now: NaiveDateTime,
    ) -> Result<Standing, OverLimit> {
        if done_at.len() < self.max {
            let mut after = done_at.to_vec();
            after.push(now);
            return Ok(self.standing(&after, now));
        }
        // The oldest that must leave the window before one more fits.
        let mut times = done_at.to_vec();
        times.sort();
        let frees_at = times[times.len() - self.max] + self.window;
        let retry_after_secs = (frees_at - now).num_seconds().max(1) as u64;
        Err(OverLimit::Rate {
            max: self.max,
            per: self.per,
            retry_after_secs,
            standing: Standing {
                remaining: 0,
                reset_secs: retry_after_secs,
                ..self.standing(&[], now)
            },
        })
    }

    /// Where the caller stands, given when it was done within the window:
    /// what remains, and when the oldest leaves the window (0 when none).
    pub fn standing(&self, done_at: &[NaiveDateTime], now: NaiveDateTime) -> Standing {
        let oldest = done_at.iter().min();
        Standing {
            policy: self.policy,
            quota: self.max,
            window_secs: self.window.num_seconds().max(0) as u64,
            remaining: self.max.saturating_sub(done_at.len()),
            reset_secs: oldest.map_or(0, |t| (*t + self.window - now).num_seconds().max(0) as u64),
        }
    }
}

/// Every per-account limit; the defaults suit a public server, and each can
/// be set (`SANNIN_LIMIT_*`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Registered webhooks.
    pub webhooks: Quota,
    /// Personal access tokens.
    pub personal_tokens: Quota,
    /// Seats taken in games not yet over.
    pub unfinished_games: Quota,
    /// Games created or imported.
    pub games_created: Rate,
    /// Verification mails (each email change sends one).
    pub verification_mails: Rate,
    /// Webhook pings.
    pub pings: Rate,
    /// Chat messages by one player in one game.
    pub chat_messages: Rate,
    /// Games not yet over with a computer player, that one account plays in.
    pub bot_games: Quota,
}

impl Limits {
    /// Quotas and rates with the given maxima (the windows are fixed: games
    /// and pings per hour, verification mails per day), and ten chat
    /// messages a minute per game (set `chat_messages.max` for another).
    pub fn new(
        webhooks: usize,
        personal_tokens: usize,
        unfinished_games: usize,
        games_per_hour: usize,
        verification_mails_per_day: usize,
        pings_per_hour: usize,
    ) -> Self {
        let hourly = |max, policy| Rate {
            max,
            window: Duration::hours(1),
            per: "an hour",
            policy,
        };
        Self {
            webhooks: Quota {
                what: "webhooks",
                max: webhooks,
            },
            personal_tokens: Quota {
                what: "personal access tokens",
                max: personal_tokens,
            },
            unfinished_games: Quota {
                what: "seats in games not yet over",
                max: unfinished_games,
            },
            games_created: hourly(games_per_hour, "games"),
            verification_mails: Rate {
                max: verification_mails_per_day,
                window: Duration::days(1),
                per: "a day",
                policy: "verification-mail",
            },
            pings: hourly(pings_per_hour, "ping"),
            chat_messages: Rate {
                max: 10,
                window: Duration::minutes(1),
                per: "a minute in one game",
                policy: "chat",
            },
            bot_games: Quota {
                what: "games with computer players not yet over",
                max: 10,
            },
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::new(20, 50, 200, 30, 5, 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc()
            + Duration::minutes(minute)
    }

    #[test]
    fn a_quota_admits_up_to_its_maximum() {
        let q = Quota {
            what: "things",
            max: 2,
        };
        assert!(q.admit(1).is_ok());
        assert_eq!(
            q.admit(2),
            Err(OverLimit::Quota {
                what: "things",
                max: 2
            })
        );
    }

    #[test]
    fn a_rate_waits_for_the_oldest_needed_to_leave_the_window() {
        let r = Rate {
            max: 2,
            window: Duration::hours(1),
            per: "an hour",
            policy: "test",
        };
        let now = at(60);
        let standing = r.admit(&[at(10)], now).unwrap();
        assert_eq!((standing.remaining, standing.reset_secs), (0, 10 * 60));
        assert_eq!(standing.policy_field(), "\"test\";q=2;w=3600");
        assert_eq!(standing.limit_field(), "\"test\";r=0;t=600");
        assert_eq!(r.admit(&[], now).unwrap().remaining, 1);
        match r.admit(&[at(30), at(10), at(50)], now) {
            Err(OverLimit::Rate {
                retry_after_secs, ..
            }) => assert_eq!(retry_after_secs, 30 * 60, "at(30) leaves at minute 90"),
            other => panic!("{other:?}"),
        }
    }
}
