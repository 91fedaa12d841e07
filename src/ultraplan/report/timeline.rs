//! The run's timeline as inline SVG: one lane per session (or one for a
//! foreground run), one bar per attempt placed by when it ran and coloured
//! by its result, retries numbered and outlined, a merge marked at the end
//! of its lane. Every bar links to its step's card and carries a `<title>`,
//! so the picture reads without JavaScript.
//!
//! When the record's times cannot place an attempt (an unreadable
//! `logged_at`), the attempts are laid out one after another instead, in
//! the order they ran, and the axis says so.

use std::fmt::Write as _;

use super::model::{duration_text, short, tone, Attempt, Report, Step};
use crate::html::{escape, shorten};

/// Where the lanes' labels end and the bars begin.
const LABEL_WIDTH: f64 = 190.0;
/// The bars' width for a run of any length.
const PLOT_WIDTH: f64 = 760.0;
const LANE_HEIGHT: f64 = 34.0;
const BAR_HEIGHT: f64 = 20.0;
const AXIS_HEIGHT: f64 = 26.0;
/// The narrowest bar still drawn (a fast attempt is seen, not lost).
const MIN_BAR: f64 = 2.0;

/// The style the timeline needs beyond the page's.
pub const STYLE: &str = r#".timeline{display:block;min-width:720px;font:11px system-ui,sans-serif}
.timeline text{fill:var(--fg)}.timeline .axis{fill:var(--muted)}
.timeline .lane{fill:var(--card)}.timeline .grid{stroke:var(--line)}
.timeline .bar{stroke:var(--bg);stroke-width:1}.timeline .bar.retry{stroke:var(--fg);stroke-dasharray:3 2}
.timeline .bar.pass{fill:var(--pass)}.timeline .bar.fail{fill:var(--fail)}.timeline .bar.skip{fill:var(--skip)}.timeline .bar.stop{fill:var(--stop)}.timeline .bar.run{fill:var(--run)}
.timeline .merge{fill:var(--merge)}.timeline .unmerged{fill:none;stroke:var(--muted)}
.timeline .label{fill:#fff;font-weight:600;pointer-events:none}
"#;

/// One bar: the attempt, its step and where it lies (ms from the start).
struct Bar<'a> {
    step: &'a Step,
    attempt: &'a Attempt,
    start: f64,
    end: f64,
}

/// The inline `<svg>` of `report`'s timeline.
pub fn svg(report: &Report) -> String {
    let (bars, timed) = place(report);
    let span = bars.iter().map(|b| b.end).fold(1.0_f64, f64::max);
    let scale = PLOT_WIDTH / span;
    let lanes = report.lanes.len().max(1);
    let width = LABEL_WIDTH + PLOT_WIDTH + 40.0;
    let height = AXIS_HEIGHT + LANE_HEIGHT * lanes as f64 + 8.0;
    let mut out = String::with_capacity(256 + bars.len() * 260);
    let _ = writeln!(
        out,
        r#"<svg class="timeline" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-labelledby="timeline-title">"#
    );
    let _ = writeln!(
        out,
        "<title id=\"timeline-title\">Timeline: {} attempts of {} steps in {} lane(s)</title>",
        bars.len(),
        report.steps.len(),
        lanes
    );
    // The axis: five ticks of time (or of order, when untimed).
    for i in 0..=4 {
        let x = LABEL_WIDTH + PLOT_WIDTH * i as f64 / 4.0;
        let label = if timed {
            duration_text((span * i as f64 / 4.0) as u64)
        } else if i == 0 {
            "in the order each lane ran them (times unknown)".into()
        } else {
            continue;
        };
        let anchor = if i == 0 {
            "start"
        } else if i == 4 {
            "end"
        } else {
            "middle"
        };
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{x:.1}" y1="{y1}" x2="{x:.1}" y2="{y2}"/><text class="axis" x="{x:.1}" y="14" text-anchor="{anchor}">{}</text>"#,
            escape(&label),
            y1 = AXIS_HEIGHT - 6.0,
            y2 = height - 6.0,
        );
    }
    for (i, lane) in report.lanes.iter().enumerate() {
        let y = AXIS_HEIGHT + LANE_HEIGHT * i as f64;
        let label = lane.label();
        let _ = writeln!(
            out,
            r#"<g class="lane-row"><rect class="lane" x="0" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="3"/><text x="6" y="{ty:.1}"><title>{}</title>{}</text></g>"#,
            escape(&format!("{label} ({})", lane.result)),
            escape(&shorten(&label, 28)),
            w = LABEL_WIDTH + PLOT_WIDTH + 34.0,
            h = LANE_HEIGHT - 4.0,
            ty = y + LANE_HEIGHT / 2.0 + 2.0,
        );
        let lane_end = bars
            .iter()
            .filter(|b| b.step.session == lane.session)
            .map(|b| b.end)
            .fold(0.0_f64, f64::max);
        if lane.session.is_some() {
            // A diamond where the session ends: filled when merged.
            let cx = LABEL_WIDTH + lane_end * scale + 8.0;
            let cy = y + LANE_HEIGHT / 2.0 - 2.0;
            let (class, what) = match (&lane.merge_commit, lane.merged) {
                (Some(c), true) => ("merge", format!("merged as {}", short(c))),
                (None, true) => ("merge", "merged".to_owned()),
                _ => ("unmerged", format!("not merged ({})", lane.result)),
            };
            let _ = writeln!(
                out,
                r#"<path class="{class}" d="M{cx:.1} {top:.1}l6 7-6 7-6-7z"><title>{}</title></path>"#,
                escape(&format!("{}: {what}", lane.label())),
                top = cy - 7.0,
            );
        }
    }
    for bar in &bars {
        let lane = report
            .lanes
            .iter()
            .position(|l| l.session == bar.step.session)
            .unwrap_or(0);
        let y = AXIS_HEIGHT + LANE_HEIGHT * lane as f64 + (LANE_HEIGHT - 4.0 - BAR_HEIGHT) / 2.0;
        let x = LABEL_WIDTH + bar.start * scale;
        let w = ((bar.end - bar.start) * scale).max(MIN_BAR);
        let a = bar.attempt;
        let retry = if a.number > 1 || a.run > 1 { " retry" } else { "" };
        let mut title = format!(
            "Step {}: {} — attempt {}{}: {} in {}",
            bar.step.number,
            bar.step.title,
            a.number,
            if a.run > 1 {
                format!(" (run {})", a.run)
            } else {
                String::new()
            },
            a.status,
            duration_text(a.duration_ms)
        );
        if let Some(c) = &a.commit {
            let _ = write!(title, ", checkpoint {}", short(c));
        }
        let _ = write!(
            out,
            r##"<a href="#step-{n}"><rect class="bar {tone}{retry}" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{BAR_HEIGHT}" rx="2"><title>{}</title></rect>"##,
            escape(&title),
            n = bar.step.number,
            tone = tone(&a.status),
        );
        // A label where it fits: the step, and the attempt when retried.
        let label = if a.number > 1 {
            format!("{}·{}", bar.step.number, a.number)
        } else {
            bar.step.number.to_string()
        };
        if w >= 7.0 * label.chars().count() as f64 + 4.0 {
            let _ = write!(
                out,
                r#"<text class="label" x="{:.1}" y="{:.1}">{}</text>"#,
                x + 3.0,
                y + BAR_HEIGHT / 2.0 + 4.0,
                escape(&label)
            );
        }
        out.push_str("</a>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// Every attempt placed on the run's time, and whether times placed them.
///
/// A lane runs one attempt at a time, so its attempts follow one another in
/// the order it recorded them; the clock (each attempt's end less its
/// duration) moves an attempt later when it started later, so waits show.
/// The record's times have whole seconds, so two quick attempts that ended
/// within one second still lie side by side, never on top of each other.
/// A wave starts when the waves before it have ended (they are merged
/// before it runs). When an attempt's time cannot be read, the clock is
/// left out entirely and every lane's attempts simply follow one another.
fn place(report: &Report) -> (Vec<Bar<'_>>, bool) {
    let all: Vec<(&Step, &Attempt)> = report.attempts().collect();
    let starts: Option<Vec<i64>> = all.iter().map(|(_, a)| a.start_ms()).collect();
    let timed = starts.as_ref().is_some_and(|s| !s.is_empty());
    let origin = starts.iter().flatten().copied().min().unwrap_or(0);
    let wave = |session: Option<u32>| report.lane(session).and_then(|l| l.wave).unwrap_or(0);
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| (wave(all[i].0.session), all[i].1.run, all[i].1.seq, i));
    let mut lane_end: Vec<(Option<u32>, f64)> = Vec::new();
    let mut bars = Vec::with_capacity(all.len());
    // The wave being laid out, and when the waves before it ended.
    let mut current_wave = 0;
    let mut wave_floor = 0.0_f64;
    for i in order {
        let (step, attempt) = all[i];
        if wave(step.session) != current_wave {
            current_wave = wave(step.session);
            wave_floor = lane_end.iter().map(|(_, e)| *e).fold(wave_floor, f64::max);
        }
        let free = match lane_end.iter().position(|(l, _)| *l == step.session) {
            Some(at) => at,
            None => {
                lane_end.push((step.session, wave_floor));
                lane_end.len() - 1
            }
        };
        let clock = match &starts {
            Some(s) if timed => (s[i] - origin) as f64,
            _ => 0.0,
        };
        let start = clock.max(lane_end[free].1);
        // An attempt of no measured length still takes a moment on the picture.
        let end = start + (attempt.duration_ms as f64).max(1.0);
        lane_end[free].1 = end;
        bars.push(Bar {
            step,
            attempt,
            start,
            end,
        });
    }
    (bars, timed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ultraplan::report::model::Lane;

    fn attempt(number: u32, status: &str, at: &str, ms: u64) -> Attempt {
        Attempt {
            number,
            run: 1,
            status: status.into(),
            logged_at: at.into(),
            duration_ms: ms,
            ..Attempt::default()
        }
    }

    fn two_lanes() -> Report {
        Report {
            lanes: vec![
                Lane {
                    session: Some(1),
                    title: "A <b>".into(),
                    merged: true,
                    merge_commit: Some("0123456789abcdef".into()),
                    result: "completed".into(),
                    ..Lane::default()
                },
                Lane {
                    session: Some(2),
                    title: "B".into(),
                    result: "failed".into(),
                    ..Lane::default()
                },
            ],
            steps: vec![
                Step {
                    number: 1,
                    title: "one".into(),
                    session: Some(1),
                    status: "passed".into(),
                    attempts: vec![attempt(1, "success", "2026-01-01T00:00:10Z", 10_000)],
                    ..Step::default()
                },
                Step {
                    number: 2,
                    title: "two".into(),
                    session: Some(2),
                    status: "failed".into(),
                    attempts: vec![
                        attempt(1, "failure", "2026-01-01T00:00:05Z", 5_000),
                        attempt(2, "failure", "2026-01-01T00:00:20Z", 15_000),
                    ],
                    ..Step::default()
                },
            ],
            ..Report::default()
        }
    }

    #[test]
    fn bars_follow_the_clock_and_retries_are_marked() {
        let svg = svg(&two_lanes());
        assert_eq!(svg.matches("<rect class=\"bar").count(), 3);
        assert!(svg.contains(r#"class="bar fail retry" x="380.0""#), "{svg}");
        assert!(svg.contains(r#"class="bar pass" x="190.0""#), "{svg}");
        assert!(svg.contains("Session 1: A &lt;b&gt;: merged as 0123456"));
        assert!(svg.contains("Session 2: B: not merged (failed)"));
        assert!(svg.contains(">2·2</text>"));
    }

    #[test]
    fn untimed_attempts_follow_one_another() {
        let mut report = two_lanes();
        report.steps[0].attempts[0].logged_at = "yesterday".into();
        let svg = svg(&report);
        assert!(svg.contains("in the order each lane ran them (times unknown)"));
        assert_eq!(svg.matches("<rect class=\"bar").count(), 3);
    }
}
