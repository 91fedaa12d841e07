//! `git ultraplan hook pre-push <remote> <url>` and `git ultraplan hook install`.

use std::io::{Read, Write};

use anyhow::{Context as _, Result};

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::sync::gate::{self, Finding, GateInput, Policy};
use crate::ultraplan::sync::install::{self, Installed, Uninstalled};

/// The pre-push gate over the results of pushed checkpoints.
#[derive(Debug, clap::Subcommand)]
pub enum HookCommand {
    PrePush(PrePushArgs),
    Install(InstallArgs),
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const PRE_PUSH_EXAMPLES: &str = r#"Examples:
  git runs it from the pre-push hook, with the pushed references on stdin:
    git ultraplan hook install
    git push origin feature

  Whether a push would pass the gate, pushing nothing (git runs the hook):
    git push --dry-run origin feature

  Only warn about failed results instead of refusing the push:
    git config ultraplan.prePush warn
"#;

/// Check the results of the commits a push adds (what a pre-push hook runs).
///
/// Reads git's pre-push lines (`<local ref> <local oid> <remote ref> <remote
/// oid>`) on standard input and looks at the commits the push would add to
/// the remote: those reachable from a pushed branch and from none of the
/// remote's tracking branches. A commit carrying a git-ultraplan result
/// (refs/notes/ultraplan) is refused when the result is INVALID, is not a
/// success, or does not parse; a branch is refused while a plan is still
/// running on it under a live lock. Results with warnings, and results not on
/// the remote yet, are warned about. Deletions, tags and references outside
/// refs/heads/ pass.
///
/// ultraplan.prePush decides what a refusal does: strict (the default) exits
/// 1 so git refuses the push, warn only says so, off looks at nothing.
#[derive(Debug, clap::Args)]
#[command(after_long_help = PRE_PUSH_EXAMPLES)]
pub struct PrePushArgs {
    /// The remote's name (git's first hook argument).
    pub remote: String,
    /// The remote's URL (git's second hook argument).
    pub url: Option<String>,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const INSTALL_EXAMPLES: &str = r#"Examples:
  Install the gate (a pre-push hook already there is kept and run first):
    git ultraplan hook install

  Remove it, putting the earlier hook back:
    git ultraplan hook install --uninstall
"#;

/// Install the pre-push gate into the hooks directory git uses.
///
/// Writes the script of hooks/pre-push into `$(git rev-parse --git-path
/// hooks)` (core.hooksPath honoured; linked worktrees share it). A pre-push
/// hook that is already there is kept as pre-push.ultraplan-chained and run
/// first with the same input; --uninstall removes the gate and puts it back.
/// Running install again updates the script.
#[derive(Debug, clap::Args)]
#[command(after_long_help = INSTALL_EXAMPLES)]
pub struct InstallArgs {
    /// Replace a hook kept by an earlier install with the current pre-push hook.
    #[arg(long)]
    pub force: bool,

    /// Remove the gate, restoring the hook it chained.
    #[arg(long, conflicts_with = "force")]
    pub uninstall: bool,
}

pub const PRE_PUSH_EXIT_STATUS: [(Exit, &str); 4] = [
    (Exit::Done, "the push may go ahead (also when only warnings were given)"),
    (
        Exit::Failed,
        "a pushed checkpoint's result, or a running plan, refuses the push",
    ),
    (
        Exit::Fatal,
        "malformed hook input, a bad ultraplan.prePush value, or not a git repository",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub const INSTALL_EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the hook was installed, updated or removed"),
    (
        Exit::Fatal,
        "a hook is in the way (not ours, or a kept hook exists: see --force), or not a git repository",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(command: HookCommand, global: &GlobalArgs) -> Result<Exit> {
    match command {
        HookCommand::PrePush(args) => pre_push(args, global),
        HookCommand::Install(args) => install(args, global),
    }
}

/// The gate's input from the command line, the pushed refs and the configuration.
fn options<'a>(args: &'a PrePushArgs, refs: &'a [gate::PushedRef], workspace: &Workspace) -> Result<GateInput<'a>> {
    Ok(GateInput {
        remote: &args.remote,
        refs,
        lock_timeout: duration(workspace.config(), &config::LOCK_TIMEOUT)?,
    })
}

fn pre_push(args: PrePushArgs, global: &GlobalArgs) -> Result<Exit> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("cannot read the pre-push input")?;
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let policy = Policy::parse(&config::string(workspace.config(), &config::PRE_PUSH))?;
    if policy == Policy::Off {
        return Ok(Exit::Done);
    }
    let refs = gate::parse_input(&input)?;
    let report = gate::check(repo, &options(&args, &refs, &workspace)?)?;
    let ui = Ui { quiet: global.quiet };
    let strict = policy == Policy::Strict;
    for f in &report.refused {
        let text = describe(f);
        if strict {
            ui.error(text);
        } else {
            ui.warning(text);
        }
        ui.hint(&f.hint);
    }
    for f in &report.warned {
        ui.warning(describe(f));
    }
    if report.not_on_remote > 0 {
        ui.warning(format!(
            "{} pushed result(s) are not on '{}' yet",
            report.not_on_remote, args.remote
        ));
        ui.hint(format!("git ultraplan sync {}", args.remote));
    }
    if report.refused.is_empty() {
        return Ok(Exit::Done);
    }
    if strict {
        ui.error(format!(
            "push refused by the git-ultraplan results gate ({} problem(s))",
            report.refused.len()
        ));
        ui.hint("fix and re-run the steps, or push anyway with 'git push --no-verify' or 'git config ultraplan.prePush warn'");
        Ok(Exit::Failed)
    } else {
        ui.warning("the push goes ahead (ultraplan.prePush=warn)");
        Ok(Exit::Done)
    }
}

/// `1a2b3c4 "subject": plan p.md, step 2: why`.
fn describe(f: &Finding) -> String {
    let mut text = if f.commit.is_empty() {
        format!("'{}'", f.subject)
    } else {
        format!("{} \"{}\"", f.commit, f.subject)
    };
    match (&f.plan, f.step) {
        (Some(plan), Some(step)) => text.push_str(&format!(": plan {plan}, step {step}")),
        (Some(plan), None) => text.push_str(&format!(": plan {plan}")),
        _ => {}
    }
    text.push_str(&format!(": {}", f.why));
    text
}

fn install(args: InstallArgs, _global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let mut out = std::io::stdout().lock();
    if args.uninstall {
        match install::uninstall(repo)? {
            Uninstalled::Removed(p) => writeln!(out, "removed {}", p.display())?,
            Uninstalled::Restored(p) => writeln!(out, "removed the gate; restored your hook at {}", p.display())?,
            Uninstalled::NothingThere(p) => writeln!(out, "nothing to remove: {} does not exist", p.display())?,
        }
        return Ok(Exit::Done);
    }
    match install::install(repo, args.force)? {
        Installed::New(p) => writeln!(out, "installed {}", p.display())?,
        Installed::Updated(p) => writeln!(out, "updated {}", p.display())?,
        Installed::Chained(p, kept) => writeln!(
            out,
            "installed {}; your hook was kept as {} and runs first",
            p.display(),
            kept.display()
        )?,
    }
    Ok(Exit::Done)
}
