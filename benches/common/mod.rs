//! What the benchmarks share: a hermetic git, copies of a template
//! repository, and measurement in alternating pairs.
//!
//! Every comparison runs the two sides as pairs — ours, then theirs, then
//! ours again — each from its own copy of the same starting state, so a
//! machine that slows down or speeds up during the run touches both sides
//! alike. A pair gives one ratio; the report is the median ratio with the
//! range over the pairs, for wall time and for CPU time (user + system,
//! of this process and every child it waited for).

#![allow(dead_code)] // each bench uses its own part

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `git args` in `dir` with the hermetic environment; panics on failure.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// A git that reads no user or system configuration and has an identity.
pub fn env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Bench"),
        ("GIT_AUTHOR_EMAIL", "bench@example.com"),
        ("GIT_COMMITTER_NAME", "Bench"),
        ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        // No background gc racing the copies of a template.
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "gc.auto"),
        ("GIT_CONFIG_VALUE_0", "0"),
    ]
}

/// `cp -a template to`, then `sync`: the copy's dirty pages are written
/// out now, not during the measurement that follows (on a disk that
/// discards deleted blocks, the writeback of 20,000 files moved a side's
/// time by seconds).
pub fn copy(template: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(template).arg(to).status().unwrap();
    assert!(status.success());
    let _ = Command::new("sync").status();
}

/// Lets the disk under `dir` settle before a measured side: `sync`, then
/// (unless it is a tmpfs) a pause of six seconds. On ext4 without a journal
/// (this machine's disk), a new file does not get the inode of one deleted
/// in the last 5 seconds, or 305 while that inode's table block is dirty
/// (as a new file beside it makes it): `__ext4_new_inode` skips such inodes
/// one by one, reading their blocks. Creating 20,000 files within minutes of
/// deleting 20,000 cost 3–11 s of system time instead of 0.3 s. The pause
/// covers the short window only, so on such a disk a side still pays for
/// the deletions of the minutes before it; on a tmpfs nothing does
/// (`TMPDIR=/dev/shm`).
pub fn settle(dir: &Path) {
    let _ = Command::new("sync").status();
    if !on_tmpfs(dir) {
        std::thread::sleep(Duration::from_secs(6));
    }
}

/// Whether `dir` is on a tmpfs.
pub fn on_tmpfs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the struct it is given; zeroed is a valid start.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a valid pointer for the call.
    let ok = unsafe { libc::statfs(path.as_ptr(), &mut fs) } == 0;
    // The field's and the constant's types differ between targets.
    #[allow(clippy::unnecessary_cast)]
    let tmpfs = fs.f_type as i64 == libc::TMPFS_MAGIC as i64;
    ok && tmpfs
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Wall and CPU time of one measured run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub wall: Duration,
    /// User + system time of this process and the children it waited for.
    pub cpu: Duration,
}

fn cpu_so_far() -> Duration {
    let of = |who| {
        // SAFETY: getrusage fills the struct it is given; zeroed is a valid start.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a rusage for the call's duration.
        unsafe { libc::getrusage(who, &mut usage) };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(usage.ru_utime) + tv(usage.ru_stime)
    };
    of(libc::RUSAGE_SELF) + of(libc::RUSAGE_CHILDREN)
}

/// Measures `f`: its wall time and the CPU it and its waited-for children used.
pub fn sampled<T>(f: impl FnOnce() -> T) -> (Sample, T) {
    let cpu = cpu_so_far();
    let start = Instant::now();
    let value = f();
    let wall = start.elapsed();
    (
        Sample {
            wall,
            cpu: cpu_so_far().saturating_sub(cpu),
        },
        value,
    )
}

/// Pairs of samples of two sides, measured alternately.
#[derive(Default)]
pub struct Pairs {
    pub ours: Vec<Sample>,
    pub theirs: Vec<Sample>,
}

impl Pairs {
    pub fn push(&mut self, ours: Sample, theirs: Sample) {
        self.ours.push(ours);
        self.theirs.push(theirs);
    }

    fn ratios(&self, of: fn(&Sample) -> Duration) -> Vec<f64> {
        let mut r: Vec<f64> = self
            .ours
            .iter()
            .zip(&self.theirs)
            .map(|(o, t)| of(o).as_secs_f64() / of(t).as_secs_f64().max(1e-9))
            .collect();
        r.sort_by(|a, b| a.total_cmp(b));
        r
    }

    /// Median of ours over theirs, and the range over the pairs.
    pub fn ratio(&self, of: fn(&Sample) -> Duration) -> (f64, f64, f64) {
        let r = self.ratios(of);
        (r[r.len() / 2], r[0], r[r.len() - 1])
    }

    /// The lines every benchmark prints for one comparison.
    pub fn report(&self, ours: &str, theirs: &str) -> String {
        let med = |v: &[Sample], of: fn(&Sample) -> Duration| median(v.iter().map(of).collect());
        let wall = |s: &Sample| s.wall;
        let cpu = |s: &Sample| s.cpu;
        let (w, wlo, whi) = self.ratio(wall);
        let (c, clo, chi) = self.ratio(cpu);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        format!(
            "  {ours:<28} wall {:9.1} ms   cpu {:9.1} ms
  {theirs:<28} wall {:9.1} ms   cpu {:9.1} ms
               ratio (median of {} pairs)   wall {w:.2}x ({wlo:.2}-{whi:.2})   cpu {c:.2}x ({clo:.2}-{chi:.2})",
            ms(med(&self.ours, wall)),
            ms(med(&self.ours, cpu)),
            ms(med(&self.theirs, wall)),
            ms(med(&self.theirs, cpu)),
            self.ours.len(),
        )
    }
}

/// One line naming the machine a benchmark ran on, for the README.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let git = Command::new("git")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{cores} cores, {model}, {git}")
}

/// A repository in `repo` with `files` committed files (100 per directory
/// under `src/`), on branch `main`, its index refreshed after the files aged
/// past its timestamp and its objects packed, so no side pays for racy entries.
pub fn repository_of(repo: &Path, files: usize) {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    for d in 0..files.div_ceil(100) {
        let dir = repo.join(format!("src/d{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100.min(files - d * 100) {
            std::fs::write(dir.join(format!("f{f:02}.txt")), format!("file {d} {f}\n").repeat(5)).unwrap();
        }
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", &format!("{files} files")]);
    git(repo, &["repack", "-adq"]);
    std::thread::sleep(Duration::from_millis(1100));
    git(repo, &["update-index", "--really-refresh", "-q"]);
}

/// Runs `program args` in `dir` with the hermetic environment and measures
/// it; what it printed and how it ended, whatever that was.
pub fn sampled_run(program: impl AsRef<OsStr>, args: &[&str], dir: &Path) -> (Sample, Output) {
    sampled(|| {
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .envs(env())
            .output()
            .unwrap()
    })
}

/// [`sampled_run`] of a command that must succeed: panics (with its output)
/// when it fails; its standard output.
pub fn timed_stdout(program: impl AsRef<OsStr>, args: &[&str], dir: &Path) -> (Sample, Vec<u8>) {
    let shown = program.as_ref().to_string_lossy().into_owned();
    let (sample, out) = sampled_run(program, args, dir);
    assert!(
        out.status.success(),
        "{shown} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (sample, out.stdout)
}

/// [`timed_stdout`], its output dropped.
pub fn timed(program: impl AsRef<OsStr>, args: &[&str], dir: &Path) -> Sample {
    timed_stdout(program, args, dir).0
}

/// Makes this process the one that reaps what its children leave running
/// when they exit (Linux `PR_SET_CHILD_SUBREAPER`), so [`timed_with_orphans`]
/// can wait for it and count its CPU.
pub fn adopt_orphans() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// [`timed`], for a program that leaves work to processes of its own that
/// outlive it (`run` deletes removed worktrees in the background): the wall
/// time ends when the program exits, as a user waits; its orphans are then
/// waited for (so they do not slow the next measurement down) and their CPU
/// counted. Needs [`adopt_orphans`] first.
pub fn timed_with_orphans(program: &str, args: &[&str], dir: &Path) -> Sample {
    let cpu = cpu_so_far();
    let sample = timed(program, args, dir);
    reap();
    Sample {
        wall: sample.wall,
        cpu: cpu_so_far().saturating_sub(cpu),
    }
}

/// Waits for every child and adopted orphan still running, so their CPU is
/// counted where the caller measures and they do not slow the next run down.
pub fn reap() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer to a status integer.
        if unsafe { libc::waitpid(-1, &mut status, 0) } < 0 {
            break; // ECHILD: nothing left
        }
    }
}

/// `git-ultraplan -q run <plan>` in `repo`, measured.
pub fn ultraplan_run(repo: &Path, plan: &Path) -> Sample {
    timed_with_orphans(
        env!("CARGO_BIN_EXE_git-ultraplan"),
        &["-q", "run", plan.to_str().unwrap()],
        repo,
    )
}

/// Median, lowest and highest of one measure over samples.
pub fn spread(samples: &[Sample], of: fn(&Sample) -> Duration) -> (Duration, Duration, Duration) {
    let mut v: Vec<Duration> = samples.iter().map(of).collect();
    v.sort();
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// A duration in the unit that shows it best: s, ms or µs.
pub fn shown(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.2} µs", s * 1e6)
    }
}

/// The line a benchmark prints for a measurement with no plain-git side:
/// the median of its own samples with their range, wall and CPU.
pub fn report_alone(name: &str, samples: &[Sample]) -> String {
    let (w, wlo, whi) = spread(samples, |s| s.wall);
    let (c, clo, chi) = spread(samples, |s| s.cpu);
    format!(
        "  {name:<28} wall {} ({}-{})   cpu {} ({}-{})   median of {}",
        shown(w),
        shown(wlo),
        shown(whi),
        shown(c),
        shown(clo),
        shown(chi),
        samples.len()
    )
}

impl Sample {
    /// The sample of one of `n` equal pieces of the work measured.
    pub fn per(self, n: u32) -> Sample {
        Sample {
            wall: self.wall / n,
            cpu: self.cpu / n,
        }
    }
}
