//! Plans in sessions and what a run in waves leaves: a plan builder with an
//! Execution Strategy, the repository it runs in, and the checks that nothing
//! of the run is left (worktrees, session branches, the lock).

use crate::harness::plans::StepSpec;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub struct Sess<'a> {
    pub n: u32,
    pub title: &'a str,
    pub wave: u32,
    pub deps: &'a str,
    pub touch: &'a str,
}

/// Two sessions of one wave: A touches `a.txt` (step 1), B `b.txt` (step 2).
pub fn side_by_side() -> [Sess<'static>; 2] {
    [
        Sess {
            n: 1,
            title: "A",
            wave: 1,
            deps: "none",
            touch: "`a.txt`",
        },
        Sess {
            n: 2,
            title: "B",
            wave: 1,
            deps: "none",
            touch: "`b.txt`",
        },
    ]
}

pub fn plan(steps: &[StepSpec<'_>], sessions: &[Sess<'_>], verification: &str) -> String {
    let body: String = steps.iter().map(StepSpec::render).collect();
    let mut strategy = String::from("## Execution Strategy\n\n");
    for s in sessions {
        strategy.push_str(&format!(
            "### Session {}: {}\n- **Steps:** {}\n- **Wave:** {}\n- **Depends on:** {}\n{}\n",
            s.n,
            s.title,
            s.n,
            s.wave,
            s.deps,
            if s.touch.is_empty() {
                String::new()
            } else {
                format!("- **Scope fence:** Touch: {}\n", s.touch)
            }
        ));
    }
    format!("# Sessions\n\n## Implementation Plan\n\n{body}{strategy}{verification}")
}

pub fn setup(env: &TestEnv, body: &str) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("shared.txt"), "one\ntwo\nthree\n");
    env.git(&repo, &["add", "shared.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "shared"]);
    write(&repo.join("plan.md"), body);
    repo
}

/// Nothing of the run is left: one worktree, no session branch, no lock,
/// and — once the background deletion is done — no worktree files at all.
pub fn assert_clean(env: &TestEnv, repo: &std::path::Path) {
    wait_for_trash(repo);
    assert_eq!(
        env.git(repo, &["worktree", "list"]).lines().count(),
        1,
        "only the main worktree"
    );
    assert_eq!(
        env.git(repo, &["branch", "--list", "ultraplan/*"]),
        "",
        "no session branch"
    );
    assert!(
        !repo.join(".git/ultraplan/worktrees/plan").exists(),
        "no worktree directory"
    );
    assert_eq!(
        env.git(repo, &["for-each-ref", "refs/ultraplan/plan/lock"]),
        "",
        "no lock"
    );
    env.assert_fsck(repo);
}

/// What a user looks at after a run, recorded: the history, the worktrees,
/// the session branches and the working tree (once the background deletion
/// of removed worktrees is done).
pub fn show_outcome(t: &mut Transcript<'_>, repo: &std::path::Path) {
    wait_for_trash(repo);
    let _ = t.run(repo, &["log", "--graph", "--format=%h %s"]).expect_code(0);
    let _ = t.run(repo, &["worktree", "list"]).expect_code(0);
    let _ = t.run(repo, &["branch", "--list", "ultraplan/*"]).expect_code(0);
    let _ = t.run(repo, &["status", "--short"]).expect_code(0);
}

/// Waits (up to 30 s) until the worktrees the run deleted in the
/// background are gone.
pub fn wait_for_trash(repo: &std::path::Path) {
    let dir = repo.join(".git/ultraplan/worktrees");
    let trash = || {
        std::fs::read_dir(&dir).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(".trash-"))
                .count()
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while trash() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "removed worktrees are still not deleted"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
