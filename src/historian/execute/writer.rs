//! The commit writer (DESIGN §10.3): a command named by
//! `historian.commitWriter` that writes a commit's message, speaking the
//! RESULT protocol of seed 001.
//!
//! It runs with `sh -c` at the top of the working tree. Its stdin is one
//! JSON object:
//!
//! ```json
//! {"branch": "feature", "clean_branch": "feature-20260102-030405-clean",
//!  "commit": {"number": 2, "of": 5, "message": "<historian's draft>",
//!             "files": ["src/a.rs"], "hunks": ["src/b.rs#1"], "diff": "<unified diff>"},
//!  "resume": null}
//! ```
//!
//! and its environment has `HISTORIAN_COMMIT` and `HISTORIAN_COMMITS`. It
//! answers on stdout with `RESULT: SUCCESS` and a `Message:` field (further
//! lines indented by two spaces), `RESULT: ERROR`, or `RESULT: QUESTION`.
//! A QUESTION is wrapped in historian's own (the writer's block nested in
//! the Resume State); after `git historian resume --answer`, the writer
//! runs again for the same commit with `"resume": {"question": "<its
//! block>", "answer": "<the option chosen>", "prompt": "Resume the
//! commit-writer process. …"}` and `HISTORIAN_ANSWER` set.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use crate::git::{Delta, Oid, Renames, Repo};
use crate::process;

use crate::historian::analyse::lines;
use crate::historian::protocol::{self, ResultBlock, ResumeValue};

/// The most bytes of diff handed to the writer.
const DIFF_CAP: usize = 256 * 1024;

#[derive(Clone, Debug, Serialize)]
pub struct Request {
    pub branch: String,
    pub clean_branch: String,
    pub commit: CommitRequest,
    pub resume: Option<Resume>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CommitRequest {
    pub number: usize,
    pub of: usize,
    pub message: String,
    pub files: Vec<String>,
    pub hunks: Vec<String>,
    pub diff: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Resume {
    /// The writer's own QUESTION block, as it printed it.
    pub question: String,
    /// The option chosen, as its text (`Option 2: …` without the prefix).
    pub answer: String,
    /// Seed 001's re-invocation prompt, for writers that are agents.
    pub prompt: String,
}

impl Resume {
    pub fn new(question: &str, answer: &str) -> Resume {
        let state = match protocol::parse(question) {
            Ok(ResultBlock::Question(q)) => q
                .resume_state
                .iter()
                .map(|e| match &e.value {
                    ResumeValue::Text(t) => format!("  - {}: {}", e.key, t.replace('\n', "\n    ")),
                    ResumeValue::Nested(b) => format!("  - {}:\n    {}", e.key, b.render().replace('\n', "\n    ")),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        Resume {
            question: question.to_owned(),
            answer: answer.to_owned(),
            prompt: format!(
                "Resume the commit-writer process.\n\nResume State:\n{state}\n\nUser's Answer: {answer}\n\nContinue from where you left off.\n"
            ),
        }
    }
}

/// What the writer said.
#[derive(Clone, Debug)]
pub enum Reply {
    Message(String),
    /// The writer's QUESTION, read from its text redacted as it wrote it
    /// (`text`, from its `RESULT:` line on), so that a secret in any
    /// spelling the writer used is gone before historian lays anything out.
    Question {
        block: ResultBlock,
        text: String,
    },
    Error {
        description: String,
        details: Option<String>,
    },
}

/// Runs the writer for one commit.
pub fn ask(command: &str, cwd: &Path, request: &Request, timeout: Duration) -> Result<Reply> {
    let mut env = vec![
        ("HISTORIAN_COMMIT".to_owned(), request.commit.number.to_string()),
        ("HISTORIAN_COMMITS".to_owned(), request.commit.of.to_string()),
    ];
    if let Some(resume) = &request.resume {
        env.push(("HISTORIAN_ANSWER".to_owned(), resume.answer.clone()));
    }
    let finished = process::run(process::Spec {
        program: "sh",
        args: vec!["-c".into(), command.into()],
        cwd,
        env,
        stdin: Some(serde_json::to_vec(request)?),
        timeout,
        cap: 1 << 20,
    })?;
    let block = protocol::parse(&finished.stdout);
    let tail = || tail(&finished.output(), 20);
    Ok(match (block, finished.ending.success()) {
        (Ok(ResultBlock::Success(s)), true) => {
            let message = s
                .fields
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("message") || k.eq_ignore_ascii_case("commit message"))
                .map(|(_, v)| v.trim().to_owned())
                .unwrap_or_default();
            if message.is_empty() {
                Reply::Error {
                    description: "the commit writer's SUCCESS has no 'Message:' field".into(),
                    details: Some(tail()),
                }
            } else if let Some(ch) = crate::historian::message::control_character(&message) {
                Reply::Error {
                    description: format!(
                        "the commit writer's message holds the control character U+{:04X}",
                        u32::from(ch)
                    ),
                    details: None,
                }
            } else {
                Reply::Message(message + "\n")
            }
        }
        (Ok(ResultBlock::Success(_)), false) => Reply::Error {
            description: format!(
                "the commit writer said SUCCESS but ended with {}",
                finished.ending.describe()
            ),
            details: Some(tail()),
        },
        (Ok(ResultBlock::Question(_)), _) => {
            let text = crate::redact::redact(protocol::block_text(&finished.stdout)).into_owned();
            match protocol::parse(&text) {
                Ok(block @ ResultBlock::Question(_)) => Reply::Question { block, text },
                _ => Reply::Error {
                    description: "the commit writer's QUESTION does not read once its secrets are redacted".into(),
                    details: None,
                },
            }
        }
        (Ok(ResultBlock::Error(e)), _) => Reply::Error {
            description: e.description,
            details: e.details,
        },
        (Err(e), _) => Reply::Error {
            description: format!(
                "the commit writer printed no RESULT block ({}; {e})",
                finished.ending.describe()
            ),
            details: Some(tail()),
        },
    })
}

/// The last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A unified diff from tree `old` to tree `new`, cut at 256 KiB.
pub fn diff(repo: &Repo, old: Oid, new: Oid) -> Result<String> {
    let mut out = String::new();
    for delta in repo.tree_deltas(old, new, Renames::On)? {
        if out.len() > DIFF_CAP {
            out.push_str("[… diff cut …]\n");
            break;
        }
        let (a, b) = match &delta {
            Delta::Renamed { from, to, .. } => (from.as_str(), to.as_str()),
            other => (other.path(), other.path()),
        };
        let read = |e: Option<crate::git::Entry>| -> Result<Option<String>> {
            match e {
                None => Ok(Some(String::new())),
                Some(e) if e.kind == crate::git::EntryKind::Commit => Ok(Some(format!("Subproject commit {}\n", e.id))),
                Some(e) => {
                    let data = repo.read_blob(e.id)?;
                    Ok((!lines::is_binary(&data)).then(|| String::from_utf8_lossy(&data).into_owned()))
                }
            }
        };
        match (read(delta.old())?, read(delta.new_entry())?) {
            (Some(x), Some(y)) => {
                let text = similar::TextDiff::from_lines(&x, &y)
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{a}"), &format!("b/{b}"))
                    .to_string();
                out.push_str(&format!("diff --git a/{a} b/{b}\n"));
                out.push_str(&text);
            }
            _ => out.push_str(&format!("diff --git a/{a} b/{b}\nBinary files differ\n")),
        }
    }
    Ok(out)
}
