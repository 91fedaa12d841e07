//! Every path of a run state's tree, named once (DESIGN §8.2).
//!
//! # Layout 2 (written by this version)
//!
//! ```text
//! run.json                         the run's index: layout, plan, plan_type, mode, status,
//!                                  current_step, total_steps, step counts by status, the
//!                                  failing steps (not passed, with an error), run id,
//!                                  session, executor, plan blob, conditions, summary, and
//!                                  previous_run (the last state commit of the run before
//!                                  this one on the same ref). Its size does not grow with
//!                                  the number of steps.
//! plan.md                          the plan as parsed at run start (one blob, shared)
//! steps/<N/1000>/<N/100>/<N/10>/
//!     steps.json                   the progress entries of the (at most ten) steps
//!                                  in this folder, one line each, by number: status,
//!                                  attempts, error, completed_at, commit, and one
//!                                  summary per recorded attempt (status, validation,
//!                                  duration, logged_at), and the attempts a killed
//!                                  process cut short (`interrupted`, when any)
//! steps/<N/1000>/<N/100>/<N/10>/<N>/
//!                                  step N's files, in folders of its thousand,
//!                                  hundred and ten (step 7: steps/0/0/0/7, step
//!                                  1234: steps/1/12/123/1234)
//!     attempt-<A>.yaml             the attempt's result record (the note format, §8.3)
//!     attempt-<A>.log              executor transcript and Verify output
//!     attempt-<A>.feedback         what the retry was told
//!     git                          where HEAD, its branch and the stash pointed before
//!     execution, unstorable, ignored-unkept, checkpoint, test-first.log
//!     snapshot/ index/ own/ ignored/ attempt-<A>.tree/ .base/ .in-place/ .interrupted/
//!                                  kept trees, each stored as a change (below)
//! ```
//!
//! A state commit writes `run.json`, the `steps.json` of the folders whose
//! steps it changed and the trees above them: the commit of step 9,999
//! writes as much as the commit of step 9. Everything else is shared with
//! the commit before. The folders above a step hold at most ten entries
//! each (the top one, ten per ten thousand steps), so the trees a commit
//! writes again stay small (one folder of a hundred steps would be
//! rewritten whole, about 3 kB, by every commit). The entries are kept by
//! tens rather than a file per step for the readers: `status <plan>`, `log`
//! and a resume read every entry, and one object per ten steps is a tenth
//! of the reading of two per step (the step's tree and its file).
//!
//! **Kept trees** are stored as what differs from a commit, never as a copy
//! of it: `<kept>/base` names the commit (the user's HEAD before the step; no
//! `base` means the empty tree), `<kept>/files/` holds the files that differ
//! from it (redacted, like every file of the state) and `<kept>/removed` the
//! paths it has that the kept tree does not (one JSON string a line); an
//! empty `base` stands for the empty tree. The
//! state so carries only what is not in the user's commits: a commit the user
//! made but has not pushed is referred to by its id, never carried by `sync`
//! (it stays reachable from the user's branch and its reflog). Git's own
//! files (`own`) and the ignored files (`ignored`) have an empty base: their
//! `files/` is all of them, redacted.
//!
//! # Layout 1 (written by earlier versions, read by this one)
//!
//! `progress.json` at the top listed every step; step N's files were at
//! `steps/<N>/`, and kept trees were whole trees (files identical to the
//! user's HEAD unredacted). A state in layout 1 is read as it is (`status`,
//! `log`, `show`, `export`, `sync`); a resume upgrades it to layout 2 in one
//! state commit (`state: layout 2 (upgraded from 1)`) before it goes on.

use std::fmt;

/// The layout this version writes.
pub const CURRENT: Layout = Layout::V2;

/// The run's index in layout 2.
pub const RUN_INDEX: &str = "run.json";
/// Layout 1's whole progress document.
pub const PROGRESS_V1: &str = "progress.json";
/// The plan as parsed at run start.
pub const PLAN: &str = "plan.md";
/// The folder of every step's entry.
pub const STEPS: &str = "steps";
/// The file of the entries of the steps in a folder of ten (layout 2).
pub const ENTRIES: &str = "steps.json";
/// The divisors naming the folders above a step in layout 2, outermost
/// first: step N lies in `steps/<N/1000>/<N/100>/<N/10>/<N>`.
const FOLDERS: [u32; 3] = [1000, 100, 10];

/// The version of a run state's tree layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layout {
    V1,
    V2,
}

impl Layout {
    pub fn number(self) -> u32 {
        match self {
            Layout::V1 => 1,
            Layout::V2 => 2,
        }
    }

    /// Step `n`'s folder.
    pub fn step(self, n: u32) -> StepPaths {
        StepPaths {
            dir: match self {
                Layout::V1 => format!("{STEPS}/{n}"),
                Layout::V2 => {
                    let [a, b, c] = FOLDERS.map(|d| n / d);
                    format!("{STEPS}/{a}/{b}/{c}/{n}")
                }
            },
        }
    }

    /// The file holding step `n`'s progress entry (layout 2), with those of
    /// the other steps of its folder of ten.
    pub fn entries(self, n: u32) -> String {
        let [a, b, c] = FOLDERS.map(|d| n / d);
        format!("{STEPS}/{a}/{b}/{c}/{ENTRIES}")
    }

    /// The folder of ten step `n` is in: steps share an [`entries`] file
    /// exactly when they share this number.
    ///
    /// [`entries`]: Layout::entries
    pub fn ten(n: u32) -> u32 {
        n / FOLDERS[FOLDERS.len() - 1]
    }

    /// The step numbers of the folder of ten numbered `ten` (see [`ten`]).
    ///
    /// [`ten`]: Layout::ten
    pub fn steps_of_ten(ten: u32) -> std::ops::RangeInclusive<u32> {
        let width = FOLDERS[FOLDERS.len() - 1];
        let first = ten.saturating_mul(width);
        first..=first.saturating_add(width - 1)
    }

    /// The step a state path belongs to, and the rest of the path
    /// (`steps/0/0/0/3/attempt-1.yaml` → `(3, "attempt-1.yaml")` in layout 2).
    pub fn step_of(self, path: &str) -> Option<(u32, &str)> {
        let mut rest = path.strip_prefix(STEPS)?.strip_prefix('/')?;
        if self == Layout::V2 {
            for _ in FOLDERS {
                rest = rest.split_once('/')?.1;
            }
        }
        let (n, name) = rest.split_once('/').unwrap_or((rest, ""));
        let n: u32 = n.parse().ok()?;
        (self.step(n).dir() == path[..path.len() - name.len()].trim_end_matches('/')).then_some((n, name))
    }

    /// How many folders lie between `steps/` and a step's own folder.
    pub fn depth(self) -> usize {
        match self {
            Layout::V1 => 0,
            Layout::V2 => FOLDERS.len(),
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// The paths of one step's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepPaths {
    dir: String,
}

impl StepPaths {
    pub fn dir(&self) -> &str {
        &self.dir
    }

    fn file(&self, name: &str) -> String {
        format!("{}/{name}", self.dir)
    }

    pub fn record(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.yaml"))
    }
    pub fn transcript(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.log"))
    }
    pub fn feedback(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.feedback"))
    }
    /// The worktree after the attempt (kept tree).
    pub fn after(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.tree"))
    }
    /// What the attempt started from (kept tree).
    pub fn base(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.base"))
    }
    /// The worktree an attempt verified in place started from.
    pub fn in_place(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.in-place"))
    }
    /// What an interrupted attempt had changed (kept tree).
    pub fn interrupted(&self, attempt: u32) -> String {
        self.file(&format!("attempt-{attempt}.interrupted"))
    }
    pub fn snapshot(&self) -> String {
        self.file("snapshot")
    }
    pub fn index(&self) -> String {
        self.file("index")
    }
    pub fn own(&self) -> String {
        self.file("own")
    }
    pub fn ignored(&self) -> String {
        self.file("ignored")
    }
    pub fn ignored_unkept(&self) -> String {
        self.file("ignored-unkept")
    }
    /// Where HEAD, its branch and the stash pointed before the step.
    pub fn git(&self) -> String {
        self.file("git")
    }
    pub fn checkpoint(&self) -> String {
        self.file("checkpoint")
    }
    pub fn execution(&self) -> String {
        self.file("execution")
    }
    pub fn unstorable(&self) -> String {
        self.file("unstorable")
    }
    pub fn test_first_log(&self) -> String {
        self.file("test-first.log")
    }
    /// A person's answers to an end-of-phase review's checks.
    pub fn answers(&self) -> String {
        self.file("answers")
    }
}

/// The parts of a kept tree in layout 2 (see the module's docs).
pub mod kept {
    /// The commit the files change (empty, or absent in a tree a layout
    /// upgrade wrapped: the empty tree).
    pub const BASE: &str = "base";
    /// The files that differ from the base.
    pub const FILES: &str = "files";
    /// The base's paths the kept tree lacks.
    pub const REMOVED: &str = "removed";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_fan_out_by_tens_in_layout_2() {
        assert_eq!(Layout::V2.step(7).record(1), "steps/0/0/0/7/attempt-1.yaml");
        assert_eq!(Layout::V2.step(1234).snapshot(), "steps/1/12/123/1234/snapshot");
        assert_eq!(Layout::V2.step(20_000).dir(), "steps/20/200/2000/20000");
        assert_eq!(Layout::V1.step(1234).snapshot(), "steps/1234/snapshot");
        assert_eq!(
            Layout::V2.step_of("steps/1/12/123/1234/attempt-2.log"),
            Some((1234, "attempt-2.log"))
        );
        assert_eq!(Layout::V1.step_of("steps/3/own"), Some((3, "own")));
        assert_eq!(Layout::V2.step_of("steps/0/0/0/3"), Some((3, "")));
        assert_eq!(Layout::V2.entries(7), "steps/0/0/0/steps.json");
        assert_eq!(Layout::V2.entries(1234), "steps/1/12/123/steps.json");
        assert_eq!(Layout::ten(19), Layout::ten(10));
        assert_ne!(Layout::ten(20), Layout::ten(19));
        assert_eq!(Layout::steps_of_ten(Layout::ten(1234)), 1230..=1239);
        // The entries of a folder are nobody's step.
        assert_eq!(Layout::V2.step_of("steps/0/0/0/steps.json"), None);
        // A path whose folders do not match its step is not a step's.
        assert_eq!(Layout::V2.step_of("steps/0/0/1/3/own"), None);
        assert_eq!(Layout::V2.step_of("steps/0/3/own"), None);
        assert_eq!(Layout::V2.step_of("plan.md"), None);
    }
}
