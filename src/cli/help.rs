//! `--help` as git gives it: `git ultraplan run --help` opens the man page
//! `git-ultraplan-run`, as `git commit --help` opens `git-commit`, when the
//! pages are installed; `-h` stays the short usage. (git itself turns
//! `git ultraplan --help` into `git help ultraplan`, but passes a
//! subcommand's `--help` on to us.)

use std::ffi::OsString;

/// The man page a command line asks for with `--help` (the long form, before
/// any `--`): the page of the deepest subcommand named before it, as
/// [`super::name_subcommands`] names pages (`git-ultraplan-hook-install`).
pub fn page_asked_for(command: &clap::Command, args: &[OsString]) -> Option<String> {
    let mut current = command;
    for arg in args.iter().skip(1) {
        let arg = arg.to_str()?;
        match arg {
            "--help" => return Some(current.get_display_name().unwrap_or(current.get_name()).to_owned()),
            "--" => return None,
            _ if arg.starts_with('-') => {}
            _ => {
                if let Some(sub) = current.get_subcommands().find(|s| s.get_name() == arg) {
                    current = sub;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command() -> clap::Command {
        super::super::name_subcommands(
            clap::Command::new("git-ultraplan")
                .display_name("git-ultraplan")
                .subcommand(clap::Command::new("run").arg(clap::Arg::new("plan")))
                .subcommand(clap::Command::new("hook").subcommand(clap::Command::new("install"))),
        )
    }

    fn page(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        page_asked_for(&command(), &args)
    }

    #[test]
    fn the_page_of_the_subcommand_before_help() {
        assert_eq!(
            page(&["git-ultraplan", "run", "--help"]).as_deref(),
            Some("git-ultraplan-run")
        );
        assert_eq!(
            page(&["git-ultraplan", "run", "plan.md", "--help"]).as_deref(),
            Some("git-ultraplan-run")
        );
        assert_eq!(
            page(&["git-ultraplan", "hook", "install", "--help"]).as_deref(),
            Some("git-ultraplan-hook-install")
        );
        assert_eq!(page(&["git-ultraplan", "--help"]).as_deref(), Some("git-ultraplan"));
    }

    #[test]
    fn short_help_and_help_after_a_separator_are_not_pages() {
        assert_eq!(page(&["git-ultraplan", "run", "-h"]), None);
        assert_eq!(page(&["git-ultraplan", "run", "--", "--help"]), None);
        assert_eq!(page(&["git-ultraplan", "run", "plan.md"]), None);
    }
}
