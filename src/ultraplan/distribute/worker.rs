//! `git ultraplan work`: take a published session nobody holds, run it here,
//! and send its results back through the remote.
//!
//! A session is claimed by a create-only push of its claim (or, when the
//! holder's heartbeat is older than `ultraplan.lockTimeout`, by a push with
//! a lease on the stale claim): of any number of racing clones exactly one
//! wins. The winner runs `git-ultraplan run --session N` in a worktree from
//! the published base, refreshes its claim while it runs, and publishes the
//! session's branch, its state and the closed claim in one atomic push with
//! leases — a worker that lost its claim meanwhile publishes nothing — then
//! the notes through `sync`.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;

use super::place::Place;
use super::publish::{self, Held};
use super::{claim_ref, Claim, View, Work};
use crate::git::{Lease, Oid, Repo};
use crate::process;
use crate::redact::redact;
use crate::ultraplan::engine::{Event, Observer};
use crate::ultraplan::state::{Lock, Refs, RunState};

/// How a worker works.
#[derive(Clone, Debug)]
pub struct WorkOptions {
    pub remote: String,
    /// Take one session (or none) and stop.
    pub once: bool,
    /// Only this plan's sessions.
    pub plan: Option<String>,
    /// The git-ultraplan binary sessions run with.
    pub program: PathBuf,
    /// Options for each session's run (executor, attempts, `--yes`).
    pub child_args: Vec<String>,
    /// A claim older than this is taken over (`ultraplan.lockTimeout`).
    pub lock_timeout: Duration,
    /// How often a held claim is refreshed.
    pub heartbeat: Duration,
    /// The first and the longest pause between looks at the remote.
    pub poll: (Duration, Duration),
}

/// One session a worker took.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Worked {
    pub plan: String,
    pub session: u32,
    /// completed, failed, stopped, crashed, interrupted, refused, or lost
    /// (another clone took the claim over; nothing was published).
    pub result: String,
    /// Whether the branch, state and claim reached the remote.
    pub published: bool,
    /// The previous holder, when the claim was taken over.
    pub took_over: Option<String>,
    pub log: String,
}

/// Works until there is nothing left (or once); what was worked on.
pub fn work(repo: &Repo, opts: &WorkOptions, observer: &mut dyn Observer) -> Result<Vec<Worked>> {
    let mut done = Vec::new();
    let mut pause = opts.poll.0;
    loop {
        if process::interrupted() {
            break;
        }
        let view = View::read(repo, &opts.remote, opts.plan.as_deref())?;
        for problem in &view.problems {
            observer.event(Event::Warning(format!("skipped: {problem}")));
        }
        if let Some(claimed) = claim_one(repo, opts, &view)? {
            observer.event(Event::Progress(format!(
                "{}: session {} claimed{}",
                claimed.work.plan,
                claimed.session,
                claimed
                    .took_over
                    .as_ref()
                    .map(|h| format!(" (taken over from {h})"))
                    .unwrap_or_default()
            )));
            done.push(run_claimed(repo, opts, claimed, observer)?);
            pause = opts.poll.0;
            if opts.once {
                break;
            }
            continue;
        }
        let unfinished = view.works.values().any(|(_, w, _)| !w.finished);
        if opts.once || !unfinished {
            break;
        }
        observer.event(Event::Progress("waiting for a session to open or free up".into()));
        std::thread::sleep(pause);
        pause = (pause * 2).min(opts.poll.1);
    }
    Ok(done)
}

/// A session this worker holds.
struct Claimed {
    work: Work,
    plan_text: String,
    session: u32,
    /// The claim's blob on the remote now.
    claim: Oid,
    took_over: Option<String>,
}

impl Claimed {
    fn held(&self) -> Held<'_> {
        Held {
            work: &self.work.id,
            slug: &self.work.slug,
            session: self.session,
            claim: self.claim,
        }
    }
}

/// Claims the first session (by plan, then number) that is open and free,
/// or whose holder went silent. A lost race moves on to the next.
fn claim_one(repo: &Repo, opts: &WorkOptions, view: &View) -> Result<Option<Claimed>> {
    for (slug, (_, work, plan_text)) in &view.works {
        for n in work.open() {
            let (expect, took_over) = match view.claims.get(&(slug.clone(), n)) {
                None => (None, None),
                // A claim of an earlier run of the plan holds nothing now.
                Some((id, c)) if c.work != work.id => (Some(*id), None),
                Some((_, c)) if c.result.is_some() => continue,
                Some((id, c)) if c.expired(opts.lock_timeout) => (Some(*id), Some(c.holder())),
                Some(_) => continue,
            };
            let claim = repo.write_blob(redact(&Claim::mine(&work.id, n).render()).as_bytes())?;
            let lease = Lease {
                name: claim_ref(slug, n),
                new: Some(claim),
                expect,
            };
            if repo.push_leased(&opts.remote, &[lease], false)?.success {
                return Ok(Some(Claimed {
                    work: work.clone(),
                    plan_text: plan_text.clone(),
                    session: n,
                    claim,
                    took_over,
                }));
            }
        }
    }
    Ok(None)
}

/// Runs a claimed session and publishes what it made.
fn run_claimed(repo: &Repo, opts: &WorkOptions, mut claimed: Claimed, observer: &mut dyn Observer) -> Result<Worked> {
    let n = claimed.session;
    let work = claimed.work.clone();
    let work = &work;
    let refs = Refs::new(work.slug.clone());
    let place = Place::new(repo, &work.slug, n);
    let mut worked = Worked {
        plan: work.plan.clone(),
        session: n,
        result: String::new(),
        published: false,
        took_over: claimed.took_over.clone(),
        log: place.log.display().to_string(),
    };
    let base = work.base()?;
    repo.fetch_objects(&opts.remote, &[base])?;
    if let Some(why) = refuse_unpublished(repo, work, &claimed.plan_text, base)? {
        observer.event(Event::Warning(format!("{}: session {n} refused: {why}", work.plan)));
        worked.result = "refused".into();
        publish::close(repo, &opts.remote, &claimed.held(), "refused", None, None)?;
        return Ok(worked);
    }
    // The place is this worker's while it holds the lock: `clean` and the
    // next worker here remove a place whose worker is gone, with what it
    // left running.
    let lock_name = format!("{}lock-work-{n}", refs.prefix());
    let command = format!("git ultraplan work {}", opts.remote);
    let lock = match Lock::acquire(repo, &lock_name, &command, opts.lock_timeout) {
        Ok(lock) => lock,
        Err(e) => {
            worked.result = "refused".into();
            publish::close(repo, &opts.remote, &claimed.held(), "refused", None, None)?;
            return Err(e);
        }
    };
    for warning in crate::ultraplan::state::lock_file_warnings(&lock.lock_files) {
        observer.event(Event::Warning(warning));
    }
    let outcome = run_in_place(repo, opts, &mut claimed, &place, &mut worked, observer);
    let released = lock.release(repo);
    outcome?;
    released?;
    Ok(worked)
}

/// Runs the claimed session in its place (made fresh), publishes what it
/// made, and removes the place.
fn run_in_place(
    repo: &Repo,
    opts: &WorkOptions,
    claimed: &mut Claimed,
    place: &Place,
    worked: &mut Worked,
    observer: &mut dyn Observer,
) -> Result<()> {
    let n = claimed.session;
    let work = claimed.work.clone();
    let work = &work;
    let refs = Refs::new(work.slug.clone());
    let base = work.base()?;
    place.prepare(repo, base)?;
    let heartbeat = Heartbeat::start(repo, opts, claimed, &refs);
    let ran = place.run(opts, work, n, base);
    let (lost, last) = heartbeat.stop();
    let result = ran?;
    worked.result = result.clone();
    if lost {
        worked.result = "lost".into();
        observer.event(Event::Warning(format!(
            "{}: session {n}: the claim was taken over while it ran; nothing is published",
            work.plan
        )));
        place.remove(repo)?;
        return Ok(());
    }
    claimed.claim = last;
    let tip = repo.read_ref(&place.branch)?;
    let state = repo.read_ref(&refs.session(n))?;
    if result == "completed" && tip.is_none() {
        worked.result = "failed".into();
        observer.event(Event::Warning(format!(
            "{}: session {n} completed, but its branch '{}' is gone; closed as failed, to run again",
            work.plan,
            place.branch.trim_start_matches("refs/heads/")
        )));
    }
    worked.published = publish::close(repo, &opts.remote, &claimed.held(), &result, tip, state)?;
    if worked.published {
        let notes = crate::ultraplan::sync::sync(
            repo,
            &crate::ultraplan::sync::SyncOptions {
                remote: Some(opts.remote.clone()),
                dry_run: false,
                lock_timeout: opts.lock_timeout,
            },
        );
        if let Err(e) = notes {
            observer.event(Event::Warning(format!(
                "session {n}'s notes did not reach '{}' ({e:#}); 'git ultraplan sync' sends them",
                opts.remote
            )));
        }
    } else {
        observer.event(Event::Warning(format!(
            "{}: session {n}: the claim was taken over before its results were published",
            work.plan
        )));
        worked.result = "lost".into();
    }
    place.remove(repo)?;
    Ok(())
}

/// A worker runs only what was published: the plan at the published base
/// must be the published plan.
fn refuse_unpublished(repo: &Repo, work: &Work, plan_text: &str, base: Oid) -> Result<Option<String>> {
    if crate::ultraplan::plan::pattern::safe_relative_path(&work.plan).is_err() {
        return Ok(Some(format!(
            "the published plan path '{}' leaves the repository",
            work.plan
        )));
    }
    let tree = repo.commit_tree(base)?;
    Ok(match repo.read_path(tree, &work.plan)? {
        Some(bytes) if redact(&String::from_utf8_lossy(&bytes)) == plan_text => None,
        Some(_) => Some(format!(
            "'{}' at the published base differs from the published plan",
            work.plan
        )),
        None => Some(format!("the published base has no '{}'", work.plan)),
    })
}

/// Refreshes a held claim while its session runs, on its own thread.
struct Heartbeat {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<(bool, Oid)>,
    first: Oid,
}

impl Heartbeat {
    fn start(repo: &Repo, opts: &WorkOptions, claimed: &Claimed, refs: &Refs) -> Heartbeat {
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = repo.share();
        let (remote, every) = (opts.remote.clone(), opts.heartbeat);
        let (work_id, slug, n, state_ref) = (
            claimed.work.id.clone(),
            claimed.work.slug.clone(),
            claimed.session,
            refs.session(claimed.session),
        );
        let mut last = claimed.claim;
        let thread = std::thread::spawn(move || {
            let repo = shared.open();
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let mut claim = Claim::mine(&work_id, n);
                claim.step = RunState::load(&repo, &state_ref)
                    .ok()
                    .flatten()
                    .map(|s| s.progress.current_step);
                let Ok(blob) = repo.write_blob(redact(&claim.render()).as_bytes()) else {
                    continue;
                };
                let lease = Lease {
                    name: claim_ref(&slug, n),
                    new: Some(blob),
                    expect: Some(last),
                };
                match repo.push_leased(&remote, &[lease], false) {
                    Ok(outcome) if outcome.success => last = blob,
                    // Someone else holds it now: the run's results are not ours to publish.
                    Ok(outcome) if outcome.lost_a_race() => return (true, last),
                    // The remote is unreachable for a moment: try again next beat.
                    _ => {}
                }
            }
            (false, last)
        });
        Heartbeat {
            stop,
            thread,
            first: claimed.claim,
        }
    }

    /// Stops refreshing: whether the claim was lost, and its last value.
    fn stop(self) -> (bool, Oid) {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or((true, self.first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::testing::git;
    use crate::git::Workspace;

    /// Of `racers` clones pushing a claim on one session at the same moment,
    /// exactly one wins, in each of 100 trials: the create-only lease is the
    /// whole of the coordination.
    fn race(racers: usize) {
        let root = tempfile::tempdir().unwrap();
        let seed = root.path().join("seed");
        std::fs::create_dir_all(&seed).unwrap();
        git(&seed, &["init", "-q", "-b", "main"]);
        git(
            &seed,
            &[
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@example.com",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "seed",
            ],
        );
        git(root.path(), &["clone", "-q", "--bare", "seed", "remote.git"]);
        let clones: Vec<std::path::PathBuf> = (0..racers)
            .map(|i| {
                let name = format!("c{i}");
                git(root.path(), &["clone", "-q", "remote.git", &name]);
                root.path().join(name)
            })
            .collect();
        for trial in 0..100 {
            let name = claim_ref("plan", trial);
            let barrier = std::sync::Barrier::new(racers);
            let wins: usize = std::thread::scope(|scope| {
                let handles: Vec<_> = clones
                    .iter()
                    .map(|clone| {
                        let (barrier, name) = (&barrier, &name);
                        scope.spawn(move || {
                            let ws = Workspace::discover_in(clone).unwrap();
                            let repo = ws.repo().unwrap();
                            let claim = repo.write_blob(Claim::mine("run", trial).render().as_bytes()).unwrap();
                            let lease = Lease {
                                name: name.clone(),
                                new: Some(claim),
                                expect: None,
                            };
                            barrier.wait();
                            repo.push_leased("origin", &[lease], false).unwrap().success as usize
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            assert_eq!(wins, 1, "trial {trial}: {wins} of {racers} clones won one session");
        }
    }

    #[test]
    fn of_two_racing_clones_exactly_one_claims_the_session() {
        race(2);
    }

    #[test]
    fn of_five_racing_clones_exactly_one_claims_the_session() {
        race(5);
    }
}
