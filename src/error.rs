//! The error that carries advice, shared by every room: rendered by the
//! command line as `fatal: <message>` followed by one `hint: …` per line of
//! `hint`.

use std::fmt::Display;

/// A fatal error with advice for the person reading it.
#[derive(Debug)]
pub struct FatalWithHint {
    pub message: String,
    pub hint: String,
}

impl Display for FatalWithHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FatalWithHint {}

/// The work stopped because SIGINT, SIGTERM or SIGHUP arrived, after
/// putting back what it had started: `error: <message>`, exit 130.
#[derive(Debug)]
pub struct Interrupted {
    pub message: String,
}

impl Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Interrupted {}
