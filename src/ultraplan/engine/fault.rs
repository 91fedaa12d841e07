//! Fault points for the crash-safety tests: with `ULTRAPLAN_TEST_FAULT=<point>`
//! (or `<point>:<n>` for its n-th occurrence) the process kills itself with
//! SIGKILL there, exactly as `kill -9` would. Without the variable this is one
//! environment lookup per point.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

static TARGET: OnceLock<Option<(String, u32)>> = OnceLock::new();
static SEEN: AtomicU32 = AtomicU32::new(0);

pub fn point(name: &str) {
    let target = TARGET.get_or_init(|| {
        let value = std::env::var("ULTRAPLAN_TEST_FAULT").ok()?;
        let (point, count) = match value.split_once(':') {
            Some((p, n)) => (p.to_owned(), n.parse().unwrap_or(1)),
            None => (value, 1),
        };
        Some((point, count))
    });
    if let Some((point, count)) = target {
        if point == name && SEEN.fetch_add(1, Ordering::SeqCst) + 1 == *count {
            crate::process::kill_self();
        }
    }
}
