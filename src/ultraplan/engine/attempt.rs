//! One attempt at a step (DESIGN §6.2–6.4), in four phases: execute (the
//! executor, or a person's work taken as it is), observe and scope (what
//! really changed, violations undone), judge (Verify run by ultraplan, the
//! Manifest, the executor's own word), record (the attempt's record, log and
//! tree in the run state). What follows an attempt — a checkpoint or the
//! failure policy — is the step's ([`super::step`]).

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::Result;

use super::outside::Outside;
use super::record::{self, AttemptFacts};
use super::{expecting, fault, retry, verify, Event, Run};
use crate::git::{FileChange, Oid, Snapshot};
use crate::process;
use crate::ultraplan::exec::{self, Claim, Outcome};
use crate::ultraplan::plan::{PlanKind, Step};
use crate::ultraplan::state::StepStatus;

/// A recorded attempt.
pub(super) struct Attempt {
    pub passed: bool,
    pub reason: Option<String>,
    /// The working tree after the attempt (scope violations already undone).
    pub observed: Snapshot,
    /// Observed changes since the step's snapshot, all allowed.
    pub changes: Vec<FileChange>,
    pub record: String,
    /// The executor could not start (and Verify did not pass either).
    pub blocked: bool,
    /// A session spec's Step 0 exited 77.
    pub sandbox_blocked: bool,
    /// The end of Verify's output, for the next attempt's prompt (`None`
    /// when Verify did not run).
    pub verify_tail: Option<String>,
}

pub(super) enum AttemptEnd {
    Done(Box<Attempt>),
    Waiting(String),
    Interrupted,
}

/// What the worktree shows after the executor: the observed tree, the
/// allowed changes, and why the attempt already fails (scope, unstorable
/// files), if it does.
struct Observed {
    tree: Snapshot,
    changes: Vec<FileChange>,
    reason: Option<String>,
    warnings: Vec<String>,
}

/// The verdict on an attempt.
struct Judgement {
    reason: Option<String>,
    verify_exit: Option<i32>,
    verify_summary: String,
    verify_output: String,
    blocked: bool,
    sandbox_blocked: bool,
}

/// A phase either goes on with its value or ends the attempt early.
enum Phase<T> {
    Go(T),
    End(AttemptEnd),
}

impl Run<'_> {
    /// One attempt: the executor (unless `base` is `None`: then the worktree
    /// as a person left it is verified), observation, scope, Verify, Manifest,
    /// the recorded result.
    pub(super) fn attempt(
        &mut self,
        step: &Step,
        snapshot: Oid,
        a: u32,
        base: Option<Oid>,
        feedback: Option<String>,
    ) -> Result<AttemptEnd> {
        // A step for a person (a checkpoint task, or a prose Verify): it waits
        // for them, and passes on the answer given with `--resume --answer`.
        let answered = match self.person_answer(step, base.is_none()) {
            Ok(answer) => answer,
            Err(prompt) => return Ok(AttemptEnd::Waiting(prompt)),
        };
        self.begin_attempt(step, a, base, feedback.as_deref())?;
        let started = Instant::now();
        let links = self.outside_links(snapshot)?;
        let outside = Outside::look(&self.workdir, &links);
        let outcome = match self.execute(step, a, base, answered.as_deref(), feedback)? {
            Phase::Go(outcome) => outcome,
            Phase::End(end) => return Ok(end),
        };
        let mut observed = self.observe(step, snapshot, base)?;
        let written = Outside::look(&self.workdir, &links).changed_since(&outside);
        if !written.is_empty() {
            let shown = written.len().min(5);
            let warning = format!(
                "changed outside the repository while it ran, where no snapshot holds it and no restore brings it back: {}{}",
                written[..shown].join(", "),
                if written.len() > shown { ", …" } else { "" }
            );
            self.warn(format!("step {}: {warning}", step.number));
            observed.warnings.push(warning);
        }
        self.note_links(&observed.changes)?;
        let judged = match self.judge(step, &outcome, &mut observed, answered.as_deref())? {
            Phase::Go(judged) => judged,
            Phase::End(end) => return Ok(end),
        };
        let attempt = self.record_attempt(step, a, &outcome, observed, judged, started)?;
        Ok(AttemptEnd::Done(Box::new(attempt)))
    }

    /// Saves that attempt `a` starts, from what (`base`, or the worktree as
    /// it is) and with what feedback.
    fn begin_attempt(&mut self, step: &Step, a: u32, base: Option<Oid>, feedback: Option<&str>) -> Result<()> {
        let n = step.number;
        self.state.progress.step_mut(n).attempts = a;
        self.state.progress.step_mut(n).status = StepStatus::Running;
        match base {
            Some(base) => self.keep_tree(&self.state.step_paths(n).base(a), base)?,
            None => self
                .state
                .put_text(&self.state.step_paths(n).in_place(a), "verify the worktree as it is\n")?,
        }
        if let Some(f) = feedback {
            self.state.put_text(&self.state.step_paths(n).feedback(a), f)?;
        }
        self.state.save(&format!("step {n} attempt {a}: started"))?;
        self.observer.event(Event::Attempt {
            number: n,
            attempt: a,
            max: self.opts.max_attempts,
        });
        Ok(())
    }

    /// Phase 1: the executor makes the change, unless the worktree is
    /// verified as a person left it.
    fn execute(
        &mut self,
        step: &Step,
        a: u32,
        base: Option<Oid>,
        answered: Option<&str>,
        feedback: Option<String>,
    ) -> Result<Phase<Outcome>> {
        let person_did_it = answered.is_some() && step.human.as_ref().is_some_and(|h| h.replaces_executor());
        let outcome = match base {
            Some(_) if !person_did_it && !step.check_only => {
                let (touch, never) = self.fence_lists(step);
                let resume = self.previous_session(step.number, a)?;
                let request = exec::Request {
                    plan: self.plan,
                    plan_path: &self.input.path,
                    step,
                    attempt: a,
                    max_attempts: self.opts.max_attempts,
                    feedback,
                    touch,
                    never_touch: never,
                    session: self.step_session(step).map(|s| s.number),
                    resume,
                };
                let ctx = exec::Context {
                    workdir: &self.workdir,
                    timeout: self.opts.executor_timeout,
                    cap: self.opts.transcript_cap,
                    result_file: self.result_file.clone(),
                    agent: &self.opts.agent,
                };
                let observer = &mut *self.observer;
                let number = step.number;
                exec::run(&self.opts.executor, &request, &ctx, &mut |text| {
                    observer.event(Event::Activity { number, text })
                })?
            }
            _ => Outcome::verified_in_place(),
        };
        fault::point("after-executor");
        if outcome.interrupted || process::interrupted() {
            return Ok(Phase::End(AttemptEnd::Interrupted));
        }
        if outcome.claim == Claim::Waiting {
            let instructions = outcome.instructions.clone().unwrap_or_default();
            return Ok(Phase::End(AttemptEnd::Waiting(instructions)));
        }
        Ok(Phase::Go(outcome))
    }

    /// Phase 2: what really changed since the step's snapshot, with changes
    /// outside the step's scope put back.
    fn observe(&mut self, step: &Step, snapshot: Oid, base: Option<Oid>) -> Result<Observed> {
        let n = step.number;
        let mut tree = self.repo.scan(&mut self.tracker)?;
        self.own_files_changed(n)?;
        fault::point("after-observe");
        let mut changes = self.repo.changes(snapshot, tree.tree)?;
        if base.is_none() {
            // Verifying what a person left: their edits to the plan itself
            // (a fixed Verify command) are theirs, neither the step's change
            // nor a violation; resume reads the plan as it is now.
            changes.retain(|c| Some(&c.path) != self.input.in_worktree.as_ref());
        }
        let (violations, mut warnings) = self.scope_check(step, &changes);
        warnings.extend(self.beyond_the_snapshot(step, &changes)?);
        for w in &warnings {
            self.warn(format!("step {n}: {w}"));
        }
        let mut reason = self.unstorable_made(n, &mut tree)?;
        if !violations.is_empty() {
            let paths: BTreeSet<String> = violations.iter().map(|(p, _)| p.clone()).collect();
            self.repo.restore(&tree, snapshot, Some(&paths))?;
            tree = self.overlay(&tree, snapshot, &paths)?;
            changes.retain(|c| !paths.contains(&c.path));
            let why: Vec<String> = violations.into_iter().map(|(_, w)| w).collect();
            let why = format!("scope violation: {} (restored)", why.join("; "));
            reason = Some(match reason {
                Some(earlier) => format!("{earlier}; {why}"),
                None => why,
            });
        }
        Ok(Observed {
            tree,
            changes,
            reason,
            warnings,
        })
    }

    /// Phase 3: Verify (run by ultraplan: the exit code decides), the
    /// Manifest, and what the executor said about a failure.
    fn judge(
        &mut self,
        step: &Step,
        outcome: &Outcome,
        observed: &mut Observed,
        answered: Option<&str>,
    ) -> Result<Phase<Judgement>> {
        let n = step.number;
        let warnings = &mut observed.warnings;
        let mut reason = observed.reason.take();
        let mut verify_exit = None;
        let mut verify_summary = "not run".to_owned();
        let mut verify_output = String::new();
        let mut sandbox_blocked = false;
        if let Some(answer) = answered {
            warnings.push(format!("answered by a person: {answer}"));
        } else if let (Some(h), Some(_)) = (&step.human, &step.verify) {
            warnings.push(format!("left for a person to check (not run): {}", h.text));
        }
        if reason.is_none() {
            match &step.verify {
                Some(v) => {
                    self.observer.event(Event::Verifying { number: n });
                    let checked = expecting::run(v, &self.workdir, self.opts)?;
                    fault::point("after-verify");
                    if process::interrupted() {
                        return Ok(Phase::End(AttemptEnd::Interrupted));
                    }
                    verify_exit = Some(checked.ending.code());
                    verify_summary = summary(&checked.tail(10), &checked.ending.describe());
                    verify_output = checked.output.clone();
                    if let Some(note) = &checked.note {
                        warnings.push(note.clone());
                    }
                    if let Some(failure) = checked.explain(&v.command) {
                        sandbox_blocked =
                            self.plan.kind == PlanKind::SessionSpec && n == 0 && checked.ending.code() == 77;
                        reason = Some(if sandbox_blocked {
                            "Step 0 exited 77: this sandbox cannot do what the session needs".into()
                        } else {
                            failure
                        });
                    }
                }
                None if answered.is_some() => {
                    verify_summary = format!("checked by a person: {}", answered.unwrap_or_default());
                    match self.review_issues.take() {
                        Some(issues) => {
                            verify_exit = Some(1);
                            reason = Some(issues);
                            // Fixed and resumed, the review asks every check again.
                            self.state.remove(&self.state.step_paths(n).answers());
                        }
                        None => verify_exit = Some(0),
                    }
                }
                None if step.verified_by.is_some() && outcome.claim == Claim::Success => {
                    let by = step.verified_by.unwrap_or_default();
                    verify_exit = Some(0);
                    verify_summary = format!(
                        "no Verify of its own; taken on the executor's word until step {by} checks it ({})",
                        self.plan.step(by).map_or(String::new(), |s| s.title.clone())
                    );
                    warnings.push(verify_summary.clone());
                }
                None if self.opts.allow_unverified && outcome.claim == Claim::Success => {
                    verify_exit = Some(0);
                    verify_summary = "no Verify command; accepted on the executor's word (--allow-unverified)".into();
                    warnings.push(verify_summary.clone());
                }
                None => match &step.human {
                    Some(h) => return Ok(Phase::End(AttemptEnd::Waiting(h.prompt()))),
                    None => {
                        reason = Some(
                            "the step has no Verify command (pass --allow-unverified to accept the executor's word)"
                                .into(),
                        );
                    }
                },
            }
        }
        if reason.is_none() {
            if let Some(manifest) = &step.manifest {
                let misses =
                    verify::audit_manifest(manifest, &self.workdir, &observed.changes, step.checkpoint.as_ref());
                if !misses.is_empty() {
                    reason = Some(misses.join("; "));
                }
            }
        }
        // The step asks for changes, the executor had nothing to run and
        // nothing changed: the work was not done, whatever Verify says
        // (DESIGN §5.2: `blocked`). A step without Changes only checks.
        if reason.is_none()
            && answered.is_none()
            && outcome.claim == Claim::Blocked
            && observed.changes.is_empty()
            && !step.changes.trim().is_empty()
        {
            reason = Some(match verify_exit {
                Some(0) => "nothing was changed, though Verify passes (if the step was done before, run it with --executor manual to verify it)".into(),
                _ => "nothing was changed".into(),
            });
        }
        if let (Some(r), Some(err)) = (&reason, &outcome.error) {
            if outcome.claim != Claim::Success && outcome.claim != Claim::Blocked {
                // An agent's own failure (its error, a limit, a hang) is
                // why the attempt failed; Verify's verdict follows it.
                reason = Some(match self.opts.executor.agent() {
                    Some(_) => format!("{err}; {r}"),
                    None => format!("{r}; the executor said: {err}"),
                });
            }
        }
        let blocked = reason.is_some() && outcome.claim == Claim::Blocked;
        if blocked {
            if let Some(err) = &outcome.error {
                reason = Some(format!("{err}; {}", reason.unwrap_or_default()));
            }
        }
        Ok(Phase::Go(Judgement {
            reason,
            verify_exit,
            verify_summary,
            verify_output,
            blocked,
            sandbox_blocked,
        }))
    }

    /// Phase 4: the attempt's record, log and tree in the run state. Saved
    /// by the caller: with the pending checkpoint when it passed.
    fn record_attempt(
        &mut self,
        step: &Step,
        a: u32,
        outcome: &Outcome,
        observed: Observed,
        judged: Judgement,
        started: Instant,
    ) -> Result<Attempt> {
        let n = step.number;
        let passed = judged.reason.is_none();
        let paths: Vec<String> = observed.changes.iter().map(|c| c.path.clone()).collect();
        let (record, _) = record::build(AttemptFacts {
            plan: self.plan,
            plan_path: &self.input.path,
            step,
            session: self.step_session(step).map(|s| s.number),
            run_id: &self.state.progress.run_id.clone(),
            attempt: a,
            executor: &self.opts.executor,
            outcome,
            changed: paths,
            verify_exit: judged.verify_exit,
            verify_summary: judged.verify_summary,
            passed,
            blocked: judged.blocked,
            reason: judged.reason.clone(),
            duration_ms: started.elapsed().as_millis() as u64,
            warnings: observed.warnings,
            root: &self.workdir,
        });
        let mut log = outcome.transcript.clone();
        if let Some(v) = &step.verify {
            log.push_str(&format!("\n--- verify: {}\n{}", v.command, judged.verify_output));
        }
        let verify_output = judged.verify_output.clone();
        let verify_ran = judged.verify_exit.is_some() && step.verify.is_some();
        self.state.put_record(n, a, &record)?;
        self.state.put_text(&self.state.step_paths(n).transcript(a), &log)?;
        self.keep_tree(&self.state.step_paths(n).after(a), observed.tree.tree)?;
        self.state.progress.step_mut(n).error = judged.reason.clone();
        Ok(Attempt {
            passed,
            reason: judged.reason,
            observed: observed.tree,
            changes: observed.changes,
            record,
            blocked: judged.blocked,
            sandbox_blocked: judged.sandbox_blocked,
            verify_tail: verify_ran.then(|| retry::verify_tail(&verify_output)),
        })
    }
}

/// A Verify's summary for the record: how it ended and the tail of its output.
/// Verify's ending and the tail of its output, redacted before they are
/// joined and cut: a secret read as the output's own lines (`NAME=value` at
/// a line's start runs to its end) is found before a prefix moves it.
fn summary(tail: &str, ending: &str) -> String {
    let tail = crate::redact::redact(tail.trim());
    if tail.is_empty() {
        format!("{ending}, no output")
    } else {
        let cut: String = tail.chars().take(500).collect();
        format!("{ending}: {cut}")
    }
}
