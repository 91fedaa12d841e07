use chrono::{DateTime, Utc};

use super::{parse, Date, DateError};

/// A fixed "now": Sunday 29 November 2026, 06:40:00 UTC.
fn now() -> DateTime<Utc> {
    at("2026-11-29T06:40:00Z")
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
}

fn first(text: &str) -> DateTime<Utc> {
    parse(text, now()).unwrap_or_else(|e| panic!("{text}: {e}")).first()
}

fn last(text: &str) -> DateTime<Utc> {
    parse(text, now()).unwrap_or_else(|e| panic!("{text}: {e}")).last()
}

#[test]
fn relative_dates_count_back_from_now() {
    for text in [
        "2.weeks.ago",
        "2 weeks ago",
        "2 weeks",
        "2.weeks",
        "two weeks ago",
        "2 Weeks Ago",
        " 2  weeks  ago ",
    ] {
        assert_eq!(first(text), at("2026-11-15T06:40:00Z"), "{text}");
    }
    assert_eq!(first("3.days"), at("2026-11-26T06:40:00Z"));
    assert_eq!(first("1 day ago"), at("2026-11-28T06:40:00Z"));
    assert_eq!(first("last week"), at("2026-11-22T06:40:00Z"));
    assert_eq!(first("1 week 2 days ago"), at("2026-11-20T06:40:00Z"));
    assert_eq!(first("90.minutes.ago"), at("2026-11-29T05:10:00Z"));
    assert_eq!(first("5 hours 30 seconds ago"), at("2026-11-29T01:39:30Z"));
    assert_eq!(first("ten.seconds.ago"), at("2026-11-29T06:39:50Z"));
    assert_eq!(first("3.months.ago"), at("2026-08-29T06:40:00Z"));
    assert_eq!(first("1 year ago"), at("2025-11-29T06:40:00Z"));
    // An instant: the same first and last.
    assert_eq!(last("3.days"), first("3.days"));
}

#[test]
fn a_month_back_from_a_day_the_month_lacks_takes_its_last_day() {
    let march_31 = at("2026-03-31T12:00:00Z");
    assert_eq!(
        parse("1 month ago", march_31).unwrap().first(),
        at("2026-02-28T12:00:00Z")
    );
    let leap_day = at("2028-02-29T00:00:00Z");
    assert_eq!(
        parse("1.year.ago", leap_day).unwrap().first(),
        at("2027-02-28T00:00:00Z")
    );
}

#[test]
fn now_today_and_yesterday_read_as_git_reads_them() {
    assert_eq!(first("now"), now());
    assert_eq!(last("now"), now());
    // Yesterday is 24 hours ago, as for `git log --since=yesterday`.
    assert_eq!(first("yesterday"), at("2026-11-28T06:40:00Z"));
    assert_eq!(last("yesterday"), at("2026-11-28T06:40:00Z"));
    // Today is the whole day.
    assert_eq!(first("today"), at("2026-11-29T00:00:00Z"));
    assert_eq!(last("today"), at("2026-11-29T23:59:59.999999999Z"));
}

#[test]
fn a_day_alone_is_the_whole_day_in_utc() {
    for text in ["2026-11-01", "2026.11.01", "11/01/2026", "01.11.2026"] {
        assert_eq!(first(text), at("2026-11-01T00:00:00Z"), "{text}");
        assert_eq!(last(text), at("2026-11-01T23:59:59.999999999Z"), "{text}");
    }
}

#[test]
fn iso_8601_date_times_with_and_without_a_zone() {
    let ten = at("2026-11-01T10:00:00Z");
    for text in [
        "2026-11-01T10:00:00Z",
        "2026-11-01t10:00:00z",
        "2026-11-01T10:00:00",
        "2026-11-01 10:00:00",
        "2026-11-01 10:00",
        "2026-11-01T10:00:00+00:00",
        "2026-11-01 10:00:00 UTC",
        "2026-11-01 11:00:00 +0100",
        "2026-11-01T11:00:00+01:00",
        "2026-11-01T11:00:00+01",
        "2026-11-01T05:30:00-04:30",
    ] {
        assert_eq!(first(text), ten, "{text}");
        assert_eq!(last(text), ten, "{text}");
    }
    assert_eq!(first("2026-11-01T10:00:00.750Z"), at("2026-11-01T10:00:00.750Z"));
}

#[test]
fn rfc_2822_and_seconds_since_the_epoch() {
    assert_eq!(first("Sun, 01 Nov 2026 11:00:00 +0100"), at("2026-11-01T10:00:00Z"));
    assert_eq!(first("01 Nov 2026 10:00:00 GMT"), at("2026-11-01T10:00:00Z"));
    // The day of the week is not checked, as git does not check it.
    assert_eq!(first("Mon, 01 Nov 2026 11:00:00 +0100"), at("2026-11-01T10:00:00Z"));
    assert_eq!(first("@1793527200"), at("2026-11-01T10:00:00Z"));
    assert_eq!(first("@1793527200 +0100"), at("2026-11-01T10:00:00Z"));
    assert_eq!(first("@0"), at("1970-01-01T00:00:00Z"));
}

#[test]
fn anything_else_is_refused_with_its_value_named() {
    for text in [
        "",
        "  ",
        "yesterday-ish",
        "soon",
        "2 fortnights ago",
        "weeks ago",
        "2 weeks ago please",
        "ago",
        "2026-13-01",
        "2026-02-30",
        "2026-11-01 25:00",
        "2026-11-01 10:00 +2500",
        "2026-11-01 garbage",
        "26-11-01",
        "12026-11-01",
        "@",
        "@-5",
        "@12x",
        "@12 CET",
        "a week ago",
        "2.weeks.ago.2",
        "Sun, 2026-11-01",
        "Sunday, 01 Nov 2026 10:00:00 +0100",
    ] {
        assert_eq!(parse(text, now()), Err(DateError::Unknown(text.to_owned())), "{text:?}");
    }
    let message = parse("soon", now()).unwrap_err().to_string();
    assert!(
        message.starts_with("'soon' is not a date (try 2026-11-01,"),
        "{message}"
    );
}

#[test]
fn a_date_out_of_range_is_refused_not_wrapped() {
    for text in [
        "99999999999999999999 years ago",
        "9999999999 years ago",
        "9223372036854775807 seconds ago",
        "@99999999999999999999",
        "@9999999999999999",
    ] {
        assert_eq!(
            parse(text, now()),
            Err(DateError::OutOfRange(text.to_owned())),
            "{text}"
        );
    }
}

#[test]
fn the_whole_day_ends_where_the_next_begins() {
    let day: Date = parse("2026-11-01", now()).unwrap();
    let next = parse("2026-11-02", now()).unwrap();
    assert!(day.last() < next.first());
    assert_eq!(next.first() - day.last(), chrono::TimeDelta::nanoseconds(1));
}
