//! Sessions run by other clones through a shared bare remote (DESIGN §18):
//! publishing, claiming (exactly one of racing workers wins), a worker
//! killed mid-session whose claim expires, an orchestrator killed between
//! merges, a conflicting wave, a remote that goes away — checked with the
//! real git in every clone and on the remote.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::plans::StepSpec;
use crate::harness::support::*;

/// Sessions 1 and 2 (wave 1) write `a.txt` and `b.txt`; session 3 (wave 2)
/// reads both. Each step first waits while `<markers>/block-<n>` exists.
pub(crate) fn plan(markers: &Path, conflicting: bool) -> String {
    let block = |n: u32| format!("while [ -f {}/block-{n} ]; do sleep 0.05; done", markers.display());
    let (s1, s2) = if conflicting {
        (
            format!("{}\nsed -i 's/two/TWO/' shared.txt", block(1)),
            format!("{}\nsed -i 's/two/2/' shared.txt", block(2)),
        )
    } else {
        (
            format!("{}\necho alpha > a.txt", block(1)),
            format!("{}\necho beta > b.txt", block(2)),
        )
    };
    let (f1, f2) = if conflicting {
        ("`shared.txt`", "`shared.txt`")
    } else {
        ("`a.txt`", "`b.txt`")
    };
    let s3 = format!("{}\ncat a.txt b.txt > c.txt", block(3));
    let steps = [
        StepSpec::new(1, f1, &s1, "test -s shared.txt"),
        StepSpec::new(2, f2, &s2, "test -s shared.txt"),
        StepSpec::new(3, "`c.txt`", &s3, "grep -q beta c.txt"),
    ];
    let body: String = steps.iter().map(StepSpec::render).collect();
    let fence = |t: &str| {
        if conflicting {
            String::new()
        } else {
            format!("- **Scope fence:** Touch: {t}\n")
        }
    };
    format!(
        "# Spread\n\n## Implementation Plan\n\n{body}## Execution Strategy\n\n\
         ### Session 1: Alpha\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n{}\n\
         ### Session 2: Beta\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n{}\n\
         ### Session 3: Both\n- **Steps:** 3\n- **Wave:** 2\n- **Depends on:** Sessions 1, 2\n{}\n",
        fence("`a.txt`"),
        fence("`b.txt`"),
        fence("`c.txt`")
    )
}

/// A bare remote and clones `names` of it, each configured to look at the
/// remote often and to give a silent claim up after two seconds.
pub(crate) struct Cluster {
    pub remote: PathBuf,
    markers: PathBuf,
}

pub(crate) fn cluster(env: &TestEnv, names: &[&str], conflicting: bool) -> Cluster {
    let seed = env.repo("seed");
    write(&seed.join("shared.txt"), "one\ntwo\nthree\n");
    env.git(&seed, &["add", "shared.txt"]);
    env.git(&seed, &["commit", "-q", "-m", "shared"]);
    let remote = env.root().join("remote.git");
    env.git(env.root(), &["clone", "-q", "--bare", "seed", "remote.git"]);
    let markers = env.root().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    for name in names {
        env.git(env.root(), &["clone", "-q", "remote.git", name]);
        let clone = env.root().join(name);
        env.git(&clone, &["config", "ultraplan.pollInterval", "300ms"]);
        env.git(&clone, &["config", "ultraplan.heartbeat", "500ms"]);
        env.git(&clone, &["config", "ultraplan.lockTimeout", "2s"]);
    }
    write(&env.root().join(names[0]).join("plan.md"), &plan(&markers, conflicting));
    Cluster { remote, markers }
}

impl Cluster {
    pub(crate) fn block(&self, n: u32) {
        write(&self.markers.join(format!("block-{n}")), "");
    }

    pub(crate) fn unblock(&self, n: u32) {
        let _ = std::fs::remove_file(self.markers.join(format!("block-{n}")));
    }

    /// The remote's reference `name`, if any.
    pub(crate) fn remote_ref(&self, env: &TestEnv, name: &str) -> Option<String> {
        let out = env.git(&self.remote, &["for-each-ref", "--format=%(objectname)", name]);
        Some(out.trim().to_owned()).filter(|s| !s.is_empty())
    }

    pub(crate) fn wait_for_ref(&self, env: &TestEnv, name: &str) {
        let start = Instant::now();
        while self.remote_ref(env, name).is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{name} never appeared on the remote"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The remote's claim on session `n`, as text.
    pub(crate) fn claim(&self, env: &TestEnv, n: u32) -> String {
        env.git(
            &self.remote,
            &["cat-file", "-p", &format!("refs/ultraplan/plan/claims/session-{n}")],
        )
    }

    pub(crate) fn work_json(&self, env: &TestEnv) -> serde_json::Value {
        serde_json::from_str(&env.git(&self.remote, &["show", "refs/ultraplan/plan/work:work.json"])).unwrap()
    }
}

pub(crate) fn finish(child: std::process::Child) -> Output {
    let out = child.wait_with_output().unwrap();
    Output::from(out)
}

pub(crate) fn merges(env: &TestEnv, repo: &Path) -> Vec<String> {
    env.subjects(repo)
        .into_iter()
        .filter(|s| s.starts_with("merge: ultraplan session"))
        .collect()
}

pub(crate) fn assert_worker_clean(env: &TestEnv, repo: &Path) {
    assert_eq!(
        env.git(repo, &["worktree", "list"]).lines().count(),
        1,
        "only the main worktree"
    );
    assert_eq!(
        env.git(repo, &["for-each-ref", "refs/heads/ultraplan-work/"]),
        "",
        "no worker branch"
    );
    env.assert_fsck(repo);
}

#[test]
fn workers_in_other_clones_run_the_sessions_and_the_orchestrator_merges_them() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b", "c"], false);
    let (a, b, w) = (env.root().join("a"), env.root().join("b"), env.root().join("c"));
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let work = c.work_json(&env);
    assert_eq!(work["wave"], 1);
    assert_eq!(work["plan"], "plan.md");
    assert_eq!(work["sessions"][0]["scope"][0], "a.txt");
    // Two workers in two clones, each until nothing is left.
    let first = env.spawn_ultraplan(&b, &["work"]);
    let second = env.spawn_ultraplan(&w, &["work"]);
    let (first, second) = (finish(first), finish(second));
    assert_eq!(first.code, 0, "{first}");
    assert_eq!(second.code, 0, "{second}");
    let ran: Vec<&str> = first.stdout.lines().chain(second.stdout.lines()).collect();
    assert_eq!(ran.len(), 3, "each session ran once, on one worker: {ran:?}");
    for n in 1..=3 {
        assert_eq!(
            ran.iter()
                .filter(|l| l.starts_with(&format!("plan.md session {n}: completed, published")))
                .count(),
            1,
            "{ran:?}"
        );
        assert!(c.claim(&env, n).contains("result: completed"), "{}", c.claim(&env, n));
    }
    let out = finish(orchestrator);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(
        merges(&env, &a),
        [
            "merge: ultraplan session 3 — Both",
            "merge: ultraplan session 2 — Beta",
            "merge: ultraplan session 1 — Alpha"
        ]
    );
    assert_eq!(read(&a.join("c.txt")), "alpha\nbeta\n");
    // The integration branch reached the remote; the work is closed.
    assert_eq!(
        c.remote_ref(&env, "refs/heads/main").unwrap(),
        env.git(&a, &["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(c.work_json(&env)["finished"], true);
    // Results travel: every session's checkpoint has its note on the remote.
    env.git(
        &a,
        &["fetch", "-q", "origin", "refs/notes/ultraplan:refs/notes/ultraplan"],
    );
    let log = env.git(&a, &["log", "--format=%H %s", "HEAD"]);
    for n in 1..=3 {
        let checkpoint = log
            .lines()
            .find(|l| l.ends_with(&format!(" step {n}")))
            .and_then(|l| l.split(' ').next())
            .unwrap_or_else(|| panic!("no checkpoint of step {n} in {log}"));
        let note = env.run(&a, &["notes", "--ref=ultraplan", "show", checkpoint]);
        assert!(
            note.stdout.contains("status: success"),
            "{note}\n{log}\n{}",
            env.git(&a, &["notes", "--ref=ultraplan", "list"])
        );
    }
    for clone in [&a, &b, &w] {
        assert_worker_clean(&env, clone);
    }
    env.assert_fsck(&c.remote);
    // Nothing left: a worker finds no session and says so.
    let idle = env.run(&b, &["ultraplan", "work", "--once"]).expect_code(0);
    assert_eq!(idle.stdout, "no open session on 'origin' to take\n");
}

#[test]
fn of_racing_workers_exactly_one_wins_each_session() {
    let env = TestEnv::new();
    let names = ["a", "w1", "w2", "w3", "w4", "w5"];
    let c = cluster(&env, &names, false);
    let a = env.root().join("a");
    c.block(1);
    c.block(2);
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    // Five clones race for two open sessions at once.
    let racers: Vec<_> = names[1..]
        .iter()
        .map(|n| env.spawn_ultraplan(&env.root().join(n), &["work", "--once"]))
        .collect();
    c.wait_for_ref(&env, "refs/ultraplan/plan/claims/session-1");
    c.wait_for_ref(&env, "refs/ultraplan/plan/claims/session-2");
    c.unblock(1);
    c.unblock(2);
    let outs: Vec<Output> = racers.into_iter().map(finish).collect();
    let winners: Vec<&str> = outs
        .iter()
        .flat_map(|o| o.stdout.lines())
        .filter(|l| l.contains("completed"))
        .collect();
    assert_eq!(winners.len(), 2, "two sessions, two winners: {outs:?}");
    assert_eq!(
        outs.iter().filter(|o| o.stdout.starts_with("no open session")).count(),
        3,
        "{outs:?}"
    );
    // Wave 2 for one last worker.
    let _ = env.run(&env.root().join("w1"), &["ultraplan", "work"]).expect_code(0);
    let out = finish(orchestrator);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(merges(&env, &a).len(), 3);
}

#[test]
fn a_killed_workers_claim_expires_and_another_finishes_the_session() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b", "c"], false);
    let (a, b, w) = (env.root().join("a"), env.root().join("b"), env.root().join("c"));
    c.block(1);
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let doomed = env.spawn_ultraplan(&b, &["work", "--once", "--plan", "plan"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/claims/session-1");
    std::thread::sleep(Duration::from_millis(300));
    let killed = signal(doomed, "-KILL");
    assert_ne!(killed.status.code(), Some(0));
    assert!(c.claim(&env, 1).contains("result: running"), "{}", c.claim(&env, 1));
    c.unblock(1);
    // Until the claim expires (2 s) nobody else takes session 1.
    let other = env.run(&w, &["ultraplan", "work", "--once"]).expect_code(0);
    assert!(other.stdout.contains("session 2: completed"), "{other}");
    std::thread::sleep(Duration::from_millis(2500));
    let rest = env.run(&w, &["ultraplan", "work"]).expect_code(0);
    assert!(
        rest.stdout
            .contains("session 1: completed, published to 'origin', taken over from"),
        "{rest}"
    );
    let out = finish(orchestrator);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(merges(&env, &a).len(), 3, "each session merged once");
    assert_worker_clean(&env, &w);
}

#[test]
fn an_orchestrator_killed_between_merges_resumes_without_merging_twice() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let mut killed_run = env.command(bin_dir().join("git-ultraplan"), &a);
    killed_run
        .args(["run", "--distribute", "plan.md"])
        .env("ULTRAPLAN_TEST_FAULT", "merge-committed:1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let orchestrator = killed_run.spawn().unwrap();
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let worker = env.spawn_ultraplan(&b, &["work"]);
    let out = finish(orchestrator);
    assert_ne!(out.code, 0, "killed after the first merge: {out}");
    assert_eq!(merges(&env, &a).len(), 1);
    // The remembered remote is used again; session 1's merge is not repeated.
    let resumed = env.run(&a, &["ultraplan", "run", "--resume", "plan.md"]);
    assert_eq!(resumed.code, 0, "{resumed}");
    assert_eq!(finish(worker).code, 0);
    let done = merges(&env, &a);
    assert_eq!(done.len(), 3, "{done:?}");
    assert_eq!(done.iter().filter(|m| m.contains("session 1 ")).count(), 1);
    assert_eq!(read(&a.join("c.txt")), "alpha\nbeta\n");
}

#[test]
fn a_conflicting_wave_changes_nothing_here() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], true);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    for _ in 0..2 {
        let _ = env.run(&b, &["ultraplan", "work", "--once"]).expect_code(0);
    }
    let out = finish(orchestrator);
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stdout.contains("conflict"), "{out}");
    assert_eq!(merges(&env, &a).len(), 1, "the first merged, the second conflicted");
    assert_eq!(env.git(&a, &["status", "--porcelain"]), "");
    assert_eq!(env.git(&a, &["branch", "--list", "ultraplan/*"]), "");
    // Failed runs close their work: workers do not wait for a wave 2.
    assert_eq!(c.work_json(&env)["finished"], true);
}

#[test]
fn a_remote_that_goes_away_stops_the_run_and_resume_goes_on() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let away = env.root().join("away.git");
    std::fs::rename(&c.remote, &away).unwrap();
    let out = finish(orchestrator);
    assert_eq!(out.code, 128, "{out}");
    assert!(out.stderr.contains("cannot reach 'origin'"), "{out}");
    assert!(
        out.stderr.contains("git ultraplan run --resume --distribute=origin"),
        "{out}"
    );
    assert_eq!(env.git(&a, &["status", "--porcelain"]), "");
    std::fs::rename(&away, &c.remote).unwrap();
    let worker = env.spawn_ultraplan(&b, &["work"]);
    let resumed = env.run(&a, &["ultraplan", "run", "--resume", "--distribute", "plan.md"]);
    assert_eq!(resumed.code, 0, "{resumed}");
    assert_eq!(finish(worker).code, 0);
    assert_eq!(merges(&env, &a).len(), 3);
}

#[test]
fn bad_input_is_refused_clearly() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let out = env.run(&b, &["ultraplan", "work", "nowhere"]).expect_code(128);
    assert!(out.stderr.contains("'nowhere' is not a remote"), "{out}");
    write(&a.join("one.md"), "# One\n\n## Implementation Plan\n\n### Step 1: Only\n\n- **Files:** `x.txt`\n- **Changes:** do it\n  ```sh\n  echo x > x.txt\n  ```\n- **Verify:** `test -f x.txt`\n");
    let out = env
        .run(&a, &["ultraplan", "run", "--distribute", "one.md"])
        .expect_code(128);
    assert!(out.stderr.contains("has no sessions to distribute"), "{out}");
    // Something under a plan's name on the remote that is not published work.
    let junk = env.git(&b, &["rev-parse", "HEAD^{tree}"]);
    env.git(
        &b,
        &[
            "push",
            "-q",
            "origin",
            &format!("{}:refs/ultraplan/junk/work", junk.trim()),
        ],
    );
    let out = env.run(&b, &["ultraplan", "work", "--once"]).expect_code(0);
    assert!(out.stderr.contains("skipped: refs/ultraplan/junk/work"), "{out}");
    assert_eq!(out.stdout, "no open session on 'origin' to take\n");
    env.assert_fsck(&c.remote);
}

#[test]
fn a_publication_that_finds_the_remote_moved_is_read_again_and_retried() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    // The first time a session's branch arrives, the remote moves it first
    // (as another pusher would): the worker's lease no longer holds.
    let hook = c.remote.join("hooks/pre-receive");
    write(
        &hook,
        &format!(
            // Written as a file: git forbids ref updates from inside the push's quarantine.
            "#!/bin/sh\nwhile read old new name; do\n  echo \"$name\" >> {seen}\n  case \"$name\" in refs/heads/ultraplan/plan/session-*)\n    if [ ! -f {marker} ]; then touch {marker}; mkdir -p \"$(dirname \"$name\")\"; git rev-parse main > \"$name\"; fi;;\n  esac\ndone\nexit 0\n",
            marker = c.markers.join("moved").display(),
            seen = c.markers.join("seen").display()
        ),
    );
    std::process::Command::new("chmod")
        .args(["+x", hook.to_str().unwrap()])
        .status()
        .unwrap();
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let out = env.run(&b, &["ultraplan", "work"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(c.markers.join("moved").exists(), "the remote moved a branch once");
    // The refused publication left nothing half-done: the branch the remote
    // moved was published over under a lease, the claim closed with it.
    let reflog = env.git(
        &c.remote,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads/ultraplan/",
        ],
    );
    assert_eq!(reflog.lines().count(), 3, "{reflog}");
    let seen = read(&c.markers.join("seen"));
    let first_branch = seen.lines().find(|l| l.starts_with("refs/heads/ultraplan/")).unwrap();
    assert_eq!(
        seen.lines().filter(|l| l == &first_branch).count(),
        2,
        "published again after the refusal:\n{seen}"
    );
    assert_eq!(out.stdout.matches("completed, published").count(), 3, "{out}");
    assert_eq!(finish(orchestrator).code, 0);
    assert_eq!(merges(&env, &a).len(), 3);
    assert_eq!(read(&a.join("c.txt")), "alpha\nbeta\n");
}
