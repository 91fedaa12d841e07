//! The `## Performance Metrics` section of a STATE.md (seed `000_…`):
//! rendered from [`Metrics`], and put in place of the section a file has —
//! every other byte of the file left as it was, its line endings kept.

use std::collections::BTreeMap;

use super::collect::Record;
use super::metrics::{human_duration, Metrics};

const HEADING: &str = "## Performance Metrics";

/// The section's lines (without line endings).
pub fn render(metrics: &Metrics, record: &Record) -> Vec<String> {
    let v = &metrics.velocity;
    let mut out = vec![
        HEADING.to_owned(),
        String::new(),
        "**Velocity:**".to_owned(),
        format!("- Total plans completed: {}", v.plans_completed),
        format!("- Average duration: {}", human_duration(v.average_duration_ms)),
        format!("- Total execution time: {}", human_duration(v.total_duration_ms)),
        String::new(),
        "**By Phase:**".to_owned(),
        String::new(),
        "| Phase | Plans | Total | Avg/Plan |".to_owned(),
        "|-------|-------|-------|----------|".to_owned(),
    ];
    for g in &metrics.by_phase {
        let done = g.velocity.plans_completed;
        let (total, avg) = match done {
            0 => ("-".to_owned(), "-".to_owned()),
            _ => (
                human_duration(g.velocity.total_duration_ms),
                human_duration(g.velocity.average_duration_ms),
            ),
        };
        out.push(format!(
            "| {} | {done}/{} | {total} | {avg} |",
            g.key, g.velocity.plans_total
        ));
    }
    out.push(String::new());
    out.push("**Recent Trend:**".to_owned());
    let recent: Vec<String> = metrics.recent_durations_ms.iter().map(|d| human_duration(*d)).collect();
    out.push(format!(
        "- Last {} plans: {}",
        recent.len(),
        if recent.is_empty() {
            "-".to_owned()
        } else {
            recent.join(", ")
        }
    ));
    out.push(format!("- Trend: {}", metrics.trend.as_str()));
    out.push(String::new());
    let (done, total) = progress(record);
    let filled = (done * 20).checked_div(total).unwrap_or(0);
    let percent = (done * 100).checked_div(total).unwrap_or(0);
    out.push(format!(
        "**Progress:** [{}{}] {percent}% ({done}/{total} tasks)",
        "#".repeat(filled),
        "░".repeat(20 - filled)
    ));
    out
}

/// Tasks done of tasks planned: for each plan, its latest run's steps.
fn progress(record: &Record) -> (usize, usize) {
    let mut latest: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for run in record.runs.iter().filter(|r| r.session.is_none()) {
        latest.insert(run.plan_id.as_str(), (run.steps_passed, run.steps_total));
    }
    latest.values().fold((0, 0), |(d, t), (pd, pt)| (d + pd, t + pt))
}

/// `text` with its `## Performance Metrics` section replaced by `section`
/// (or the section appended when it has none). The section runs to the next
/// heading of level one or two. Line endings follow the file's (CRLF when its
/// first line ends so); a file that did not end with a newline still does not.
pub fn splice(text: &str, section: &[String]) -> String {
    let eol = if text.split_once('\n').is_some_and(|(first, _)| first.ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    let body: String = section.iter().map(|l| format!("{l}{eol}")).collect();
    // Lines with their endings, so byte offsets are exact.
    let mut offset = 0;
    let mut start = None;
    let mut end = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match start {
            None if bare.trim_end() == HEADING => start = Some(offset),
            Some(_) if end.is_none() && (bare.starts_with("# ") || bare.starts_with("## ")) => end = Some(offset),
            _ => {}
        }
        offset += line.len();
    }
    match start {
        Some(s) => {
            let e = end.unwrap_or(text.len());
            let mut replacement = body;
            if e < text.len() {
                replacement.push_str(eol); // a blank line before the next heading
            } else if !text.ends_with('\n') {
                replacement.truncate(replacement.len() - eol.len());
            }
            format!("{}{replacement}{}", &text[..s], &text[e..])
        }
        None if text.is_empty() => body,
        None => {
            let sep = if text.ends_with('\n') {
                eol.to_owned()
            } else {
                format!("{eol}{eol}")
            };
            format!("{text}{sep}{body}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::splice;

    fn section() -> Vec<String> {
        vec!["## Performance Metrics".into(), "".into(), "- new".into()]
    }

    #[test]
    fn only_the_section_changes() {
        let text = "# State\n\nSome notes.\n\n## Performance Metrics\n\n- old\n- older\n\n## Next\n\nkeep me\n";
        assert_eq!(
            splice(text, &section()),
            "# State\n\nSome notes.\n\n## Performance Metrics\n\n- new\n\n## Next\n\nkeep me\n"
        );
    }

    #[test]
    fn crlf_no_trailing_newline_and_a_missing_section() {
        let crlf = "# State\r\n\r\n## Performance Metrics\r\n- old";
        assert_eq!(
            splice(crlf, &section()),
            "# State\r\n\r\n## Performance Metrics\r\n\r\n- new"
        );
        assert_eq!(
            splice("# State\nno metrics", &section()),
            "# State\nno metrics\n\n## Performance Metrics\n\n- new\n"
        );
        assert_eq!(
            splice("# State\n", &section()),
            "# State\n\n## Performance Metrics\n\n- new\n"
        );
        let sub = "## Performance Metrics\n### Detail\nold\n## After\n";
        assert_eq!(
            splice(sub, &section()),
            "## Performance Metrics\n\n- new\n\n## After\n",
            "a level-three heading belongs to the section"
        );
    }
}
