//! The shell a check runs in (a Verify, a condition, a Verification item):
//! strict, so a check cannot pass by accident.
//!
//! * `-o pipefail`, always: a pipe fails when any of its commands fails, so
//!   `npm test | tail -5` fails when the tests do. A one-line command keeps
//!   the shell's usual `;` and `||` (the seed's sandbox pre-flight, `git
//!   push --dry-run … | tee log; grep … log && exit 77 || true`, inspects a
//!   failure's output on purpose); `check` warns about `|| true`-style
//!   endings that make a Verify always pass.
//! * `-e` for a command of several lines (a fenced block): any failing line
//!   fails the check, as a script with `set -e` would — `false` then `true`
//!   fails. A deliberate `cmd || true` still passes.
//!
//! `sh` is used when it knows `pipefail` (bash, busybox ash, dash ≥ 0.5.13,
//! zsh as sh); else `bash` when installed (Debian's dash 0.5.12 has no
//! `pipefail`); else `sh` without it, and [`Strict::pipefail`] says so.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::Result;

use super::{run, Finished, Spec};

/// The shell checks run in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strict {
    pub program: String,
    /// Whether it runs with `pipefail`.
    pub pipefail: bool,
}

impl Strict {
    /// The options before `-c` for `command`.
    fn options(&self, command: &str) -> Vec<String> {
        let mut args = Vec::new();
        if command.trim().contains('\n') {
            args.push("-e".to_owned());
        }
        if self.pipefail {
            args.extend(["-o".to_owned(), "pipefail".to_owned()]);
        }
        args
    }
}

/// The shell for checks on this machine, found once per process.
pub fn strict() -> &'static Strict {
    static FOUND: OnceLock<Strict> = OnceLock::new();
    FOUND.get_or_init(|| {
        let knows_pipefail = |program: &str| {
            std::process::Command::new(program)
                .args(["-o", "pipefail", "-c", ":"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        for program in ["sh", "bash"] {
            if knows_pipefail(program) {
                return Strict {
                    program: program.into(),
                    pipefail: true,
                };
            }
        }
        Strict {
            program: "sh".into(),
            pipefail: false,
        }
    })
}

/// Runs `command` in the strict shell in `cwd`.
pub fn strict_shell(
    command: &str,
    cwd: &Path,
    env: Vec<(String, String)>,
    timeout: Duration,
    cap: usize,
) -> Result<Finished> {
    let shell = strict();
    let mut args = shell.options(command);
    args.extend(["-c".to_owned(), command.to_owned()]);
    run(Spec {
        program: &shell.program,
        args,
        cwd,
        env,
        stdin: None,
        timeout,
        cap,
    })
}

/// Whether `command` parses in the strict shell (`-n`: read, run nothing);
/// `Some(message)` with the shell's complaint when it does not.
pub fn syntax_error(command: &str) -> Option<String> {
    let shell = strict();
    let finished = run(Spec {
        program: &shell.program,
        args: vec!["-n".into(), "-c".into(), command.to_owned()],
        cwd: Path::new("/"),
        env: Vec::new(),
        stdin: None,
        timeout: Duration::from_secs(10),
        cap: 16 * 1024,
    })
    .ok()?;
    (!finished.ending.success()).then(|| {
        let text = finished.output();
        let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        // `sh: 1: Syntax error: …`, `bash: -c: line 2: syntax error: …`:
        // the message without the shell's own prefix.
        let message = line
            .strip_prefix(&format!("{}: ", shell.program))
            .unwrap_or(line)
            .trim_start_matches("-c: ");
        message.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cmd: &str) -> Finished {
        strict_shell(cmd, Path::new("."), Vec::new(), Duration::from_secs(10), 4096).unwrap()
    }

    #[test]
    fn any_failing_line_of_a_block_fails() {
        assert!(!check("false\ntrue").ending.success());
        assert!(check("false || true\ntrue").ending.success());
        assert!(check("true\ntrue").ending.success());
        // One line keeps the shell's own `;`: check warns about it.
        assert!(check("false; true").ending.success());
        assert_eq!(check("false | cat; exit 77").ending.code(), 77);
    }

    #[test]
    fn a_failing_pipe_fails_where_the_shell_allows() {
        let piped = check("false | cat").ending.success();
        assert_eq!(piped, !strict().pipefail);
    }

    #[test]
    fn syntax_errors_are_found_without_running() {
        assert!(syntax_error("if then fi").is_some());
        assert_eq!(syntax_error("touch /nonexistent/never && echo ok"), None);
    }
}
