//! Help where git users look, for both programs.
//!
//! * `git <program> help [<command>…]` opens the command's man page, as
//!   `git help` does; with no man page installed it prints the command's
//!   full built-in help instead (never "No manual entry").
//! * `git <program> install [--man] [--completions] [--prefix <dir>]`
//!   writes the man pages and shell completions this binary carries (the
//!   same files as the repository's `man/` and `completions/`, built into
//!   it) where `man`, bash-completion, zsh and fish look under the prefix.
//!
//! (`git <program> --help` is turned into `git help <program>` by git
//! itself, which only opens a man page: `install --man` makes it work.)

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context as _, Result};

use super::{Exit, Ui};

/// Show a command's manual page, or its full built-in help when no manual
/// page is installed.
///
/// Opens `man git-<program>-<command>` when `man` finds that page (as `git
/// help` does); otherwise prints the same text the man page holds, from the
/// binary itself, and says how to install the pages.
#[derive(Debug, clap::Args)]
pub struct HelpArgs {
    /// The command (and subcommand) to show, e.g. `run` or `hook install`;
    /// none for the program's overview.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Install the man pages and shell completions this binary carries.
///
/// Writes the manual pages (`share/man/man1/`), bash completion
/// (`share/bash-completion/completions/`, loaded by git's completion when
/// you type `git <program> <TAB>`), zsh completion
/// (`share/zsh/site-functions/`) and fish completion
/// (`share/fish/vendor_completions.d/`) under the prefix. The default
/// prefix is the one the binary is installed under (`~/.cargo` for
/// `~/.cargo/bin/git-ultraplan`, `/usr/local` for `/usr/local/bin/…`), where
/// `man` and bash-completion find them through PATH; files of an older
/// version are replaced. Neither --man nor --completions: both.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// Install the man pages.
    #[arg(long)]
    pub man: bool,

    /// Install the bash, zsh and fish completions.
    #[arg(long)]
    pub completions: bool,

    /// Install under DIR (default: the prefix the binary is installed
    /// under, `<prefix>/bin/git-<program>`; else ~/.local).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub prefix: Option<PathBuf>,

    /// Print where each file would go, writing nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub const HELP_EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the help was shown"),
    (Exit::Fatal, "no such command, or the pager could not run"),
    (Exit::Usage, "the command line was wrong"),
];

pub const INSTALL_EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the files were installed (or, with --dry-run, listed)"),
    (
        Exit::Fatal,
        "a file could not be written (the directory is not writable: give --prefix)",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// `help`: the man page of `args.command` under `program`, or the built-in
/// help of that command of `cli`.
pub fn help(args: &HelpArgs, program: &str, cli: clap::Command, ui: &Ui) -> Result<Exit> {
    let mut command = cli;
    command.build();
    let mut found = &command;
    for name in &args.command {
        found = found
            .find_subcommand(name)
            .filter(|c| !c.is_hide_set())
            .ok_or_else(|| {
                anyhow!(
                    "'{}' is not a {program} command (see 'git {} help')",
                    args.command.join(" "),
                    &program[4..]
                )
            })?;
    }
    let page = std::iter::once(program.to_owned())
        .chain(args.command.iter().cloned())
        .collect::<Vec<_>>()
        .join("-");
    if let Some(shown) = open_page(&page) {
        return shown;
    }
    let text = found.clone().render_long_help().to_string();
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    ui.hint(format!(
        "no man page '{page}' is installed; 'git {} install --man' installs them",
        &program[4..]
    ));
    Ok(Exit::Done)
}

/// Opens the man page `page` (`git-ultraplan-run`) with `man`, when `man`
/// finds it: `help`, and a subcommand's `--help` (which git passes on to us,
/// where it turns `git <program> --help` into `git help <program>`). `None`
/// when the page is not installed: the caller prints the built-in help.
pub(super) fn open_page(page: &str) -> Option<Result<Exit>> {
    if !man_page_installed(page) {
        return None;
    }
    let status = std::process::Command::new("man")
        .arg(page)
        .status()
        .context("cannot run man");
    Some(status.map(|s| if s.success() { Exit::Done } else { Exit::Fatal }))
}

/// Whether `man` finds `page` (`man -w` prints its path and runs no pager).
fn man_page_installed(page: &str) -> bool {
    std::process::Command::new("man")
        .args(["-w", page])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `install`: writes `files` (paths as in the repository: `man/…`,
/// `completions/…`) under the prefix; prints each file written on stdout.
pub fn install(args: &InstallArgs, program: &str, files: &[(&str, &[u8])]) -> Result<Exit> {
    let prefix = match &args.prefix {
        Some(p) => p.clone(),
        None => default_prefix()?,
    };
    let (man, completions) = match (args.man, args.completions) {
        (false, false) => (true, true),
        both => both,
    };
    let mut out = std::io::stdout().lock();
    for (path, contents) in files {
        let Some(target) = destination(path, program, &prefix) else {
            continue;
        };
        let wanted = if path.starts_with("man/") { man } else { completions };
        if !wanted {
            continue;
        }
        if args.dry_run {
            writeln!(out, "would install {}", target.display())?;
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
        }
        std::fs::write(&target, contents).with_context(|| format!("cannot write '{}'", target.display()))?;
        writeln!(out, "installed {}", target.display())?;
    }
    out.flush()?;
    Ok(Exit::Done)
}

/// Where a carried file goes under `prefix`, by the conventions `man`,
/// bash-completion (lazy loading by command name, which git's completion
/// asks for as `git-<program>`), zsh and fish follow.
fn destination(path: &str, program: &str, prefix: &Path) -> Option<PathBuf> {
    let name = path.rsplit('/').next()?;
    let share = prefix.join("share");
    if path.starts_with("man/") {
        return Some(share.join("man/man1").join(name));
    }
    if name == format!("{program}.bash") {
        Some(share.join("bash-completion/completions").join(program))
    } else if name == format!("_{program}") {
        Some(share.join("zsh/site-functions").join(name))
    } else if name == format!("{program}.fish") {
        Some(share.join("fish/vendor_completions.d").join(name))
    } else {
        None
    }
}

/// The prefix the running binary is installed under (`<prefix>/bin/…`),
/// else `~/.local`.
fn default_prefix() -> Result<PathBuf> {
    let exe = std::env::current_exe().ok().and_then(|e| e.canonicalize().ok());
    if let Some(prefix) = exe
        .as_deref()
        .and_then(Path::parent)
        .filter(|bin| bin.file_name().is_some_and(|n| n == "bin"))
        .and_then(Path::parent)
    {
        return Ok(prefix.to_owned());
    }
    let home = std::env::var_os("HOME").ok_or_else(|| anyhow!("no HOME to install under; give --prefix"))?;
    Ok(PathBuf::from(home).join(".local"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_go_where_their_tools_look() {
        let p = Path::new("/p");
        let at = |path: &str| destination(path, "git-ultraplan", p).map(|d| d.display().to_string());
        assert_eq!(
            at("man/git-ultraplan-run.1").as_deref(),
            Some("/p/share/man/man1/git-ultraplan-run.1")
        );
        assert_eq!(
            at("completions/git-ultraplan.bash").as_deref(),
            Some("/p/share/bash-completion/completions/git-ultraplan")
        );
        assert_eq!(
            at("completions/_git-ultraplan").as_deref(),
            Some("/p/share/zsh/site-functions/_git-ultraplan")
        );
        assert_eq!(
            at("completions/git-ultraplan.fish").as_deref(),
            Some("/p/share/fish/vendor_completions.d/git-ultraplan.fish")
        );
        assert_eq!(at("completions/git-historian.fish"), None);
    }
}
