//! A claim on a published session: the blob at
//! `refs/ultraplan/<slug>/claims/session-<N>` on the remote, created by a
//! create-only push (exactly one racing clone wins), refreshed by its holder
//! with a lease on its last value, and closed with the session's result.

use std::time::Duration;

/// Who holds a session, since when they were last heard of, and — once it
/// ended — how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The id of the published run it is a claim in.
    pub work: String,
    pub session: u32,
    pub host: String,
    pub pid: u32,
    /// Drawn at random for each claim written: two workers with the same
    /// host name and pid (containers) at the same second would otherwise
    /// write the same blob, and a create-only push of a value the remote
    /// already holds succeeds — both would win.
    pub token: String,
    /// Unix seconds of the last refresh.
    pub heartbeat: i64,
    /// The step the session was at.
    pub step: Option<u32>,
    /// `completed`, `failed`, `stopped`, `crashed`, `interrupted`, or
    /// `refused`; `None` while it runs.
    pub result: Option<String>,
}

impl Claim {
    /// A fresh claim by this process.
    pub fn mine(work: &str, session: u32) -> Claim {
        Claim {
            work: work.to_owned(),
            session,
            host: crate::ultraplan::state::hostname(),
            pid: std::process::id(),
            token: token(),
            heartbeat: now(),
            step: None,
            result: None,
        }
    }

    pub fn render(&self) -> String {
        format!(
            "work: {}\nsession: {}\nhost: {}\npid: {}\ntoken: {}\nheartbeat: {}\nstep: {}\nresult: {}\n",
            self.work,
            self.session,
            self.host,
            self.pid,
            self.token,
            self.heartbeat,
            self.step.map_or("-".to_owned(), |s| s.to_string()),
            self.result.as_deref().unwrap_or("running")
        )
    }

    /// A claim's text; `None` when it is not one.
    pub fn parse(text: &str) -> Option<Claim> {
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": ")))
                .map(str::trim)
        };
        Some(Claim {
            work: field("work")?.to_owned(),
            session: field("session")?.parse().ok()?,
            host: field("host")?.to_owned(),
            pid: field("pid")?.parse().ok()?,
            token: field("token").unwrap_or_default().to_owned(),
            heartbeat: field("heartbeat")?.parse().ok()?,
            step: field("step").and_then(|s| s.parse().ok()),
            result: field("result").filter(|r| *r != "running").map(str::to_owned),
        })
    }

    /// Still running, but not heard of for longer than `timeout`: its
    /// holder is gone, and another clone may take the session over.
    pub fn expired(&self, timeout: Duration) -> bool {
        self.result.is_none() && now().saturating_sub(self.heartbeat) > timeout.as_secs() as i64
    }

    /// "host (pid N)".
    pub fn holder(&self) -> String {
        format!("{} (pid {})", self.host, self.pid)
    }
}

/// 16 hex digits from the kernel's random source (else from the clock,
/// the pid and a counter).
fn token() -> String {
    use std::io::Read as _;
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mixed =
            nanos ^ (u64::from(std::process::id()) << 32) ^ COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        bytes = mixed.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_reads_back_and_expires_only_while_running() {
        let mut claim = Claim::mine("20260101T000000Z-1", 3);
        claim.step = Some(2);
        assert_eq!(Claim::parse(&claim.render()), Some(claim.clone()));
        assert!(!claim.expired(Duration::from_secs(60)));
        claim.heartbeat -= 120;
        assert!(claim.expired(Duration::from_secs(60)));
        claim.result = Some("completed".into());
        assert_eq!(Claim::parse(&claim.render()), Some(claim.clone()));
        assert!(
            !claim.expired(Duration::from_secs(60)),
            "a finished claim never expires"
        );
        assert_eq!(Claim::parse("status: success\n"), None);
        assert_ne!(
            Claim::mine("w", 1).render(),
            Claim::mine("w", 1).render(),
            "each claim is its own"
        );
        assert_eq!(
            Claim::parse("work: x\nsession: two\nhost: h\npid: 1\nheartbeat: 1\n"),
            None
        );
    }
}
