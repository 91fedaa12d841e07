//! Running one agent headless and judging the run from both its report and
//! its process: exit codes lie, the adapter does not. An agent that exits 0
//! with an error result, prints no result, or ends its stream without the
//! final event has failed, in its own words; one that hangs is ended with
//! its whole process group at the deadline; a turn or budget limit and the
//! exit codes the agent documents become messages that say what to do.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use super::{Activity, Adapter, Agent, Call, Report};
use crate::process;

/// How to find and call one agent: `ultraplan.<agent>.path` and
/// `ultraplan.<agent>.args` (`ultraplan.claudePath` and
/// `ultraplan.claudeArgs` too, for claude).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub path: Option<String>,
    /// Extra arguments, after the adapter's own.
    pub args: Vec<String>,
}

/// One finished launch.
pub struct Launched {
    /// What the agent said.
    pub report: Report,
    pub ending: process::Ending,
    pub duration: Duration,
    /// The command line, stdout and stderr (capped, not yet redacted).
    pub transcript: String,
    /// The agent's session (reported, or named by the launch), to continue.
    pub session: Option<String>,
    /// It continued an earlier session.
    pub resumed: bool,
    /// Why the run failed, in the agent's own words where it gave them;
    /// `None` when the agent says it is done.
    pub failure: Option<String>,
}

/// The program that runs `agent`: `settings.path`, else the first of its
/// program names on PATH; `Err` says what is missing and how to fix it.
pub fn program(agent: Agent, settings: &Settings) -> Result<PathBuf, String> {
    let adapter = agent.adapter();
    if let Some(path) = settings.path.as_deref().filter(|p| !p.trim().is_empty()) {
        let p = PathBuf::from(path);
        if p.is_file() {
            return Ok(p);
        }
        return which::which(path).map_err(|_| {
            format!(
                "ultraplan.{}.path names '{path}', which is not a program",
                adapter.name()
            )
        });
    }
    adapter
        .programs()
        .iter()
        .find_map(|name| which::which(name).ok())
        .ok_or_else(|| {
            format!(
                "the {} executor needs the {}: {} is not on PATH (or set ultraplan.{}.path)",
                adapter.name(),
                adapter.title(),
                adapter
                    .programs()
                    .iter()
                    .map(|p| format!("'{p}'"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                adapter.name()
            )
        })
}

/// What `<program> --version` prints (its first line), asked with a short
/// deadline; `None` when it prints nothing or fails.
pub fn version(program: &std::path::Path) -> Option<String> {
    let shown = program.display().to_string();
    let finished = process::run(process::Spec {
        program: &shown,
        args: vec!["--version".into()],
        cwd: std::path::Path::new("/"),
        env: Vec::new(),
        stdin: None,
        timeout: Duration::from_secs(10),
        cap: 4096,
    })
    .ok()?;
    if !finished.ending.success() {
        return None;
    }
    finished
        .stdout
        .lines()
        .chain(finished.stderr.lines())
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

/// Runs `agent` for `call`, telling `on_activity` what it does as its
/// stream arrives. `Err` only when it cannot be started at all.
pub fn run(
    agent: Agent,
    settings: &Settings,
    call: &Call<'_>,
    timeout: Duration,
    cap: usize,
    on_activity: &mut dyn FnMut(&Activity),
) -> Result<Launched> {
    let adapter = agent.adapter();
    let program = program(agent, settings).map_err(anyhow::Error::msg)?;
    let overridden = settings.args.iter().any(|a| {
        adapter
            .permission_flags()
            .iter()
            .any(|f| a == f || a.starts_with(&format!("{f}=")))
    });
    let invocation = adapter
        .invocation(call, !overridden)
        .map_err(|why| anyhow::anyhow!("cannot run {}: {why}", adapter.name()))?;
    let mut args = invocation.args.clone();
    args.extend(settings.args.iter().cloned());
    args.extend(invocation.trailing.iter().cloned());
    let shown = program.display().to_string();
    let mut parser = adapter.parser();
    let finished = process::run_lines(
        process::Spec {
            program: &shown,
            args: args.clone(),
            cwd: call.workdir,
            env: invocation.env.clone(),
            stdin: invocation.stdin.clone().map(String::into_bytes),
            timeout,
            cap,
        },
        &mut |line| {
            if let Some(activity) = parser.line(line) {
                on_activity(&activity);
            }
        },
    )?;
    let report = parser.finish(&finished.stderr);
    let failure = judge(adapter, &report, &finished, timeout);
    let mut transcript = format!(
        "$ {} {}{}\n",
        agent.name(),
        args.iter().map(|a| shorten_word(a)).collect::<Vec<_>>().join(" "),
        if invocation.stdin.is_some() {
            " (prompt on stdin)"
        } else {
            ""
        }
    );
    transcript.push_str(&streams(&finished));
    Ok(Launched {
        session: report.session_id.clone().or(invocation.session.clone()),
        resumed: call.resume.is_some() && adapter.resumes(),
        report,
        ending: finished.ending,
        duration: finished.duration,
        transcript,
        failure,
    })
}

/// Why the run failed, or `None`.
fn judge(adapter: &dyn Adapter, report: &Report, finished: &process::Finished, timeout: Duration) -> Option<String> {
    let name = adapter.name();
    let own_words = || {
        report
            .error
            .clone()
            .or_else(|| last_lines(&finished.stderr, 5))
            .or_else(|| last_lines(&finished.stdout, 5).filter(|_| !report.finished))
    };
    let with_words = |head: String| match own_words() {
        Some(words) => format!("{head}: {words}"),
        None => head,
    };
    match finished.ending {
        process::Ending::TimedOut => {
            return Some(format!(
                "{name} did not finish within {} (ultraplan.executorTimeout); its whole process group was killed",
                human(timeout)
            ))
        }
        process::Ending::Interrupted => return Some("interrupted".into()),
        process::Ending::Signalled(s) => return Some(with_words(format!("{name} was killed by signal {s}"))),
        process::Ending::Exited(_) => {}
    }
    if let Some(limit) = report.limit {
        let head = format!("{name} stopped at {}", limit.describe());
        let todo = format!("raise it in ultraplan.{name}.args, or make the step smaller");
        return Some(match report.error.clone().or_else(|| last_lines(&finished.stderr, 5)) {
            Some(words) => format!("{head}: {words} ({todo})"),
            None => format!("{head} ({todo})"),
        });
    }
    let code = finished.ending.code();
    if code != 0 {
        return Some(match adapter.exit_meaning(code) {
            Some(meaning) => with_words(format!("{name} exited {code}: {meaning}")),
            None => with_words(format!("{name} exited {code}")),
        });
    }
    if let Some(error) = &report.error {
        return Some(format!("{name} exited 0 but reported an error: {error}"));
    }
    if !report.finished {
        let head = if finished.stdout.trim().is_empty() {
            format!("{name} exited 0 without printing any result")
        } else {
            format!("{name} ended its output without a final result event")
        };
        return Some(match last_lines(&finished.stderr, 5) {
            Some(words) => format!("{head}: {words}"),
            None => head,
        });
    }
    None
}

/// The last `n` non-empty lines of `text`, joined, if any.
fn last_lines(text: &str, n: usize) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines[lines.len().saturating_sub(n)..].join("\n"))
}

/// `30m`, `45s`, `1h 10m`.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

/// A word of the command line for the transcript: a prompt given as an
/// argument is shown by its length.
fn shorten_word(word: &str) -> String {
    if word.len() > 120 || word.contains('\n') {
        format!("<{} bytes>", word.len())
    } else if word.is_empty() || word.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
        format!("'{}'", word.replace('\'', "'\\''"))
    } else {
        word.to_owned()
    }
}

fn streams(finished: &process::Finished) -> String {
    let mut t = String::new();
    if !finished.stdout.is_empty() {
        t.push_str("--- stdout\n");
        t.push_str(&finished.stdout);
        if !t.ends_with('\n') {
            t.push('\n');
        }
    }
    if !finished.stderr.is_empty() {
        t.push_str("--- stderr\n");
        t.push_str(&finished.stderr);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, stdout: &str, stderr: &str) -> process::Finished {
        process::Finished {
            ending: process::Ending::Exited(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn exit_codes_lie_the_report_does_not() {
        let adapter = Agent::Gemini.adapter();
        let t = Duration::from_secs(60);
        let done = Report {
            finished: true,
            ..Report::default()
        };
        assert_eq!(judge(adapter, &done, &finished(0, "{}", ""), t), None);
        let said = Report {
            finished: true,
            error: Some("quota exceeded".into()),
            ..Report::default()
        };
        assert_eq!(
            judge(adapter, &said, &finished(0, "{}", ""), t).unwrap(),
            "gemini exited 0 but reported an error: quota exceeded"
        );
        assert_eq!(
            judge(adapter, &Report::default(), &finished(0, "", "boom\n"), t).unwrap(),
            "gemini exited 0 without printing any result: boom"
        );
        assert_eq!(
            judge(
                adapter,
                &Report::default(),
                &finished(0, "{\"type\":\"init\"}\n", ""),
                t
            )
            .unwrap(),
            "gemini ended its output without a final result event"
        );
        assert!(judge(adapter, &done, &finished(41, "", "no auth\n"), t)
            .unwrap()
            .starts_with("gemini exited 41: not signed in"));
        let limited = Report {
            finished: true,
            limit: Some(super::super::Limit::Turns),
            ..Report::default()
        };
        assert!(judge(adapter, &limited, &finished(0, "{}", ""), t)
            .unwrap()
            .starts_with("gemini stopped at its turn limit (raise it in ultraplan.gemini.args"));
        let timed_out = process::Finished {
            ending: process::Ending::TimedOut,
            ..finished(0, "", "")
        };
        assert_eq!(
            judge(adapter, &done, &timed_out, Duration::from_secs(1800)).unwrap(),
            "gemini did not finish within 30m (ultraplan.executorTimeout); its whole process group was killed"
        );
    }
}
