//! `git ultraplan work [<remote>] [--once] [--jobs N] [--plan <slug>]`.

use std::io::{IsTerminal, Write};

use anyhow::{Context as _, Result};

use crate::cli::config::{self, duration};
use crate::cli::progress::StatusLine;
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::process;
use crate::ultraplan::distribute::{self, WorkOptions, Worked};
use crate::ultraplan::engine::{Event, Observer, RunOptions};
use crate::ultraplan::exec::Executor;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Take one session published on origin, run it, publish its work, exit:
    git ultraplan work --once

  Work until no published plan is left, two sessions at a time, with an agent:
    git ultraplan work -j 2 --executor claude
"#;

/// Run sessions of plans published on a remote by 'run --distribute'.
///
/// Looks at the remote's published work, claims an open session nobody
/// holds with a create-only push of refs/ultraplan/<plan>/claims/session-<N>
/// (of any number of racing clones exactly one wins; a claim whose holder
/// has been silent for longer than ultraplan.lockTimeout is taken over),
/// runs it as 'git ultraplan run --session N' in a worktree from the
/// published base with this clone's executor, refreshes the claim while it
/// runs (ultraplan.heartbeat), and pushes the session's branch, its state
/// and the closed claim in one atomic push, then its notes (as 'sync').
/// Only plans published on the remote named run, only the claimed session,
/// inside its scope fence; the published plan must be the plan at the
/// published base.
///
/// With --once it takes one session (or finds none) and exits: a CI job.
/// Without it, it goes on until no published plan is left unfinished.
///
/// While it runs session N it holds refs/ultraplan/<plan>/lock-work-N here;
/// the worktree (<git-common-dir>/ultraplan/work/<plan>/session-N) and
/// branch (ultraplan-work/<plan>/session-N) of a worker that was killed are
/// removed by 'git ultraplan clean', or by the next worker here to take that
/// session. A session that completed is published with its branch in one
/// atomic push; one whose branch is missing is published as failed.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The remote (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,

    /// Take one session (or none) and exit.
    #[arg(long)]
    pub once: bool,

    /// Run up to N sessions at once (N workers).
    #[arg(short = 'j', long, value_name = "N", value_parser = crate::cli::at_least_one::<u64>)]
    pub jobs: Option<u64>,

    /// Only the plan with this name (its file name without extension).
    #[arg(long, value_name = "SLUG")]
    pub plan: Option<String>,

    #[command(flatten)]
    pub exec: super::executor_args::ExecutorArgs,

    /// Print what was worked on as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 6] = [
    (Exit::Done, "every session taken completed, or there was none to take"),
    (
        Exit::Failed,
        "a session failed, crashed, was refused, or its claim was taken over",
    ),
    (
        Exit::Stopped,
        "a session stopped for a person, or API billing was not confirmed",
    ),
    (
        Exit::Fatal,
        "no such remote, the remote cannot be reached, or not a git repository",
    ),
    (Exit::Usage, "the command line was wrong"),
    (Exit::Interrupted, "interrupted (Ctrl-C)"),
];

/// The options a distributed run passes to the workers it runs here.
pub(super) fn worker_args(options: &RunOptions) -> Vec<String> {
    session_args(&options.executor, options.max_attempts, options.allow_unverified)
}

/// The options of a session's run (and of a worker's): billing is settled.
fn session_args(executor: &Executor, max_attempts: u32, allow_unverified: bool) -> Vec<String> {
    let mut args = vec![
        "--executor".to_owned(),
        match executor {
            Executor::Command(cmd) => cmd.clone(),
            other => other.id(),
        },
        "--max-attempts".into(),
        max_attempts.to_string(),
        "--yes".into(),
    ];
    if allow_unverified {
        args.push("--allow-unverified".into());
    }
    args
}

struct Progress<'a> {
    status: &'a StatusLine,
    ui: Ui,
}

impl Observer for Progress<'_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Warning(message) => {
                self.status.clear();
                self.ui.warning(message);
            }
            Event::Progress(line) => self.status.set_text(line),
            _ => {}
        }
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let ui = Ui { quiet: global.quiet };
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let cfg = workspace.config();
    let remote = crate::ultraplan::sync::resolve_remote(repo, args.remote.as_deref())?;
    let executor = Executor::parse(
        &args
            .exec
            .executor
            .clone()
            .unwrap_or_else(|| config::string(cfg, &config::EXECUTOR)),
    );
    if executor == Executor::Manual {
        return Err(crate::error::FatalWithHint {
            message:
                "the manual executor cannot work on distributed sessions: nobody would be there to make the changes"
                    .into(),
            hint: "pick shell, an agent (git ultraplan agents lists them) or a command line with --executor".into(),
        }
        .into());
    }
    if !super::billing::billing_confirmed(&executor, args.exec.yes, cfg, &ui)? {
        return Ok(Exit::Stopped);
    }
    let program = std::env::current_exe().context("cannot find the git-ultraplan binary")?;
    process::install_interrupt_handler();
    if let Some(jobs) = args.jobs.filter(|n| *n > 1) {
        return in_parallel(&args, &remote, jobs, &program);
    }
    let max_attempts = args.exec.max_attempts(cfg)?;
    let child_args = session_args(&executor, max_attempts, args.exec.allow_unverified);
    let opts = WorkOptions {
        remote,
        once: args.once,
        plan: args.plan.clone(),
        program,
        child_args,
        lock_timeout: duration(cfg, &config::LOCK_TIMEOUT)?,
        heartbeat: duration(cfg, &config::HEARTBEAT)?,
        poll: (
            std::time::Duration::from_millis(200),
            duration(cfg, &config::POLL_INTERVAL)?,
        ),
    };
    let status = StatusLine::new(!global.quiet && std::io::stderr().is_terminal());
    let worked = distribute::work(repo, &opts, &mut Progress { status: &status, ui })?;
    drop(status);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&worked)?)?;
    } else {
        out.write_all(render(&worked, &opts.remote).as_bytes())?;
    }
    out.flush()?;
    if process::interrupted() {
        return Ok(Exit::Interrupted);
    }
    Ok(exit_of(&worked))
}

fn render(worked: &[Worked], remote: &str) -> String {
    if worked.is_empty() {
        return format!("no open session on '{remote}' to take\n");
    }
    let mut out = String::new();
    for w in worked {
        out.push_str(&format!(
            "{} session {}: {}{}{} (log: {})\n",
            w.plan,
            w.session,
            w.result,
            if w.published {
                format!(", published to '{remote}'")
            } else {
                String::new()
            },
            w.took_over
                .as_ref()
                .map(|h| format!(", taken over from {h}"))
                .unwrap_or_default(),
            w.log
        ));
    }
    out
}

fn exit_of(worked: &[Worked]) -> Exit {
    let results: Vec<&str> = worked.iter().map(|w| w.result.as_str()).collect();
    if results
        .iter()
        .any(|r| matches!(*r, "failed" | "crashed" | "refused" | "lost"))
    {
        Exit::Failed
    } else if results.contains(&"interrupted") {
        Exit::Interrupted
    } else if results.contains(&"stopped") {
        Exit::Stopped
    } else {
        Exit::Done
    }
}

/// `--jobs N`: N workers, each this command without --jobs; the worst exit.
fn in_parallel(args: &Args, remote: &str, jobs: u64, program: &std::path::Path) -> Result<Exit> {
    let mut children = Vec::new();
    for _ in 0..jobs {
        let mut command = std::process::Command::new(program);
        command.arg("work");
        if args.once {
            command.arg("--once");
        }
        if let Some(plan) = &args.plan {
            command.args(["--plan", plan]);
        }
        if let Some(executor) = &args.exec.executor {
            command.args(["--executor", executor]);
        }
        if let Some(n) = args.exec.max_attempts {
            command.args(["--max-attempts", &n.to_string()]);
        }
        if args.exec.allow_unverified {
            command.arg("--allow-unverified");
        }
        command.arg("--yes").arg(remote);
        children.push(process::spawn_registered(&mut command)?);
    }
    let mut worst = Exit::Done;
    for mut child in children {
        let code = child.wait()?.code();
        process::unregister(child.id());
        let exit = match code {
            Some(0) => Exit::Done,
            Some(1) => Exit::Failed,
            Some(3) => Exit::Stopped,
            Some(130) => Exit::Interrupted,
            _ => Exit::Fatal,
        };
        if exit as i32 > worst as i32 {
            worst = exit;
        }
    }
    Ok(worst)
}
