//! What the tests share: the hermetic environment (`support`), whole-output
//! snapshots (`transcript`), plan builders (`plans`, and in sessions: `sessions`), a bare remote with two
//! clones (`shared`), the coding-agent stand-ins (`agent_stubs`) and the
//! historian's messy feature branch with the views of its outcome
//! (`historian`).

// First, so that its `assert_transcript!` is in scope in every module below.
#[macro_use]
pub mod transcript;

pub mod agent_stubs;
pub mod historian;
pub mod plans;
pub mod sessions;
pub mod shared;
pub mod support;
