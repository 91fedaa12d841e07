//! Running a child the way executors and Verify commands need: in its own
//! process group (so a timeout or Ctrl-C reaches everything it started), stdin
//! fed from memory, stdout and stderr captured up to a cap (the head and the
//! tail kept), and a deadline after which the whole group is killed.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _, Result};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod allocator;
mod children;
mod disk;
#[allow(unsafe_code)]
mod fork;
#[cfg(target_os = "linux")]
mod launch;
mod procfs;
mod strict;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub use allocator::settle_for_long_runs;
pub use children::{
    exists, install_interrupt_handler, interrupted, kill_group, kill_own_leftovers, kill_self, kill_tagged,
    set_run_token, spawn_registered, unregister, RUN_TOKEN_VAR,
};
pub use disk::{delete_detached, free_space, FreeSpace};
#[cfg(target_os = "linux")]
pub use launch::{launch_through, launched};
pub use procfs::{age, alive, git_processes_in, start_ticks, wait_gone, GitProcess};
pub use rustix::process::Signal;
pub use strict::{strict, strict_shell, syntax_error, Strict};

/// What to run.
pub struct Spec<'a> {
    pub program: &'a str,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub env: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Bytes kept per stream (half from the start, half from the end).
    pub cap: usize,
}

/// How it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Killed by this signal (not by us).
    Signalled(i32),
    TimedOut,
    Interrupted,
}

impl Ending {
    /// The exit code as a shell reports it: the code, or 128 + signal.
    pub fn code(self) -> i32 {
        match self {
            Ending::Exited(c) => c,
            Ending::Signalled(s) => 128 + s,
            Ending::TimedOut => 124,
            Ending::Interrupted => 130,
        }
    }

    pub fn success(self) -> bool {
        self == Ending::Exited(0)
    }

    pub fn describe(self) -> String {
        match self {
            Ending::Exited(c) => format!("exit {c}"),
            Ending::Signalled(s) => format!("killed by signal {s}"),
            Ending::TimedOut => "timed out".into(),
            Ending::Interrupted => "interrupted".into(),
        }
    }
}

pub struct Finished {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

impl Finished {
    /// stdout and stderr, for `→ expected:` checks and output summaries.
    pub fn output(&self) -> String {
        match (self.stdout.is_empty(), self.stderr.is_empty()) {
            (_, true) => self.stdout.clone(),
            (true, false) => self.stderr.clone(),
            (false, false) => format!("{}\n{}", self.stdout.trim_end_matches('\n'), self.stderr),
        }
    }
}

/// Captures a stream, keeping the first and last `cap / 2` bytes.
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    omitted: usize,
    half: usize,
}

impl Capture {
    fn new(cap: usize) -> Capture {
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            omitted: 0,
            half: (cap / 2).max(1),
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        self.tail.extend(data);
        while self.tail.len() > self.half {
            let extra = self.tail.len() - self.half;
            self.tail.drain(..extra);
            self.omitted += extra;
        }
    }

    /// The head, the count of bytes left out, the tail. Where output was
    /// left out, the cut moves to white space on both sides, and a tail
    /// opening inside a private key block starts after its end: no piece
    /// of a token or key is kept on either side, where redaction could not
    /// recognise it (a token's two halves together would be the token).
    fn text(&self) -> String {
        if self.omitted == 0 {
            return String::from_utf8_lossy(&self.head).into_owned();
        }
        let white = |b: &u8| b.is_ascii_whitespace();
        let head_end = self.head.iter().rposition(white).map_or(0, |i| i + 1);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let mut tail_start = tail.iter().position(white).unwrap_or(tail.len());
        if let Some(end) = key_block_end(&tail[tail_start..]) {
            tail_start += end;
        }
        let omitted = self.omitted + (self.head.len() - head_end) + tail_start;
        let mut bytes = self.head[..head_end].to_vec();
        bytes.extend_from_slice(format!("\n[… {omitted} bytes omitted …]\n").as_bytes());
        bytes.extend_from_slice(&tail[tail_start..]);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Where a private key block that began before `tail` ends in it (just
/// past its `-----END … PRIVATE KEY…-----` line), when it ends there before
/// another begins.
fn key_block_end(tail: &[u8]) -> Option<usize> {
    const END: &[u8] = b"-----END ";
    let at = tail.windows(END.len()).position(|w| w == END)?;
    if tail[..at].windows(b"-----BEGIN ".len()).any(|w| w == b"-----BEGIN ") {
        return None;
    }
    let line_end = tail[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(tail.len(), |i| at + i + 1);
    let line = String::from_utf8_lossy(&tail[at..line_end]);
    line.contains("PRIVATE KEY").then_some(line_end)
}

/// Runs `spec` to its end (or its deadline).
pub fn run(spec: Spec<'_>) -> Result<Finished> {
    run_lines(spec, &mut |_| {})
}

/// The longest stdout line [`run_lines`] hands over whole; a longer one is
/// handed over in pieces of this size (no event of an agent's stream is
/// that long, and memory stays bounded).
const LONGEST_LINE: usize = 8 << 20;

/// What the threads watching a child report to the one waiting for it.
enum Report {
    Line(String),
    Exited(std::io::Result<std::process::ExitStatus>),
}

/// [`run`], handing each line of stdout to `on_line` as it arrives (an
/// agent's event stream, shown live), while stdout is still captured up
/// to the cap for the transcript.
pub fn run_lines(spec: Spec<'_>, on_line: &mut dyn FnMut(&str)) -> Result<Finished> {
    let start = Instant::now();
    let path = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| OsStr::new(v));
    // If we are killed (kill -9), it is killed too instead of going on
    // editing the worktree that --resume will restore.
    let mut command = children::owned_command(spec.program, path, spec.cwd, children::DeathSignal::Kill)
        .with_context(|| format!("cannot run '{}'", spec.program))?;
    command
        .args(&spec.args)
        .current_dir(spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run '{}'", spec.program))?;
    let pgid = child.id() as i32;
    test_pause();
    children::set_current(pgid);

    if let (Some(data), Some(mut stdin)) = (spec.stdin, child.stdin.take()) {
        // A child that does not read its stdin must not block us.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
    }
    let (report, reports) = mpsc::channel::<Report>();
    let readers: Vec<_> = [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, stream)| {
        let capture = Arc::new(Mutex::new(Capture::new(spec.cap)));
        let (done_tx, done_rx) = mpsc::channel::<()>();
        // Only stdout is split into lines.
        let lines = (i == 0).then(|| report.clone());
        if let Some(mut stream) = stream {
            let capture = capture.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 16 * 1024];
                let mut partial: Vec<u8> = Vec::new();
                let send = |bytes: &[u8]| {
                    if let Some(lines) = &lines {
                        let _ = lines.send(Report::Line(String::from_utf8_lossy(bytes).into_owned()));
                    }
                };
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut c) = capture.lock() {
                        c.push(&buf[..n]);
                    }
                    if lines.is_none() {
                        continue;
                    }
                    for piece in buf[..n].split_inclusive(|b| *b == b'\n') {
                        partial.extend_from_slice(piece);
                        if partial.ends_with(b"\n") {
                            send(&partial[..partial.len() - 1]);
                            partial.clear();
                        } else if partial.len() >= LONGEST_LINE {
                            send(&partial);
                            partial.clear();
                        }
                    }
                }
                if !partial.is_empty() {
                    send(&partial);
                }
                let _ = done_tx.send(());
            });
        }
        (capture, done_rx)
    })
    .collect();

    {
        let report = report.clone();
        std::thread::spawn(move || {
            let _ = report.send(Report::Exited(child.wait()));
        });
    }
    drop(report);
    let deadline = start + spec.timeout;
    let mut status = None;
    let mut timed_out = false;
    while status.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match reports.recv_timeout(left) {
            Ok(Report::Line(line)) => on_line(&line),
            Ok(Report::Exited(s)) => status = Some(s),
            Err(mpsc::RecvTimeoutError::Timeout) if !timed_out => {
                children::kill_group(pgid, Signal::KILL);
                timed_out = true;
            }
            // Killed: wait for the wait to end (lines still arriving are kept).
            Err(mpsc::RecvTimeoutError::Timeout) => loop {
                match reports.recv() {
                    Ok(Report::Line(line)) => on_line(&line),
                    Ok(Report::Exited(s)) => {
                        status = Some(s);
                        break;
                    }
                    Err(_) => break,
                }
            },
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    children::set_current(0);
    // Background processes the child left may hold the pipes open: wait a
    // little for the streams to end, then take what was captured.
    for (_, done) in &readers {
        let _ = done.recv_timeout(Duration::from_millis(500));
    }
    while let Ok(Report::Line(line)) = reports.try_recv() {
        on_line(&line);
    }
    let text = |i: usize| readers[i].0.lock().map(|c| c.text()).unwrap_or_default();
    let ending = match status {
        _ if timed_out => Ending::TimedOut,
        None => Ending::TimedOut,
        Some(Err(e)) => return Err(anyhow!("cannot wait for '{}': {e}", spec.program)),
        Some(Ok(status)) => {
            use std::os::unix::process::ExitStatusExt as _;
            match (status.code(), status.signal()) {
                _ if interrupted() => Ending::Interrupted,
                (Some(code), _) => Ending::Exited(code),
                (None, Some(signal)) => Ending::Signalled(signal),
                (None, None) => Ending::Exited(-1),
            }
        }
    };
    Ok(Finished {
        ending,
        stdout: text(0),
        stderr: text(1),
        duration: start.elapsed(),
    })
}

/// `sh -c <command>` in `cwd`.
pub fn shell(command: &str, cwd: &Path, env: Vec<(String, String)>, timeout: Duration, cap: usize) -> Result<Finished> {
    run(Spec {
        program: "sh",
        args: vec!["-c".into(), command.into()],
        cwd,
        env,
        stdin: None,
        timeout,
        cap,
    })
}

/// The test suite's stand-in for a loaded machine:
/// `ULTRAPLAN_TEST_SPAWN_PAUSE_MS` pauses this long after each child is
/// spawned and before its group is known to the signal forwarding (like
/// `ULTRAPLAN_TEST_FAULT`, for tests only).
fn test_pause() {
    static PAUSE: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| {
        let ms = std::env::var("ULTRAPLAN_TEST_SPAWN_PAUSE_MS").ok()?.parse().ok()?;
        Some(Duration::from_millis(ms))
    });
    if let Some(pause) = pause {
        std::thread::sleep(*pause);
    }
}

#[cfg(test)]
mod tests;
