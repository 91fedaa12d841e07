//! Dates on the command line (`--since`, `--until`): one parser for every
//! command that takes one, reading the forms git's own `--since` reads.
//!
//! The forms follow git's `approxidate_careful()` and `parse_date_basic()`
//! (date.c of git v2.55, and Documentation/date-formats.adoc):
//!
//! * `now`, `today` (the whole of today), `yesterday` (24 hours ago, as git
//!   reads it);
//! * relative: a count and a unit, any number of times, with an optional
//!   `ago`, the words separated by spaces or dots: `2.weeks.ago`,
//!   `2 weeks ago`, `3.days`, `1 week 2 days ago`, `last week`. Units are
//!   `second`, `minute`, `hour`, `day`, `week`, `month` and `year`, singular
//!   or plural; a count is digits, `one` … `ten` or `last` (one). A month or
//!   a year back keeps the day of the month, or takes the month's last day
//!   when it has fewer (git lets the date run on into the next month);
//! * a day: `2026-11-01`, `2026.11.01`, `11/01/2026` (month first) and
//!   `01.11.2026` (day first) — the whole day;
//! * ISO 8601 date-times: `2026-11-01T10:00:00Z`, `2026-11-01 10:00`,
//!   `2026-11-01 10:00:00 +0100`, `2026-11-01T10:00:00.5+01:00`;
//! * RFC 2822: `Sun, 01 Nov 2026 10:00:00 +0100`;
//! * seconds since the epoch: `@1793527200`, optionally with an offset
//!   (`@1793527200 +0100`, which changes nothing about the instant).
//!
//! Where git differs, on purpose: a date or time without a zone is UTC (git
//! takes the local zone; the records these commands filter are kept in
//! UTC); a day alone names the whole day (git takes the current time of day
//! on it), so `--since 2026-11-01 --until 2026-11-30` holds all of November;
//! and text that is not one of the forms above is refused with its value
//! named, where git's approxidate skips the words it does not know (and
//! reads `soon` as now).
//!
//! Parsing needs "now" for relative dates, so [`parse`] takes it and the
//! tests fix it; [`parse_arg`] is the clap value parser, which reads the
//! clock.

use chrono::{DateTime, Months, NaiveDate, NaiveTime, TimeDelta, TimeZone, Utc};

/// What every date option's `--help` and man page say about the forms,
/// after what the option does.
pub fn long_help(what: &str) -> String {
    format!(
        "{what}\n\n\
         DATE is one of git's date forms: a day (2026-11-01, also 2026.11.01, \
         11/01/2026 and 01.11.2026), which names the whole day; an ISO 8601 \
         date-time (2026-11-01T10:00:00Z, 2026-11-01 10:00:00 +0100); an RFC 2822 \
         date (Sun, 01 Nov 2026 10:00:00 +0100); @<seconds since 1970>; now; \
         today (the whole day); yesterday (24 hours ago, as git reads it); or a \
         count and a unit back from now, with an optional ago (2.weeks.ago, \
         2 weeks ago, 3.days, 1 week 2 days ago, last month; units from second \
         to year). A day or time without a zone is UTC. Other text is refused \
         (exit 129)."
    )
}

/// A point or a whole day in time, as the command line named it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Date {
    start: DateTime<Utc>,
    /// Whether it names a whole day (`2026-11-01`, `today`), not an instant.
    whole_day: bool,
}

impl Date {
    /// The first instant it names: `--since` keeps what is at or after it.
    pub fn first(&self) -> DateTime<Utc> {
        self.start
    }

    /// The last instant it names (a day's last nanosecond): `--until` keeps
    /// what is at or before it.
    pub fn last(&self) -> DateTime<Utc> {
        if self.whole_day {
            self.start + TimeDelta::days(1) - TimeDelta::nanoseconds(1)
        } else {
            self.start
        }
    }

    fn instant(start: DateTime<Utc>) -> Date {
        Date {
            start,
            whole_day: false,
        }
    }

    fn day(day: NaiveDate) -> Date {
        Date {
            start: Utc.from_utc_datetime(&day.and_time(NaiveTime::MIN)),
            whole_day: true,
        }
    }
}

/// Why a date was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DateError {
    /// None of the forms.
    Unknown(String),
    /// A form, but too far from now to be a date.
    OutOfRange(String),
}

impl std::fmt::Display for DateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DateError::Unknown(text) => write!(
                f,
                "'{text}' is not a date (try 2026-11-01, 2026-11-01T10:00:00Z, 2.weeks.ago, yesterday or @<seconds>; --help lists every form)"
            ),
            DateError::OutOfRange(text) => write!(f, "'{text}' is out of the range of dates"),
        }
    }
}

impl std::error::Error for DateError {}

/// The clap value parser of every date option: [`parse`] against the clock.
pub fn parse_arg(text: &str) -> Result<Date, DateError> {
    parse(text, Utc::now())
}

/// Reads `text` as one of the forms in the module docs, relative to `now`.
pub fn parse(text: &str, now: DateTime<Utc>) -> Result<Date, DateError> {
    let trimmed = text.trim();
    let unknown = || DateError::Unknown(text.to_owned());
    if trimmed.is_empty() {
        return Err(unknown());
    }
    if let Some(seconds) = trimmed.strip_prefix('@') {
        return epoch(seconds)
            .ok_or_else(unknown)?
            .ok_or_else(|| DateError::OutOfRange(text.to_owned()));
    }
    if let Some(at) = rfc_2822(trimmed) {
        return Ok(Date::instant(at));
    }
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        if let Some(date) = absolute(trimmed) {
            return Ok(date);
        }
    }
    match relative(trimmed, now) {
        Some(Some(date)) => Ok(date),
        Some(None) => Err(DateError::OutOfRange(text.to_owned())),
        None => Err(unknown()),
    }
}

/// An RFC 2822 date. The day of the week, which the date already names, is
/// not checked against it: git ignores it too.
fn rfc_2822(text: &str) -> Option<DateTime<Utc>> {
    let without_weekday = match text.split_once(',') {
        Some((day, rest)) if day.len() == 3 && day.bytes().all(|b| b.is_ascii_alphabetic()) => rest.trim_start(),
        _ => text,
    };
    DateTime::parse_from_rfc2822(without_weekday)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

/// `@<seconds>[ ±hhmm]`: `None` if not that form, `Some(None)` if out of range.
fn epoch(rest: &str) -> Option<Option<Date>> {
    let (digits, zone) = match rest.split_once(' ') {
        Some((digits, zone)) => (digits, Some(zone.trim())),
        None => (rest, None),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Some(zone) = zone {
        offset_seconds(zone)?;
    }
    let seconds: i64 = match digits.parse() {
        Ok(s) => s,
        Err(_) => return Some(None),
    };
    Some(DateTime::from_timestamp(seconds, 0).map(Date::instant))
}

/// A day, or a day and a time with an optional zone (ISO 8601 and git's
/// other day orders).
fn absolute(text: &str) -> Option<Date> {
    let (day_text, rest) = match text.find(['T', 't', ' ']) {
        Some(i) => (&text[..i], Some(text[i + 1..].trim_start())),
        None => (text, None),
    };
    let day = day_of(day_text)?;
    let Some(rest) = rest else {
        return Some(Date::day(day));
    };
    // The time runs to the zone: `Z`, a sign, or a space before either.
    let end = rest.find(['Z', 'z', '+', '-', ' ']).unwrap_or(rest.len());
    let time = time_of(&rest[..end])?;
    let zone = rest[end..].trim_start();
    let offset = if zone.is_empty() || zone.eq_ignore_ascii_case("z") || zone.eq_ignore_ascii_case("utc") {
        0
    } else {
        offset_seconds(zone)?
    };
    let local = day.and_time(time);
    let at = Utc.from_utc_datetime(&local) - TimeDelta::seconds(offset.into());
    Some(Date::instant(at))
}

fn day_of(text: &str) -> Option<NaiveDate> {
    ["%Y-%m-%d", "%Y.%m.%d", "%m/%d/%Y", "%d.%m.%Y"]
        .iter()
        .find_map(|format| NaiveDate::parse_from_str(text, format).ok())
        // chrono reads a year of any length; git's formats have four digits.
        .filter(|_| text.len() == 10)
}

fn time_of(text: &str) -> Option<NaiveTime> {
    ["%H:%M:%S%.f", "%H:%M"]
        .iter()
        .find_map(|format| NaiveTime::parse_from_str(text, format).ok())
}

/// `+0100`, `-05:30`, `+01`: the offset east of UTC, in seconds.
fn offset_seconds(zone: &str) -> Option<i32> {
    let (sign, digits) = match zone.as_bytes().first()? {
        b'+' => (1, &zone[1..]),
        b'-' => (-1, &zone[1..]),
        _ => return None,
    };
    let digits: String = match digits.split_once(':') {
        Some((h, m)) if h.len() == 2 && m.len() == 2 => format!("{h}{m}"),
        Some(_) => return None,
        None => digits.to_owned(),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes): (i32, i32) = match digits.len() {
        2 => (digits.parse().ok()?, 0),
        4 => (digits[..2].parse().ok()?, digits[2..].parse().ok()?),
        _ => return None,
    };
    (hours < 24 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
}

/// A unit of a relative date.
#[derive(Clone, Copy)]
enum Unit {
    Seconds(i64),
    Months(u32),
}

fn unit(word: &str) -> Option<Unit> {
    const UNITS: [(&str, Unit); 7] = [
        ("second", Unit::Seconds(1)),
        ("minute", Unit::Seconds(60)),
        ("hour", Unit::Seconds(3600)),
        ("day", Unit::Seconds(86_400)),
        ("week", Unit::Seconds(7 * 86_400)),
        ("month", Unit::Months(1)),
        ("year", Unit::Months(12)),
    ];
    let singular = word.strip_suffix('s').unwrap_or(word);
    UNITS.iter().find(|(name, _)| *name == singular).map(|(_, u)| *u)
}

fn count(word: &str) -> Option<u64> {
    const WORDS: [&str; 10] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    if word == "last" {
        return Some(1);
    }
    if let Some(i) = WORDS.iter().position(|w| *w == word) {
        return Some(i as u64 + 1);
    }
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        // Too many digits for a count is a date too far back.
        return Some(word.parse().unwrap_or(u64::MAX));
    }
    None
}

/// `now`, `today`, `yesterday`, or counts and units with an optional `ago`:
/// `None` if not that form, `Some(None)` if it reaches out of range.
fn relative(text: &str, now: DateTime<Utc>) -> Option<Option<Date>> {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split([' ', '.', '\t']).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        ["now"] => return Some(Some(Date::instant(now))),
        ["today"] => return Some(Some(Date::day(now.date_naive()))),
        ["yesterday"] => return Some(now.checked_sub_signed(TimeDelta::days(1)).map(Date::instant)),
        _ => {}
    }
    let words = match words.split_last() {
        Some((&"ago", rest)) => rest,
        _ => &words[..],
    };
    if words.is_empty() || words.len() % 2 != 0 {
        return None;
    }
    let mut at = Some(now);
    for pair in words.chunks(2) {
        let n = count(pair[0])?;
        let unit = unit(pair[1])?;
        at = at.and_then(|at| back(at, n, unit));
    }
    Some(at.map(Date::instant))
}

/// `at` moved `n` units back, `None` when that leaves the range of dates.
fn back(at: DateTime<Utc>, n: u64, unit: Unit) -> Option<DateTime<Utc>> {
    match unit {
        Unit::Seconds(length) => {
            let seconds = i64::try_from(n).ok()?.checked_mul(length)?;
            at.checked_sub_signed(TimeDelta::try_seconds(seconds)?)
        }
        Unit::Months(length) => {
            let months = u32::try_from(n).ok()?.checked_mul(length)?;
            // chrono keeps the day where the month has it, else takes its last.
            at.checked_sub_months(Months::new(months))
        }
    }
}

#[cfg(test)]
mod tests;
