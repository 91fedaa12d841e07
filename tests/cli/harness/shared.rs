//! A bare remote and two clones of it, for the tests of state that travels.

use std::path::{Path, PathBuf};

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;

pub struct Shared {
    pub env: TestEnv,
    pub remote: PathBuf,
    pub a: PathBuf,
    pub b: PathBuf,
}

impl Shared {
    /// A remote holding one commit and a committed two-step plan, cloned twice.
    pub fn new() -> Shared {
        let env = TestEnv::new();
        let seed = env.repo("seed");
        write(
            &seed.join("plan.md"),
            &plan(&[
                StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
                StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
            ]),
        );
        env.git(&seed, &["add", "plan.md"]);
        env.git(&seed, &["commit", "-q", "-m", "add the plan"]);
        let remote = env.root().join("remote.git");
        env.git(
            env.root(),
            &[
                "clone",
                "-q",
                "--bare",
                seed.to_str().unwrap(),
                remote.to_str().unwrap(),
            ],
        );
        let a = env.root().join("a");
        let b = env.root().join("b");
        for clone in [&a, &b] {
            env.git(
                env.root(),
                &["clone", "-q", remote.to_str().unwrap(), clone.to_str().unwrap()],
            );
        }
        Shared { env, remote, a, b }
    }

    /// Runs `plan.md` in `clone` (it must complete).
    pub fn run_plan(&self, clone: &Path) {
        let _ = self.env.run(clone, &["ultraplan", "run", "plan.md"]).expect_code(0);
    }

    pub fn sync(&self, clone: &Path) -> Output {
        self.env.run(clone, &["ultraplan", "sync"])
    }

    /// Every reference of `repo` with its value.
    pub fn refs(&self, repo: &Path) -> String {
        self.env
            .git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"])
    }

    /// The note of `commit` in `refs/notes/ultraplan` of `repo`, if any.
    pub fn note(&self, repo: &Path, commit: &str) -> Option<String> {
        let out = self.env.run(repo, &["notes", "--ref=ultraplan", "show", commit]);
        (out.code == 0).then_some(out.stdout)
    }

    pub fn rev(&self, repo: &Path, rev: &str) -> String {
        self.env.git(repo, &["rev-parse", rev]).trim().to_owned()
    }
}

/// A result note as a run writes it, with the fields the gate reads.
pub fn note_yaml(logged_at: &str, validation: &str, status: &str) -> String {
    format!(
        "logged_at: {logged_at}\nplan: plan.md\nplan_id: plan\ntask_index: 2\nsession: null\nrun_id: r1\nattempt: 1\nvalidation: {validation}\nwarnings: []\nresult:\n  status: {status}\n  task_name: 'Task 2: Step 2'\n"
    )
}
