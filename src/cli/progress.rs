//! A live status line on a terminal: what is running and for how long,
//! redrawn in place; nothing at all when stderr is not a terminal or `-q` is
//! given. Shown only once an activity has lasted 250 ms.
//!
//! Hand-written rather than `indicatif`: we draw one line of text with an
//! elapsed time, no bar, no rate, no multi-line layout, and this file is
//! about a hundred lines. `indicatif` 0.18 would add five crates (console,
//! libc, portable-atomic, unicode-width, unit-prefix; 6 s of a clean
//! release build on this machine) for the same line.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct Shared {
    text: Option<(String, Instant)>,
    drawn: bool,
}

pub struct StatusLine {
    shared: Option<Arc<Mutex<Shared>>>,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl StatusLine {
    pub fn new(enabled: bool) -> StatusLine {
        let stop = Arc::new(AtomicBool::new(false));
        if !enabled {
            return StatusLine {
                shared: None,
                stop,
                ticker: None,
            };
        }
        let shared = Arc::new(Mutex::new(Shared {
            text: None,
            drawn: false,
        }));
        let ticker = {
            let (shared, stop) = (shared.clone(), stop.clone());
            std::thread::Builder::new()
                .name("ultraplan-progress".into())
                .spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(200));
                        let Ok(mut s) = shared.lock() else { return };
                        if let Some((text, since)) = &s.text {
                            let elapsed = since.elapsed();
                            if elapsed >= Duration::from_millis(250) {
                                let line = format!("\r\x1b[K{text} ({}s)", elapsed.as_secs());
                                let _ = std::io::stderr().write_all(line.as_bytes());
                                s.drawn = true;
                            }
                        }
                    }
                })
                .ok()
        };
        StatusLine {
            shared: Some(shared),
            stop,
            ticker,
        }
    }

    /// Shows `text` from now on, with its own elapsed time.
    pub fn set(&self, text: impl Into<String>) {
        if let Some(shared) = &self.shared {
            if let Ok(mut s) = shared.lock() {
                s.text = Some((text.into(), Instant::now()));
            }
        }
    }

    /// Changes the text but keeps the elapsed time running.
    pub fn set_text(&self, text: impl Into<String>) {
        if let Some(shared) = &self.shared {
            if let Ok(mut s) = shared.lock() {
                let since = s.text.as_ref().map_or_else(std::time::Instant::now, |(_, t)| *t);
                s.text = Some((text.into(), since));
            }
        }
    }

    /// Prints a line above the status line (or plainly, when disabled).
    pub fn println(&self, line: &str) {
        match &self.shared {
            None => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            Some(shared) => {
                if let Ok(mut s) = shared.lock() {
                    let clear = if s.drawn { "\r\x1b[K" } else { "" };
                    let _ = writeln!(std::io::stderr(), "{clear}{line}");
                    s.drawn = false;
                }
            }
        }
    }

    /// Removes the status line.
    pub fn clear(&self) {
        if let Some(shared) = &self.shared {
            if let Ok(mut s) = shared.lock() {
                if s.drawn {
                    let _ = std::io::stderr().write_all(b"\r\x1b[K");
                }
                s.text = None;
                s.drawn = false;
            }
        }
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        self.clear();
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}
