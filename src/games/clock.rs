//! Time in a game, as pure functions: the time controls, what a player's bank
//! holds after a move, and when a player's time runs out. With weekends
//! paused, Saturday and Sunday of the player's own time zone (from local
//! midnight to local midnight, whatever daylight saving does in between)
//! do not count. The deadline sweep, the reminder and the list order are all
//! to read deadlines from [`runs_out`], so they can never disagree.

use std::ops::RangeInclusive;

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use chrono_tz::Tz;

use crate::domain::FieldError;

/// The days any part of a time control may hold.
pub const DAYS: RangeInclusive<u32> = 1..=30;

/// How much time a player has. Stored (and shown) as JSON tagged by `kind`:
/// `per_move`, `fischer` or `none`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"kind": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 14}))]
pub enum TimeControl {
    /// The same `days` for every move.
    PerMove {
        #[schema(minimum = 1, maximum = 30)]
        days: u32,
    },
    /// A bank per player: `initial_days` at the start, `increment_days` more
    /// after each of the player's moves, never more than `max_days`; the
    /// player to move loses when it runs out.
    Fischer {
        #[schema(minimum = 1, maximum = 30)]
        initial_days: u32,
        /// At most `max_days`.
        #[schema(minimum = 1, maximum = 30)]
        increment_days: u32,
        /// The most a bank holds; at least `initial_days`.
        #[schema(minimum = 1, maximum = 30)]
        max_days: u32,
    },
    /// No limit.
    #[serde(rename = "none")]
    Unlimited,
}

impl TimeControl {
    /// The control if its numbers make sense: every part 1–30 days, the
    /// increment and the start no more than the maximum. Errors name the
    /// field under `field` (e.g. `time_control.max_days`).
    pub fn checked(self, field: &str) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut range = |name: &str, v: u32| {
            if !DAYS.contains(&v) {
                errors.push(FieldError::new(
                    format!("{field}.{name}"),
                    "range",
                    format!("must be {} to {} days, not {v}", DAYS.start(), DAYS.end()),
                ));
            }
        };
        match self {
            TimeControl::PerMove { days } => range("days", days),
            TimeControl::Fischer {
                initial_days,
                increment_days,
                max_days,
            } => {
                range("initial_days", initial_days);
                range("increment_days", increment_days);
                range("max_days", max_days);
                for (name, v) in [
                    ("increment_days", increment_days),
                    ("initial_days", initial_days),
                ] {
                    if v > max_days {
                        errors.push(FieldError::new(
                            format!("{field}.{name}"),
                            "above-max",
                            format!("must not exceed max_days ({max_days})"),
                        ));
                    }
                }
            }
            TimeControl::Unlimited => {}
        }
        if errors.is_empty() {
            Ok(self)
        } else {
            Err(errors)
        }
    }

    /// In words: `3 days per move`, `Fischer: 7 days, +1 day per move, at
    /// most 14 days`, `none` (game records' `TimeControl` tag, mail).
    pub fn describe(self) -> String {
        let days = |n: u32| match n {
            1 => "1 day".to_owned(),
            n => format!("{n} days"),
        };
        match self {
            TimeControl::PerMove { days: d } => format!("{} per move", days(d)),
            TimeControl::Fischer {
                initial_days,
                increment_days,
                max_days,
            } => format!(
                "Fischer: {}, +{} per move, at most {}",
                days(initial_days),
                days(increment_days),
                days(max_days)
            ),
            TimeControl::Unlimited => "none".to_owned(),
        }
    }

    /// What a player's clock holds when the game starts; `None` without a limit.
    pub fn initial(self, day: Duration) -> Option<Duration> {
        match self {
            TimeControl::PerMove { days } => Some(day * days as i32),
            TimeControl::Fischer { initial_days, .. } => Some(day * initial_days as i32),
            TimeControl::Unlimited => None,
        }
    }

    /// What the mover's clock holds after a move that took `used` of the
    /// `bank` it had: per move, a whole period again; Fischer, what was left
    /// plus the increment, never below nothing nor above the maximum.
    pub fn after_move(self, bank: Duration, used: Duration, day: Duration) -> Option<Duration> {
        match self {
            TimeControl::PerMove { days } => Some(day * days as i32),
            TimeControl::Fischer {
                increment_days,
                max_days,
                ..
            } => {
                let left = (bank - used).max(Duration::zero());
                Some((left + day * increment_days as i32).min(day * max_days as i32))
            }
            TimeControl::Unlimited => None,
        }
    }
}

/// UTC instant of local midnight starting `date` in `tz`. Where a zone skips
/// midnight (a daylight-saving gap), the first local instant of the day.
fn local_midnight(tz: Tz, date: NaiveDate) -> DateTime<Utc> {
    let mut t = date.and_hms_opt(0, 0, 0).expect("midnight exists");
    // Gaps last at most a few hours; look minute by minute past one.
    for _ in 0..(24 * 60) {
        if let Some(at) = tz.from_local_datetime(&t).earliest() {
            return at.with_timezone(&Utc);
        }
        t += Duration::minutes(1);
    }
    unreachable!("a day in {tz} without a single valid minute")
}

/// The weekend (Saturday 00:00 to Monday 00:00 local) that holds `t` or
/// comes next after it, as UTC instants.
fn weekend_from(t: DateTime<Utc>, tz: Tz) -> (DateTime<Utc>, DateTime<Utc>) {
    let today = t.with_timezone(&tz).date_naive();
    let saturday = match today.weekday() {
        Weekday::Sun => today - Duration::days(1),
        d => today + Duration::days((5 - d.num_days_from_monday() as i64).rem_euclid(7)),
    };
    let start = local_midnight(tz, saturday);
    let end = local_midnight(tz, saturday + Duration::days(2));
    if end <= t {
        // Not for any real zone; but an odd one is no reason to loop forever.
        let next = saturday + Duration::days(7);
        (
            local_midnight(tz, next),
            local_midnight(tz, next + Duration::days(2)),
        )
    } else {
        (start, end)
    }
}

/// The time that counts against a player between `from` and `to`: all of
/// it, or with `weekends_off` in `tz` all but Saturdays and Sundays there.
pub fn counted(from: DateTime<Utc>, to: DateTime<Utc>, weekends_off: Option<Tz>) -> Duration {
    if to <= from {
        return Duration::zero();
    }
    let Some(tz) = weekends_off else {
        return to - from;
    };
    let mut total = Duration::zero();
    let mut t = from;
    while t < to {
        let (start, end) = weekend_from(t, tz);
        if t < start {
            total += to.min(start) - t;
        }
        t = end.max(t);
        if start >= to {
            break;
        }
    }
    total
}

/// When a player whose clock holds `remaining` from `from` on runs out of
/// time: the first instant by which `remaining` has counted (see [`counted`]).
pub fn runs_out(
    from: DateTime<Utc>,
    remaining: Duration,
    weekends_off: Option<Tz>,
) -> DateTime<Utc> {
    let Some(tz) = weekends_off else {
        return from + remaining;
    };
    let mut left = remaining.max(Duration::zero());
    let mut t = from;
    loop {
        let (start, end) = weekend_from(t, tz);
        if t >= start {
            // Inside a weekend: nothing counts until it ends.
            t = end;
            continue;
        }
        if t + left <= start {
            return t + left;
        }
        left -= start - t;
        t = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DAY: Duration = Duration::days(1);

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn local(tz: Tz, s: &str) -> DateTime<Utc> {
        let naive = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").unwrap();
        tz.from_local_datetime(&naive)
            .earliest()
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn time_controls_are_checked_with_named_fields() {
        let ok = TimeControl::Fischer {
            initial_days: 3,
            increment_days: 1,
            max_days: 10,
        };
        assert_eq!(ok.checked("time_control"), Ok(ok));
        let bad = TimeControl::Fischer {
            initial_days: 12,
            increment_days: 11,
            max_days: 10,
        };
        let fields: Vec<String> = bad
            .checked("time_control")
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            ["time_control.increment_days", "time_control.initial_days"]
        );
        let e = TimeControl::PerMove { days: 31 }.checked("tc").unwrap_err();
        assert_eq!(e[0].field, "tc.days");
        assert!(TimeControl::PerMove { days: 0 }.checked("tc").is_err());
        assert!(TimeControl::Unlimited.checked("tc").is_ok());
    }

    #[test]
    fn a_fischer_bank_gains_its_increment_up_to_the_maximum() {
        let f = TimeControl::Fischer {
            initial_days: 3,
            increment_days: 2,
            max_days: 6,
        };
        assert_eq!(f.initial(DAY), Some(DAY * 3));
        assert_eq!(f.after_move(DAY * 3, DAY, DAY), Some(DAY * 4));
        assert_eq!(
            f.after_move(DAY * 5, Duration::hours(1), DAY),
            Some(DAY * 6)
        );
        assert_eq!(
            f.after_move(DAY, DAY * 2, DAY),
            Some(DAY * 2),
            "never below nothing"
        );
        let p = TimeControl::PerMove { days: 3 };
        assert_eq!(p.after_move(DAY, DAY, DAY), Some(DAY * 3));
        assert_eq!(TimeControl::Unlimited.after_move(DAY, DAY, DAY), None);
    }

    #[test]
    fn weekends_do_not_count_in_the_players_zone_but_do_in_another() {
        let tokyo: Tz = "Asia/Tokyo".parse().unwrap();
        let la: Tz = "America/Los_Angeles".parse().unwrap();
        // Friday 2026-12-04 18:00 in Tokyo, with one day on the clock: the
        // weekend there passes first, so it runs out Monday 18:00 Tokyo.
        let from = local(tokyo, "2026-12-04 18:00");
        assert_eq!(
            runs_out(from, DAY, Some(tokyo)),
            local(tokyo, "2026-12-07 18:00")
        );
        assert_eq!(runs_out(from, DAY, None), from + DAY);
        // The same instant is Friday 01:00 in Los Angeles: 23 hours count
        // before its weekend, and the last hour after it.
        let la_out = runs_out(from, DAY, Some(la));
        assert_eq!(la_out, local(la, "2026-12-07 01:00"));
        // A weekend entirely counts nothing; a Friday noon to Monday noon counts a day.
        let sat = local(tokyo, "2026-12-05 00:00");
        let mon = local(tokyo, "2026-12-07 00:00");
        assert_eq!(counted(sat, mon, Some(tokyo)), Duration::zero());
        assert_eq!(mon - sat, Duration::hours(48));
        let fri_noon = local(tokyo, "2026-12-04 12:00");
        let mon_noon = local(tokyo, "2026-12-07 12:00");
        assert_eq!(counted(fri_noon, mon_noon, Some(tokyo)), DAY);
    }

    #[test]
    fn a_weekend_across_a_daylight_saving_change_is_its_local_two_days() {
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        // Clocks go forward on Sunday 2027-03-28: that weekend is 47 real hours.
        let sat = local(berlin, "2027-03-27 00:00");
        let mon = local(berlin, "2027-03-29 00:00");
        assert_eq!(mon - sat, Duration::hours(47));
        assert_eq!(counted(sat, mon, Some(berlin)), Duration::zero());
        let fri = local(berlin, "2027-03-26 00:00");
        let tue = local(berlin, "2027-03-30 00:00");
        assert_eq!(counted(fri, tue, Some(berlin)), DAY * 2);
        assert_eq!(runs_out(fri, DAY * 2, Some(berlin)), tue);
        // And back in October: 49 hours.
        let sat = local(berlin, "2027-10-30 00:00");
        let mon = local(berlin, "2027-11-01 00:00");
        assert_eq!(mon - sat, Duration::hours(49));
        assert_eq!(
            runs_out(sat, Duration::minutes(1), Some(berlin)),
            mon + Duration::minutes(1)
        );
    }

    #[test]
    fn a_day_whose_midnight_is_skipped_starts_at_its_first_minute() {
        // Zones that move their clocks at local midnight skip it that day.
        let mut found = 0;
        for tz in [chrono_tz::America::Santiago, chrono_tz::America::Havana] {
            let mut date = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
            while date.year() < 2031 {
                let midnight = date.and_hms_opt(0, 0, 0).unwrap();
                if tz.from_local_datetime(&midnight).earliest().is_none() {
                    found += 1;
                    let start = local_midnight(tz, date).with_timezone(&tz);
                    assert_eq!(start.date_naive(), date, "{tz} {date}");
                    assert_eq!(
                        start.time(),
                        chrono::NaiveTime::from_hms_opt(1, 0, 0).unwrap()
                    );
                }
                date += Duration::days(1);
            }
        }
        assert!(found > 0, "no skipped midnight to test");
    }

    fn zones() -> impl Strategy<Value = Option<Tz>> {
        prop_oneof![
            Just(None),
            Just(Some(Tz::UTC)),
            Just(Some(chrono_tz::Europe::Berlin)),
            Just(Some(chrono_tz::America::New_York)),
            Just(Some(chrono_tz::Asia::Kolkata)),
            Just(Some(chrono_tz::Pacific::Chatham)),
            Just(Some(chrono_tz::America::Santiago)),
        ]
    }

    fn instants() -> impl Strategy<Value = DateTime<Utc>> {
        // 2026 to 2030, to the minute.
        (0i64..(5 * 366 * 24 * 60)).prop_map(|m| utc("2026-01-01T00:00:00Z") + Duration::minutes(m))
    }

    proptest! {
        #[test]
        fn counted_time_adds_up_and_never_exceeds_real_time(
            a in instants(), gap1 in 0i64..(20 * 24 * 60), gap2 in 0i64..(20 * 24 * 60), tz in zones()
        ) {
            let b = a + Duration::minutes(gap1);
            let c = b + Duration::minutes(gap2);
            let whole = counted(a, c, tz);
            prop_assert_eq!(counted(a, b, tz) + counted(b, c, tz), whole);
            prop_assert!(whole <= c - a);
            prop_assert!(whole >= Duration::zero());
            if tz.is_none() {
                prop_assert_eq!(whole, c - a);
            }
            // Any seven local days hold exactly two weekend days: at least
            // five days' worth counts in every full week.
            if gap1 + gap2 >= 7 * 24 * 60 + 180 && tz.is_some() {
                prop_assert!(whole >= Duration::days(5) - Duration::hours(2));
            }
        }

        #[test]
        fn a_clock_runs_out_exactly_when_its_time_has_counted(
            from in instants(), minutes in 1i64..(30 * 24 * 60), tz in zones()
        ) {
            let left = Duration::minutes(minutes);
            let out = runs_out(from, left, tz);
            prop_assert!(out >= from + left, "weekends only ever add time");
            prop_assert_eq!(counted(from, out, tz), left);
            // A minute earlier, not all of it had counted.
            prop_assert!(counted(from, out - Duration::minutes(1), tz) < left);
        }

        #[test]
        fn a_local_week_counts_all_but_its_saturday_and_sunday(
            week in 0i64..(5 * 52), tz in zones().prop_filter("a zone", Option::is_some)
        ) {
            let tz = tz.unwrap();
            let monday = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap() + Duration::weeks(week);
            let start = local_midnight(tz, monday);
            let saturday = local_midnight(tz, monday + Duration::days(5));
            let next = local_midnight(tz, monday + Duration::days(7));
            prop_assert_eq!(counted(start, next, Some(tz)), saturday - start);
            // A clock paused for the weekend does not move, whatever part of it.
            prop_assert_eq!(counted(saturday, next, Some(tz)), Duration::zero());
            prop_assert_eq!(runs_out(saturday, Duration::minutes(1), Some(tz)), next + Duration::minutes(1));
        }

        #[test]
        fn a_bank_stays_between_nothing_and_its_maximum(
            bank_h in 0i64..(30 * 24), used_h in 0i64..(60 * 24), inc in 1u32..=30, max in 1u32..=30
        ) {
            prop_assume!(inc <= max);
            let f = TimeControl::Fischer { initial_days: inc, increment_days: inc, max_days: max };
            let after = f.after_move(Duration::hours(bank_h), Duration::hours(used_h), DAY).unwrap();
            prop_assert!(after >= DAY * inc as i32);
            prop_assert!(after <= DAY * max as i32);
        }
    }
}
