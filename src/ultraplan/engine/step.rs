//! One step (DESIGN §6.2–6.5): snapshot, scope, Test first, attempts with
//! feedback, observed changes as the truth, Verify run by ultraplan, the
//! result recorded, then a checkpoint or the failure policy. Every phase is
//! saved in the run state before the next begins; [`Run::recover`] picks a
//! step up from whatever phase a killed process left it in.

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::Result;

use super::record::{self, AttemptFacts};
use super::verify::{self, run_expecting};
use super::{fault, Event, Failure, Run};
use crate::git::{FileChange, Oid, Snapshot};
use crate::process;
use crate::ultraplan::exec::{self, Claim, Outcome};
use crate::ultraplan::plan::{FailurePolicy, PlanKind, Step};
use crate::ultraplan::state::{now, StepProgress, StepStatus};

pub(super) enum StepEnd {
    Passed,
    Skipped,
    Failed,
    Escalated,
    Blocked,
    Waiting,
    Interrupted,
}

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
}

pub(super) enum AttemptEnd {
    Done(Box<Attempt>),
    Waiting(String),
    Interrupted,
}

pub(super) enum Next {
    Retry { base: Oid, feedback: String },
    End(StepEnd),
}

impl Run<'_> {
    pub(super) fn run_step(&mut self, step: &Step) -> Result<StepEnd> {
        match self.state.progress.step(step.number).status {
            StepStatus::Running => self.recover(step),
            StepStatus::Escalated | StepStatus::Waiting => self.verify_in_place(step),
            _ => self.start(step),
        }
    }

    pub(super) fn start(&mut self, step: &Step) -> Result<StepEnd> {
        fault::point("step-start");
        let n = step.number;
        let snapshot = self.repo.scan(&mut self.tracker)?;
        // A step run again keeps its earlier attempts; their numbers go on.
        let first = self.state.progress.step(n).attempts + 1;
        self.state.remove(&format!("steps/{n}/checkpoint"));
        self.state
            .put_text(&format!("steps/{n}/execution"), &format!("{first}\n"))?;
        self.keep_tree(&format!("steps/{n}/snapshot"), snapshot.tree)?;
        self.record_git(n)?;
        let unstorable: String = snapshot.unstorable.iter().map(|p| format!("{p}\n")).collect();
        self.state.put_text(&format!("steps/{n}/unstorable"), &unstorable)?;
        *self.state.progress.step_mut(n) = StepProgress {
            status: StepStatus::Running,
            attempts: first - 1,
            ..Default::default()
        };
        self.state.progress.current_step = n;
        // Saved with the first attempt's start, before anything runs.
        fault::point("after-snapshot");
        if let Some(reason) = self.declared_scope_violation(step) {
            return self.end(step, StepStatus::Escalated, Some(reason));
        }
        if step.test_first.is_some() {
            self.test_first(step)?;
        }
        self.attempts(step, snapshot.tree, first, snapshot.tree, None)
    }

    /// The last attempt this execution of the step may make.
    pub(super) fn attempt_limit(&self, step: &Step) -> Result<u32> {
        let first = self
            .state
            .read_text(&format!("steps/{}/execution", step.number))?
            .and_then(|t| t.trim().parse::<u32>().ok())
            .unwrap_or(1);
        Ok(first + self.opts.max_attempts.max(1) - 1)
    }

    pub(super) fn attempts(
        &mut self,
        step: &Step,
        snapshot: Oid,
        first: u32,
        base: Oid,
        feedback: Option<String>,
    ) -> Result<StepEnd> {
        let (mut base, mut feedback) = (base, feedback);
        let max = self.attempt_limit(step)?;
        let mut a = first;
        loop {
            match self.attempt(step, snapshot, a, Some(base), feedback.take())? {
                AttemptEnd::Interrupted => return Ok(StepEnd::Interrupted),
                AttemptEnd::Waiting(text) => {
                    self.instructions = Some(text);
                    let why = match step.human {
                        Some(_) => "waiting for a person to check or decide",
                        None => "waiting for a person to make the change",
                    };
                    return self.end(step, StepStatus::Waiting, Some(why.into()));
                }
                AttemptEnd::Done(done) if done.passed => return self.checkpoint(step, a, &done),
                AttemptEnd::Done(done) => match self
                    .record_failure(step, a, &done)
                    .and_then(|_| self.after_failure(step, snapshot, a, a >= max, &done))?
                {
                    Next::End(end) => return Ok(end),
                    Next::Retry { base: b, feedback: f } => {
                        base = b;
                        feedback = Some(f);
                        a += 1;
                    }
                },
            }
        }
    }

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
        let n = step.number;
        // A step for a person (a checkpoint task, or a prose Verify): it waits
        // for them, and passes on the answer given with `--resume --answer`.
        let answered = match self.person_answer(step, base.is_none()) {
            Ok(answer) => answer,
            Err(prompt) => return Ok(AttemptEnd::Waiting(prompt)),
        };
        self.state.progress.step_mut(n).attempts = a;
        self.state.progress.step_mut(n).status = StepStatus::Running;
        match base {
            Some(base) => self.keep_tree(&format!("steps/{n}/attempt-{a}.base"), base)?,
            None => self.state.put_text(
                &format!("steps/{n}/attempt-{a}.in-place"),
                "verify the worktree as it is\n",
            )?,
        }
        if let Some(f) = &feedback {
            self.state.put_text(&format!("steps/{n}/attempt-{a}.feedback"), f)?;
        }
        self.state.save(&format!("step {n} attempt {a}: started"))?;
        self.observer.event(Event::Attempt {
            number: n,
            attempt: a,
            max: self.opts.max_attempts,
        });
        let started = Instant::now();
        let person_did_it = answered.is_some() && step.human.as_ref().is_some_and(|h| h.replaces_executor());
        let outcome = match base {
            Some(_) if !person_did_it => {
                let (touch, never) = self.fence_lists(step);
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
                };
                let ctx = exec::Context {
                    workdir: &self.workdir,
                    timeout: self.opts.executor_timeout,
                    cap: self.opts.transcript_cap,
                    result_file: self.result_file.clone(),
                    claude: &self.opts.claude,
                };
                exec::run(&self.opts.executor, &request, &ctx)?
            }
            _ => Outcome::verified_in_place(),
        };
        fault::point("after-executor");
        if outcome.interrupted || process::interrupted() {
            return Ok(AttemptEnd::Interrupted);
        }
        if outcome.claim == Claim::Waiting {
            return Ok(AttemptEnd::Waiting(outcome.instructions.clone().unwrap_or_default()));
        }
        let mut observed = self.repo.scan(&mut self.tracker)?;
        self.own_files_changed(n)?;
        fault::point("after-observe");
        let mut changes = self.repo.changes(snapshot, observed.tree)?;
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
        let mut reason = self.unstorable_made(n, &mut observed)?;
        if !violations.is_empty() {
            let paths: BTreeSet<String> = violations.iter().map(|(p, _)| p.clone()).collect();
            self.repo.restore(&observed, snapshot, Some(&paths))?;
            observed = self.overlay(&observed, snapshot, &paths)?;
            changes.retain(|c| !paths.contains(&c.path));
            let why: Vec<String> = violations.into_iter().map(|(_, w)| w).collect();
            let why = format!("scope violation: {} (restored)", why.join("; "));
            reason = Some(match reason {
                Some(earlier) => format!("{earlier}; {why}"),
                None => why,
            });
        }
        let mut verify_exit = None;
        let mut verify_summary = "not run".to_owned();
        let mut verify_output = String::new();
        let mut sandbox_blocked = false;
        if let Some(answer) = &answered {
            warnings.push(format!("answered by a person: {answer}"));
        } else if let (Some(h), Some(_)) = (&step.human, &step.verify) {
            warnings.push(format!("left for a person to check (not run): {}", h.text));
        }
        if reason.is_none() {
            match &step.verify {
                Some(v) => {
                    self.observer.event(Event::Verifying { number: n });
                    let checked = run_expecting(
                        &v.command,
                        v.expected.as_deref(),
                        v.expected_kind,
                        &self.workdir,
                        self.opts,
                    )?;
                    fault::point("after-verify");
                    if process::interrupted() {
                        return Ok(AttemptEnd::Interrupted);
                    }
                    verify_exit = Some(checked.ending.code());
                    verify_summary = summary(&checked.tail(10), &checked.ending.describe());
                    verify_output = checked.output.clone();
                    if let Some(note) = &checked.note {
                        warnings.push(note.clone());
                    }
                    if let Some(failure) = checked.failure {
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
                    verify_exit = Some(0);
                    verify_summary = format!("checked by a person: {}", answered.clone().unwrap_or_default());
                }
                None if self.opts.allow_unverified && outcome.claim == Claim::Success => {
                    verify_exit = Some(0);
                    verify_summary = "no Verify command; accepted on the executor's word (--allow-unverified)".into();
                    warnings.push(verify_summary.clone());
                }
                None => match &step.human {
                    Some(h) => return Ok(AttemptEnd::Waiting(h.prompt())),
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
                let misses = verify::audit_manifest(manifest, &self.workdir, &changes, step.checkpoint.as_ref());
                if !misses.is_empty() {
                    reason = Some(misses.join("; "));
                }
            }
        }
        if let (Some(r), Some(err)) = (&reason, &outcome.error) {
            if outcome.claim != Claim::Success && outcome.claim != Claim::Blocked {
                reason = Some(format!("{r}; the executor said: {err}"));
            }
        }
        let blocked = reason.is_some() && outcome.claim == Claim::Blocked;
        if blocked {
            if let Some(err) = &outcome.error {
                reason = Some(format!("{err}; {}", reason.unwrap_or_default()));
            }
        }
        let passed = reason.is_none();
        let paths: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
        let (record, _) = record::build(AttemptFacts {
            plan: self.plan,
            plan_path: &self.input.path,
            step,
            session: self.step_session(step).map(|s| s.number),
            run_id: &self.state.progress.run_id.clone(),
            attempt: a,
            executor: &self.opts.executor,
            outcome: &outcome,
            changed: paths,
            verify_exit,
            verify_summary,
            passed,
            blocked,
            reason: reason.clone(),
            duration_ms: started.elapsed().as_millis() as u64,
            warnings,
            root: &self.workdir,
        });
        let mut log = outcome.transcript.clone();
        if let Some(v) = &step.verify {
            log.push_str(&format!("\n--- verify: {}\n{verify_output}", v.command));
        }
        self.state.put_text(&format!("steps/{n}/attempt-{a}.yaml"), &record)?;
        self.state.put_text(&format!("steps/{n}/attempt-{a}.log"), &log)?;
        self.keep_tree(&format!("steps/{n}/attempt-{a}.tree"), observed.tree)?;
        self.state.progress.step_mut(n).error = reason.clone();
        // Saved by the caller: with the pending checkpoint when it passed.
        Ok(AttemptEnd::Done(Box::new(Attempt {
            passed,
            reason,
            observed,
            changes,
            record,
            blocked,
            sandbox_blocked,
        })))
    }

    /// Saves a failed attempt's record.
    pub(super) fn record_failure(&mut self, step: &Step, a: u32, done: &Attempt) -> Result<()> {
        let why = done.reason.as_deref().and_then(|r| r.lines().next()).unwrap_or("");
        self.state
            .save(&format!("step {} attempt {a}: failed ({why})", step.number))?;
        fault::point("after-record");
        Ok(())
    }

    /// The failure policy (DESIGN §6.5) after attempt `a`.
    pub(super) fn after_failure(
        &mut self,
        step: &Step,
        snapshot: Oid,
        a: u32,
        last: bool,
        done: &Attempt,
    ) -> Result<Next> {
        let reason = done.reason.clone().unwrap_or_else(|| "the step did not pass".into());
        if done.sandbox_blocked {
            return self.end(step, StepStatus::Blocked, Some(reason)).map(Next::End);
        }
        let policy = step.on_failure.action;
        if done.blocked && policy != FailurePolicy::Skip {
            // Trying again cannot help an executor that could not start.
            return self.end(step, StepStatus::Blocked, Some(reason)).map(Next::End);
        }
        let feedback = || {
            let mut f = format!("Attempt {a} failed: {reason}");
            if let Some(instructions) = &step.on_failure.instructions {
                f.push_str(&format!("\nOn failure ({}): {instructions}", policy.as_str()));
            }
            f
        };
        match policy {
            FailurePolicy::Escalate => self.end(step, StepStatus::Escalated, Some(reason)).map(Next::End),
            FailurePolicy::Skip => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                self.end(step, StepStatus::Skipped, Some(reason)).map(Next::End)
            }
            FailurePolicy::Revert | FailurePolicy::Retry if last => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                self.end(step, StepStatus::Failed, Some(reason)).map(Next::End)
            }
            FailurePolicy::Revert => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                Ok(Next::Retry {
                    base: snapshot,
                    feedback: feedback(),
                })
            }
            FailurePolicy::Retry => Ok(Next::Retry {
                base: done.observed.tree,
                feedback: feedback(),
            }),
        }
    }

    /// Puts everything back as it was before step `n`: HEAD, its branch and
    /// the stash, then the working tree (from `current`, what is there now),
    /// then the index.
    pub(super) fn restore_step(&mut self, n: u32, current: &Snapshot, snapshot: Oid) -> Result<()> {
        self.put_pointers_back(n)?;
        self.repo.restore(current, snapshot, None)?;
        self.put_index_back(n)?;
        self.put_own_files_back(n)?;
        self.put_ignored_back(n)?;
        fault::point("after-restore");
        Ok(())
    }

    /// Ends the step with `status`, keeping the worktree as it is.
    pub(super) fn end(&mut self, step: &Step, status: StepStatus, reason: Option<String>) -> Result<StepEnd> {
        let n = step.number;
        let p = self.state.progress.step_mut(n);
        p.status = status;
        p.error = reason.clone();
        if status == StepStatus::Skipped {
            p.completed_at = Some(now());
        }
        let attempts = p.attempts;
        if !matches!(status, StepStatus::Passed | StepStatus::Skipped) {
            self.failure = Some(Failure {
                step: Some(n),
                title: step.title.clone(),
                status,
                policy: step.on_failure.action.as_str().into(),
                error: reason.clone().unwrap_or_default(),
                attempts,
            });
        }
        let message = match reason.as_deref().and_then(|r| r.lines().next()) {
            Some(why) if !why.is_empty() => format!("step {n}: {} ({why})", status.as_str()),
            _ => format!("step {n}: {}", status.as_str()),
        };
        self.state.save(&message)?;
        Ok(match status {
            StepStatus::Passed => StepEnd::Passed,
            StepStatus::Skipped => StepEnd::Skipped,
            StepStatus::Failed => StepEnd::Failed,
            StepStatus::Escalated => StepEnd::Escalated,
            StepStatus::Blocked => StepEnd::Blocked,
            _ => StepEnd::Waiting,
        })
    }

    pub(super) fn test_first(&mut self, step: &Step) -> Result<()> {
        let n = step.number;
        let Some(v) = &step.verify else {
            self.warn(format!(
                "step {n}: Test first is given but there is no Verify to run it"
            ));
            return Ok(());
        };
        let checked = run_expecting(
            &v.command,
            v.expected.as_deref(),
            v.expected_kind,
            &self.workdir,
            self.opts,
        )?;
        let verdict = if checked.passed() {
            self.warn(format!("step {n}: Verify already passes before the step (Test first expects it to fail); the step may already be done"));
            "GREEN (unexpected: already passes)"
        } else {
            "RED (fails as expected)"
        };
        self.state.put_text(
            &format!("steps/{n}/test-first.log"),
            &format!("test first: {verdict}\n--- verify: {}\n{}", v.command, checked.output),
        )?;
        Ok(())
    }
}

fn summary(tail: &str, ending: &str) -> String {
    let tail = tail.trim();
    if tail.is_empty() {
        format!("{ending}, no output")
    } else {
        let cut: String = tail.chars().take(500).collect();
        format!("{ending}: {cut}")
    }
}
