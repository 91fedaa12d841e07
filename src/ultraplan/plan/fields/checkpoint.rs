//! The Checkpoint field: a `git commit -m` ultraplan makes itself, `none`,
//! or a command run as written.

use super::is_none_value;
use crate::cli::shell::shell_words;
use crate::ultraplan::plan::markdown::{code_spans, Field};
use crate::ultraplan::plan::{Checkpoint, Diagnostics};

/// Checkpoint: `git commit -m "<message>"` becomes a commit ultraplan makes;
/// `none` means no commit; anything else is a command run as written.
pub(crate) fn checkpoint(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Checkpoint> {
    let text = field.text();
    if is_none_value(&text) {
        return None;
    }
    let spans = code_spans(&text);
    let command = match spans.first() {
        Some(span) => span.content.trim(),
        None => text.trim(),
    };
    if command.is_empty() {
        return None;
    }
    if let Some(words) = shell_words(command) {
        if let Some(message) = commit_message(&words) {
            if message.trim().is_empty() {
                diags.problem(field.line, format!("step {step}: Checkpoint commit message is empty"));
                return None;
            }
            return Some(Checkpoint::Commit { message });
        }
        if stages_everything(&words) {
            diags.warning(
                field.line,
                format!(
                    "step {step}: Checkpoint '{command}' stages everything in the worktree; it is run as written, \
                     but only a plain git commit -m \"…\" lets ultraplan stage just the step's files"
                ),
            );
        }
    }
    Some(Checkpoint::Command {
        command: command.to_owned(),
    })
}

/// The message of `git commit -m <msg> [-m <msg>…]` (paragraphs joined as git
/// does), or `None` when the command is anything else.
fn commit_message(words: &[String]) -> Option<String> {
    if words.len() < 3 || words[0] != "git" || words[1] != "commit" {
        return None;
    }
    let mut paragraphs = Vec::new();
    let mut i = 2;
    while i < words.len() {
        let w = &words[i];
        if w == "-m" || w == "--message" {
            paragraphs.push(words.get(i + 1)?.as_str());
            i += 2;
        } else if let Some(m) = w.strip_prefix("--message=") {
            paragraphs.push(m);
            i += 1;
        } else if let Some(m) = w.strip_prefix("-m").filter(|m| !m.is_empty()) {
            paragraphs.push(m);
            i += 1;
        } else {
            return None;
        }
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

fn stages_everything(words: &[String]) -> bool {
    words.windows(2).any(|w| {
        (w[0] == "add" && matches!(w[1].as_str(), "-A" | "--all" | "." | ":/" | "-u" | "--update"))
            || (w[0] == "commit" && (w[1] == "-a" || w[1] == "--all" || w[1] == "-am"))
    }) || (words.iter().any(|w| w == "commit") && words.iter().any(|w| w == "-a" || w == "--all" || w == "-am"))
}
