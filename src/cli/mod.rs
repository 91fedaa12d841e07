//! Command-line conventions both programs share, the way git does them:
//! exit statuses, `fatal:`/`error:`/`warning:`/`hint:` messages, color,
//! configuration keys, dates, and the `main` wrapper that turns errors into messages.
//! Nothing here knows about plans or branches.

pub mod color;
pub mod config;
pub mod date;
mod exit;
mod help;
pub mod man_pages;
pub mod progress;
pub mod shell;
pub mod shipped;
pub mod table;

use std::fmt::Display;
use std::io::Write;

pub use exit::Exit;

/// The options every command of both programs takes.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct GlobalArgs {
    /// Only print errors and the primary output: no progress, warnings, notes
    /// or hints (a run that completed prints nothing; warnings stay in the
    /// recorded results).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// When to color the output: always, never or auto (the default, honouring
    /// color.ui, NO_COLOR and TERM=dumb).
    #[arg(long, value_name = "WHEN", global = true)]
    pub color: Option<color::ColorWhen>,
}

/// Where a command writes its chatter (stderr): warnings, notes and hints
/// unless `-q`; errors always. Primary output goes to stdout and is the command's own.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    pub quiet: bool,
}

impl Ui {
    /// A warning, silenced by `-q` like all chatter (errors are not).
    pub fn warning(&self, message: impl Display) {
        if !self.quiet {
            eprintln_quiet(format_args!("warning: {message}"));
        }
    }

    pub fn error(&self, message: impl Display) {
        eprintln_quiet(format_args!("error: {message}"));
    }

    pub fn hint(&self, message: impl Display) {
        if !self.quiet {
            for line in message.to_string().lines() {
                eprintln_quiet(format_args!("hint: {line}"));
            }
        }
    }

    /// Informational chatter, silenced by `-q`.
    pub fn note(&self, message: impl Display) {
        if !self.quiet {
            eprintln_quiet(format_args!("{message}"));
        }
    }
}

/// Writes a line to stderr, ignoring a closed stream as git does.
fn eprintln_quiet(args: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}

/// A count the user gives that must be at least 1 (`--jobs`, `--max-files`):
/// for clap's `value_parser`, which otherwise names the type's whole range
/// ("0 is not in 1..18446744073709551615").
pub fn at_least_one<T>(text: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
{
    match text.trim().parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err("expected a whole number, at least 1".to_owned()),
    }
}

/// Before anything else a binary does: when started as the launcher of a
/// child that dies with us (see `process::launch`), becomes that child and
/// returns only when it could not (exit 127). Otherwise registers this
/// binary as the launcher of such children and returns `None`.
pub fn launcher() -> Option<std::process::ExitCode> {
    #[cfg(target_os = "linux")]
    {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if let Some(code) = crate::process::launched(&args) {
            return Some(code.into());
        }
        #[cfg(target_env = "gnu")]
        crate::process::settle_for_long_runs();
        if let Ok(binary) = std::env::current_exe() {
            crate::process::launch_through(binary);
        }
    }
    None
}

/// Runs a program: parses the command line with `command` (clap errors exit
/// 129, `-h`/`--help`/`--version` exit 0; `--help` opens the command's man
/// page when it is installed), calls `dispatch`, and prints any error once as
/// `fatal: <chain>` with exit 128 (an interruption as `error:` with exit
/// 130). A closed stdout ends quietly.
pub fn main_with<T: clap::FromArgMatches>(
    command: clap::Command,
    dispatch: impl FnOnce(T) -> anyhow::Result<Exit>,
) -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(page) = help::page_asked_for(&command, &args) {
        match man_pages::open_page(&page) {
            Some(Ok(exit)) => return exit.into(),
            Some(Err(err)) => {
                eprintln_quiet(format_args!("fatal: {}", fatal_message(&err)));
                return Exit::Fatal.into();
            }
            None => {}
        }
    }
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|matches| T::from_arg_matches(&matches));
    let args = match parsed {
        Ok(args) => args,
        Err(err) => return usage_error(err),
    };
    match dispatch(args) {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => Exit::Done.into(),
        Err(err) if err.downcast_ref::<crate::error::Interrupted>().is_some() => {
            eprintln_quiet(format_args!("error: {}", fatal_message(&err)));
            Exit::Interrupted.into()
        }
        Err(err) => {
            eprintln_quiet(format_args!("fatal: {}", fatal_message(&err)));
            if let Some(hinted) = err
                .chain()
                .find_map(|e| e.downcast_ref::<crate::error::FatalWithHint>())
            {
                for line in hinted.hint.lines() {
                    eprintln_quiet(format_args!("hint: {line}"));
                }
            }
            Exit::Fatal.into()
        }
    }
}

fn usage_error(err: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    let _ = err.print();
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => Exit::Done.into(),
        _ => Exit::Usage.into(),
    }
}

/// The error chain joined with `: `, without Rust's `(os error N)` suffixes,
/// so it reads like git's own messages. A cause whose text its wrapper's
/// message already ends with (an error type that prints its source) is
/// said once.
pub fn fatal_message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    let mut previous = String::new();
    for cause in err.chain() {
        let message = cause.to_string();
        if !previous.is_empty() && previous.ends_with(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
        previous = message;
    }
    strip_os_error(&text)
}

fn strip_os_error(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(" (os error ") {
        out.push_str(&rest[..start]);
        match rest[start..].find(')') {
            Some(end) => rest = &rest[start + end + 1..],
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Gives every subcommand its man-page name (`git-ultraplan-check`) and its
/// usage name (`git ultraplan check`), recursively.
pub fn name_subcommands(command: clap::Command) -> clap::Command {
    let display = command.get_display_name().unwrap_or(command.get_name()).to_owned();
    let bin = command.get_bin_name().unwrap_or(command.get_name()).to_owned();
    command.mut_subcommands(|sub| {
        let name = sub.get_name().to_owned();
        name_subcommands(
            sub.display_name(format!("{display}-{name}"))
                .bin_name(format!("{bin} {name}")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_error_suffixes_are_dropped() {
        assert_eq!(
            strip_os_error("cannot read 'x': No such file or directory (os error 2)"),
            "cannot read 'x': No such file or directory"
        );
        assert_eq!(strip_os_error("a (os error 2): b (os error 13)"), "a: b");
        assert_eq!(strip_os_error("plain"), "plain");
    }

    #[test]
    fn a_cause_its_wrapper_already_prints_is_said_once() {
        #[derive(Debug)]
        struct Repeats(std::io::Error);
        impl Display for Repeats {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "cannot open the index: {}", self.0)
            }
        }
        impl std::error::Error for Repeats {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::from_raw_os_error(2);
        let err = anyhow::Error::from(Repeats(io)).context("cannot read the status");
        assert_eq!(
            fatal_message(&err),
            "cannot read the status: cannot open the index: No such file or directory"
        );
        let plain = anyhow::Error::from(std::io::Error::from_raw_os_error(2)).context("cannot read 'x'");
        assert_eq!(fatal_message(&plain), "cannot read 'x': No such file or directory");
    }

    #[test]
    fn exit_codes_follow_git() {
        let codes: Vec<u8> = Exit::DOCUMENTED.iter().map(|(e, _)| e.code()).collect();
        assert_eq!(codes, vec![0, 1, 3, 128, 129, 130]);
    }

    #[test]
    fn broken_pipe_is_recognised_through_context() {
        let err =
            anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe)).context("writing the report");
        assert!(is_broken_pipe(&err));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
