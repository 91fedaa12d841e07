//! `git ultraplan sync [<remote>] [--dry-run] [--json]` and `sync --setup|--unset`.

use std::io::Write;

use anyhow::Result;

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::sync::{self, setup, Action, Relation, SyncOptions, SyncReport};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Once per clone: let plain git fetch the results and git log show them:
    git ultraplan sync --setup

  Exchange results, run states and outcomes with origin:
    git ultraplan sync

  What a sync with another remote would do, writing nothing:
    git ultraplan sync --dry-run upstream
"#;

/// Exchange results, run states and outcomes with a remote; nothing is overwritten.
///
/// Fetches the remote's notes (refs/notes/ultraplan) into
/// refs/notes/remotes/<remote>/ultraplan and its run states and outcomes
/// into refs/ultraplan-remotes/<remote>/ (never locks), then merges locally:
/// a note on one side only is taken, two different notes on one commit become
/// a YAML stream of both (ordered by logged_at), a run state that
/// fast-forwards moves, and two run states that diverged are both kept (the
/// remote's under refs/ultraplan-remotes/; `status` and `log` show both and
/// say how to pick). Then it pushes what is new, fast-forward only (--atomic
/// where the server supports it); a push that loses a race is refetched,
/// remerged and retried, never forced. Locks never travel.
///
/// Nothing fetched is trusted: a notes or outcomes reference of the remote
/// that is no commit is refused (and our copy of it put back, so that git
/// log never reads it as notes); every outcome file is checked against the
/// store's layout (outcomes|plans|training/<agent>/<id>.yaml, a record that
/// reads and holds the id its name says) and a chain with one that is not,
/// or that drops records ours holds, is refused; a note must read as YAML
/// nested at most 64 levels. Whatever is refused is named, nothing is taken
/// from it, ours is kept and not pushed over it, and sync exits 1.
///
/// The remote is the argument, else the current branch's upstream remote,
/// else origin.
///
/// With --setup, configures git instead so that plain git does the right
/// thing from then on: `git fetch` brings the notes, `git commit --amend` and
/// `git rebase` carry a checkpoint's result to the rewritten commit, and
/// `git log` shows results. --unset undoes that.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The remote (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,

    /// Report what would be fetched, merged and pushed; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Configure the remote's notes fetch refspec, notes.rewriteRef and
    /// notes.displayRef (idempotent) instead of syncing.
    #[arg(long, conflicts_with_all = ["dry_run", "unset"])]
    pub setup: bool,

    /// Remove what --setup configured.
    #[arg(long, conflicts_with = "dry_run")]
    pub unset: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 4] = [
    (
        Exit::Done,
        "everything was exchanged (diverged run states are kept side by side)",
    ),
    (
        Exit::Failed,
        "the remote refused the push; or holds a note that is not YAML (that note was skipped, the others taken, and ours not pushed); or an outcome file that is no record, or a notes or outcomes reference that is no commit (nothing was taken from what was refused); or a note of ours would be refused by the pre-push gate (no notes were pushed)",
    ),
    (
        Exit::Fatal,
        "no such remote, the remote cannot be reached, or not a git repository",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// The library's options from the command line and the configuration.
fn options(args: &Args, workspace: &Workspace) -> Result<SyncOptions> {
    Ok(SyncOptions {
        remote: args.remote.clone(),
        dry_run: args.dry_run,
        lock_timeout: duration(workspace.config(), &config::LOCK_TIMEOUT)?,
    })
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let ui = Ui { quiet: global.quiet };
    let mut out = std::io::stdout().lock();
    if args.setup || args.unset {
        let remote = sync::resolve_remote(repo, args.remote.as_deref())?;
        let changed = if args.setup {
            setup::setup(repo, &remote)?
        } else {
            setup::unset(repo, &remote)?
        };
        if args.json {
            let key = if args.setup { "added" } else { "removed" };
            writeln!(out, "{}", serde_json::json!({ "remote": remote, key: changed }))?;
        } else if changed.is_empty() {
            writeln!(
                out,
                "nothing to change: '{remote}' is {}set up",
                if args.setup { "already " } else { "not " }
            )?;
        } else {
            for line in &changed {
                writeln!(out, "{} {line}", if args.setup { "set" } else { "unset" })?;
            }
        }
        return Ok(Exit::Done);
    }
    let report = sync::sync(repo, &options(&args, &workspace)?)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        render(&mut out, &report)?;
    }
    warn(&ui, repo, &report)?;
    Ok(if report.incomplete() { Exit::Failed } else { Exit::Done })
}

fn render(out: &mut impl Write, r: &SyncReport) -> Result<()> {
    let would = if r.dry_run { "would be " } else { "" };
    writeln!(
        out,
        "sync with '{}'{}",
        r.remote,
        if r.dry_run { " (dry run)" } else { "" }
    )?;
    writeln!(out, "fetched: {}", list(&r.fetched))?;
    let notes = match r.notes {
        None if r
            .refs_refused
            .iter()
            .any(|x| x.name == crate::ultraplan::state::NOTES_REF) =>
        {
            "refused (ours are kept)".to_owned()
        }
        Some(Relation::NothingThere) => "the remote has none".to_owned(),
        None => "not here yet; a real sync fetches them, then merges".to_owned(),
        Some(Relation::Same) => "the same on both sides".to_owned(),
        Some(Relation::Ahead) => "ours are ahead".to_owned(),
        Some(Relation::FastForward) => format!("{} taken (fast-forward)", r.notes_taken),
        Some(Relation::Merged) => format!(
            "{} taken, {} commit(s) with two results kept as a YAML stream",
            r.notes_taken,
            r.notes_streamed.len()
        ),
    };
    writeln!(out, "notes: {notes}")?;
    for s in &r.states {
        let what = match s.action {
            Action::Same => continue,
            Action::Created => "taken from the remote",
            Action::FastForward => "fast-forwarded",
            Action::Push => "ours is newer",
            Action::KeptApart => "diverged: both kept",
            Action::RunningHere => "running here: left for the next sync",
            Action::NotAState => "not a run state: left alone",
        };
        writeln!(out, "state {}: {what}", s.name)?;
    }
    if r.outcomes_taken > 0 {
        writeln!(out, "outcomes: {} taken", r.outcomes_taken)?;
    }
    writeln!(
        out,
        "pushed{}: {}",
        if would.is_empty() { "" } else { " (would be)" },
        list(&r.pushed)
    )?;
    if r.retries > 0 {
        writeln!(out, "retried: {} (the remote moved meanwhile)", r.retries)?;
    }
    Ok(())
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".into()
    } else {
        items.join(", ")
    }
}

fn warn(ui: &Ui, repo: &crate::git::Repo, r: &SyncReport) -> Result<()> {
    for name in &r.foreign {
        ui.warning(format!(
            "'{name}' on '{}' is not a git-ultraplan run state; left alone",
            r.remote
        ));
    }
    for d in sync::diverged(repo)?.iter().filter(|d| d.remote == r.remote) {
        ui.warning(format!(
            "run state '{}' diverged from '{}''s; both are kept",
            d.local, d.remote
        ));
        ui.hint(sync::pick_hint(d));
    }
    for path in &r.outcome_clashes {
        ui.warning(format!("outcome '{path}' differs on '{}'; ours is kept", r.remote));
    }
    for refused in &r.refs_refused {
        ui.error(format!(
            "'{}' on '{}' is refused: {}; ours is kept and nothing was taken from it",
            refused.name, r.remote, refused.why
        ));
    }
    let shown = 10;
    for refused in r.outcomes_refused.iter().take(shown) {
        ui.error(format!(
            "outcome file '{}' from '{}' is refused: {}",
            refused.name, r.remote, refused.why
        ));
    }
    if r.outcomes_refused.len() > shown {
        ui.error(format!(
            "… and {} more outcome files from '{}' are refused",
            r.outcomes_refused.len() - shown,
            r.remote
        ));
    }
    if !r.outcomes_refused.is_empty() {
        ui.hint(format!(
            "nothing was taken from '{}''s outcomes, and ours were not pushed over them; the remote's chain is in refs/ultraplan-remotes/{}/ultraplan-shared/outcomes",
            r.remote, r.remote
        ));
    }
    if !r.notes_refused.is_empty() {
        for refused in &r.notes_refused {
            ui.error(format!(
                "skipped the note on {} from '{}': {}",
                refused.commit, r.remote, refused.why
            ));
        }
        ui.hint(format!(
            "the other notes were taken, and ours are not pushed until that note is fixed on '{}' (in the clone that wrote it);\nread it with: git notes --ref=remotes/{}/ultraplan show <commit>",
            r.remote, r.remote
        ));
    }
    if !r.notes_unpushable.is_empty() {
        for refused in &r.notes_unpushable {
            ui.error(format!(
                "the note on {} was not pushed, as the pre-push gate would refuse it: {}",
                refused.commit, refused.why
            ));
        }
        ui.hint(
            "no notes were pushed; fix or remove that note (git notes --ref=ultraplan edit <commit>, or remove) and sync again",
        );
    }
    if let Some(why) = &r.push_refused {
        ui.error(why);
        ui.hint("what was fetched is merged here; nothing was forced. Run sync again once the remote accepts pushes");
    }
    Ok(())
}
