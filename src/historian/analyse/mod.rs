//! Steps 2 and 3 of a run (DESIGN §10.1): what the branch is made of, read
//! from git and never changed. The [`base`] the clean branch starts from;
//! the change [`items`] between base and tip (whole files and the hunks of
//! [`lines`], cut into their [`blocks`]); the lines some items delete and
//! others add ([`moves`]); the names each hunk defines and uses
//! ([`symbols`]); the version numbers a text names ([`versions`]); which
//! branch commits each item comes from
//! ([`provenance`]); which files changed together before the branch
//! ([`coupling`]); and what a path is by its name alone ([`classify`]).
//!
//! Everything here is a fact about the repository, read once: no grouping,
//! no messages, no writes. The rooms above (`plan`, `message`, `execute`)
//! read these values; nothing here knows them.

pub mod base;
pub mod blocks;
pub mod classify;
pub mod coupling;
pub mod items;
pub mod left_out;
pub mod line_history;
pub mod lines;
pub mod moves;
pub mod provenance;
pub mod sections;
pub mod symbols;
pub mod syntax;
pub mod versions;
