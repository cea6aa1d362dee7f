//! The time of the service, injected: the system clock in production, one a
//! test can move forward in tests. Code that decides by time takes `now` from
//! here (or from its caller), never from `Utc::now()` directly.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, NaiveDateTime, Utc};

/// A clock. Cloning shares it: moving a test clock moves it for every holder.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Milliseconds added to the system time; `None` for the plain system
    /// clock.
    offset_ms: Option<Arc<AtomicI64>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self { offset_ms: None }
    }

    /// A clock that runs with the system clock but can be moved forward.
    pub fn adjustable() -> Self {
        Self {
            offset_ms: Some(Arc::new(AtomicI64::new(0))),
        }
    }

    /// Moves an adjustable clock forward by `by`.
    ///
    /// # Panics
    /// On the system clock, which cannot be moved.
    pub fn advance(&self, by: chrono::Duration) {
        self.offset_ms
            .as_ref()
            .expect("only an adjustable clock can be moved")
            .fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }

    pub fn now_utc(&self) -> DateTime<Utc> {
        let now = Utc::now();
        match &self.offset_ms {
            None => now,
            Some(offset) => now + chrono::Duration::milliseconds(offset.load(Ordering::SeqCst)),
        }
    }

    /// The time as stored in the database (UTC, without zone).
    pub fn now(&self) -> NaiveDateTime {
        self.now_utc().naive_utc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adjustable_clock_moves_for_every_holder() {
        let clock = Clock::adjustable();
        let other = clock.clone();
        let before = other.now();
        clock.advance(chrono::Duration::days(2));
        let after = other.now();
        assert!(after - before >= chrono::Duration::days(2));
        assert!(after - before < chrono::Duration::days(2) + chrono::Duration::minutes(1));
    }
}
