//! Aider (`aider`), headless: `aider --message-file <file> --yes-always
//! --no-auto-commits --no-dirty-commits --no-gitignore --no-pretty
//! --no-stream --no-check-update --no-show-release-notes --no-analytics`,
//! the prompt in a file outside the worktree (no size limit).
//!
//! Aider has no machine-readable output: what it changed is what the
//! worktree shows (ultraplan observes that anyway), and its text is read
//! for the rest: `Model: <name> with <format> edit format` (or `Main
//! model:`), one `Tokens: 2.1k sent, 1.2k cache write, 3.4k cache hit, 345
//! received.` line per model reply (summed; `k` figures are rounded as
//! aider prints them) with `Cost: $0.0042 message, $0.0123 session.`, and
//! `Applied edit to <file>` for the live line. Its error lines (LiteLLM
//! exceptions, "The API provider …") are its error text; an exit 0 with no
//! model reply at all is a run without a result.
//!
//! `--yes-always` answers yes to adding and creating files, while commands
//! it proposes still need an explicit yes and are not run; aider must not
//! commit (ultraplan commits the step), nor edit `.gitignore`. Its chat
//! history is kept outside the worktree (`--chat-history-file`), per
//! session: a retry continues the conversation with
//! `--restore-chat-history`.
//!
//! Format read: Aider-AI/aider v0.86.2 (`aider/coders/base_coder.py`
//! `calculate_and_show_tokens_and_cost`, `get_announcements`;
//! `aider/io.py` `confirm_ask`; `aider/args.py`).

use super::{Access, Activity, Adapter, Call, Invocation, Report, StreamParser, Tokens};

pub struct Aider;

impl Adapter for Aider {
    fn name(&self) -> &'static str {
        "aider"
    }
    fn title(&self) -> &'static str {
        "Aider CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["aider"]
    }
    fn format_version(&self) -> &'static str {
        "aider v0.86.2 (text; no JSON)"
    }
    fn flags(&self) -> &'static str {
        "--message-file <file> --yes-always --no-auto-commits --no-dirty-commits --no-gitignore --no-pretty --no-stream; --restore-chat-history"
    }
    fn prompt_passing(&self) -> &'static str {
        "a file (--message-file)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &[
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "DEEPSEEK_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &[
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "DEEPSEEK_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_note(&self) -> &'static str {
        "a model provider's API (aider always bills per token)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &[]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, _permission: bool) -> Result<Invocation, String> {
        let session = call.resume.unwrap_or(call.session_name).to_owned();
        let safe: String = session
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        let prompt_file = call.scratch.join(format!("{safe}.prompt.md"));
        std::fs::write(&prompt_file, call.prompt)
            .map_err(|e| format!("cannot write the prompt file '{}': {e}", prompt_file.display()))?;
        let path = |p: std::path::PathBuf| p.display().to_string();
        let mut args: Vec<String> = vec!["--message-file".into(), path(prompt_file)];
        args.extend(
            [
                "--yes-always",
                "--no-auto-commits",
                "--no-dirty-commits",
                "--no-gitignore",
                "--no-pretty",
                "--no-stream",
                "--no-check-update",
                "--no-show-release-notes",
                "--no-analytics",
            ]
            .map(String::from),
        );
        args.extend([
            "--chat-history-file".into(),
            path(call.scratch.join(format!("{safe}.chat.md"))),
            "--input-history-file".into(),
            path(call.scratch.join(format!("{safe}.input"))),
        ]);
        if call.resume.is_some() {
            args.push("--restore-chat-history".into());
        }
        if call.access == Access::ReadOnly {
            args.extend(["--chat-mode".into(), "ask".into(), "--no-git".into()]);
        }
        Ok(Invocation {
            args,
            session: Some(session),
            ..Invocation::default()
        })
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        Box::<AiderText>::default()
    }
}

#[derive(Default)]
struct AiderText {
    report: Report,
    replies: u32,
    /// What it said since its last reply's usage line.
    said: Vec<String>,
    answer: Vec<String>,
}

/// `2.1k` → 2100, `12k` → 12000, `345` → 345 (as aider's format_tokens prints).
fn figure(word: &str) -> Option<u64> {
    let w = word.trim().trim_end_matches([',', '.']);
    match w.strip_suffix(['k', 'K']) {
        Some(n) => n.parse::<f64>().ok().map(|f| (f * 1000.0).round() as u64),
        None => match w.strip_suffix(['m', 'M']) {
            Some(n) => n.parse::<f64>().ok().map(|f| (f * 1_000_000.0).round() as u64),
            None => w.parse().ok(),
        },
    }
}

/// The figure before `label` in `text` (`2.1k sent` → 2100 for `sent`).
fn before(text: &str, label: &str) -> Option<u64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words.iter().position(|w| w.trim_end_matches([',', '.']) == label)?;
    if label == "cache" {
        // `1.2k cache write` / `3.4k cache hit`: the caller asks for the pair.
        return None;
    }
    figure(words.get(at.checked_sub(1)?)?)
}

fn cache(text: &str, kind: &str) -> u64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(3)
        .find(|w| w[1] == "cache" && w[2].trim_end_matches([',', '.']) == kind)
        .and_then(|w| figure(w[0]))
        .unwrap_or(0)
}

impl StreamParser for AiderText {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Main model: ").or_else(|| t.strip_prefix("Model: ")) {
            let name = rest.split(" with ").next().unwrap_or(rest).trim();
            self.report.model = Some(name.to_owned());
            return None;
        }
        if t.starts_with("Tokens: ") {
            self.replies += 1;
            self.report.finished = true;
            let hit = cache(t, "hit");
            self.report.add_tokens(Tokens {
                // `sent` already counts cache writes.
                input: before(t, "sent").unwrap_or(0),
                output: before(t, "received").unwrap_or(0),
                cached: hit,
                total: 0,
            });
            self.answer = std::mem::take(&mut self.said);
        }
        if let Some(cost) = t.split("Cost: ").nth(1) {
            // `$0.0042 message, $0.0123 session.`: the session figure is the total.
            if let Some(session) = cost
                .split(',')
                .find(|p| p.contains("session"))
                .and_then(|p| p.split_whitespace().next())
                .and_then(|d| d.trim_start_matches('$').parse::<f64>().ok())
            {
                self.report.cost_usd = Some(session);
            }
            return Some(self.activity(None, None));
        }
        if t.starts_with("Tokens: ") {
            return Some(self.activity(None, None));
        }
        if let Some(file) = t.strip_prefix("Applied edit to ") {
            return Some(self.activity(Some("edit".into()), Some(file.to_owned())));
        }
        if t.starts_with("litellm.")
            || t.starts_with("The API provider")
            || t.contains("AuthenticationError")
            || t.contains("RateLimitError")
            || t.starts_with("Error: ")
        {
            self.report.add_error(t);
            return None;
        }
        if !t.is_empty() && !t.starts_with("Aider v") && !t.starts_with("Git repo:") && !t.starts_with("Repo-map:") {
            self.said.push(line.to_owned());
            if self.said.len() > 40 {
                self.said.remove(0);
            }
        }
        None
    }

    fn finish(mut self: Box<Self>, _stderr: &str) -> Report {
        if self.replies > 0 {
            self.report.turns = Some(self.replies);
        }
        let answer = self.answer.join("\n");
        if !answer.trim().is_empty() {
            self.report.final_text = Some(answer.trim().to_owned());
        }
        self.report
    }
}

impl AiderText {
    fn activity(&self, tool: Option<String>, target: Option<String>) -> Activity {
        Activity {
            tool,
            target,
            turns: self.replies,
            cost_usd: self.report.cost_usd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lines_are_summed() {
        let mut p = Aider.parser();
        for l in [
            "Aider v0.86.2",
            "Main model: anthropic/claude-sonnet-4-5 with diff edit format, prompt cache, infinite output",
            "I will add the file.",
            "Applied edit to a.txt",
            "Tokens: 2.1k sent, 345 received. Cost: $0.0042 message, $0.0042 session.",
            "Fixed.",
            "Tokens: 12k sent, 1.2k cache write, 3.4k cache hit, 1.5k received.",
            "Cost: $0.02 message, $0.0242 session.",
        ] {
            p.line(l);
        }
        let r = p.finish("");
        assert!(r.finished);
        assert_eq!(r.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
        assert_eq!(r.turns, Some(2));
        assert_eq!(r.cost_usd, Some(0.0242));
        assert_eq!(
            r.tokens,
            Some(Tokens {
                input: 14100,
                output: 1845,
                cached: 3400,
                total: 0
            })
        );
        assert_eq!(r.final_text.as_deref(), Some("Fixed."));
    }

    #[test]
    fn no_reply_is_no_result() {
        let mut p = Aider.parser();
        p.line("litellm.AuthenticationError: AnthropicException - invalid x-api-key");
        let r = p.finish("");
        assert!(!r.finished);
        assert!(r.error.unwrap().contains("AuthenticationError"));
    }
}
