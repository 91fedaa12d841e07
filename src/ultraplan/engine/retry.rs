//! What a retry carries over from the attempt before it: the agent session
//! to continue (an agent executor resumes it, DESIGN §19), and the end of
//! the failed Verify's output for the next prompt — from this process, or
//! from the run state when a run resumed after a crash.

use anyhow::Result;

use super::Run;

impl Run<'_> {
    /// The agent session the previous attempt of this execution of step `n`
    /// recorded, when the same executor made it: a retry continues it.
    pub(super) fn previous_session(&self, n: u32, a: u32) -> Result<Option<String>> {
        let first = self
            .state
            .read_text(&self.state.step_paths(n).execution())?
            .and_then(|t| t.trim().parse::<u32>().ok())
            .unwrap_or(1);
        if a <= first || self.opts.executor.agent().is_none() {
            return Ok(None);
        }
        let Some(record) = self.state.read_text(&self.state.step_paths(n).record(a - 1))? else {
            return Ok(None);
        };
        let Ok(doc) = crate::yaml::parse(&record) else {
            return Ok(None);
        };
        let meta = &doc["result"]["metadata"];
        let same_executor = meta["executor_id"].as_str() == Some(self.opts.executor.id().as_str());
        Ok(meta["session_id"]
            .as_str()
            .filter(|id| same_executor && !id.is_empty() && !id.contains("[REDACTED"))
            .map(str::to_owned))
    }

    /// The end of the Verify output attempt `a` of step `n` recorded in its
    /// log (for a run that resumes after it), for the next prompt.
    pub(super) fn recorded_verify_tail(&self, n: u32, a: u32) -> Result<Option<String>> {
        let log = self
            .state
            .read_text(&self.state.step_paths(n).transcript(a))?
            .unwrap_or_default();
        Ok(log.rfind("\n--- verify: ").map(|at| {
            let output = log[at + 1..].split_once('\n').map_or("", |(_, rest)| rest);
            verify_tail(output)
        }))
    }
}

/// The end of a Verify's output for the next attempt's prompt.
pub(super) fn verify_tail(output: &str) -> String {
    tail_of(output, VERIFY_TAIL_LINES, VERIFY_TAIL_BYTES)
}

/// How much of a failed Verify's output the next attempt is shown.
const VERIFY_TAIL_LINES: usize = 60;
const VERIFY_TAIL_BYTES: usize = 8 * 1024;

/// The last `lines` lines of `text`, at most `bytes` of them (cut at a
/// line), with a mark where the start was left out; redacted whole before
/// it is cut, so a key's body is not shown without the line naming it.
fn tail_of(text: &str, lines: usize, bytes: usize) -> String {
    let text = crate::redact::redact(text);
    let all: Vec<&str> = text.trim_end().lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in all.iter().rev().take(lines) {
        if size + line.len() + 1 > bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    let mut out = String::new();
    if kept.len() < all.len() {
        out.push_str(&format!("[… {} earlier lines …]\n", all.len() - kept.len()));
    }
    out.push_str(&kept.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tail_keeps_the_last_lines_within_bounds() {
        let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        let t = super::tail_of(&text, 3, 1000);
        assert_eq!(t, "[… 97 earlier lines …]\nline 98\nline 99\nline 100");
        assert_eq!(super::tail_of("a\nb\n", 10, 1000), "a\nb");
        let t = super::tail_of(&text, 100, 20);
        assert_eq!(t, "[… 98 earlier lines …]\nline 99\nline 100");
    }
}
