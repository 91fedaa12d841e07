//! The record (DESIGN §16): what the run states and notes say, read back in
//! aggregate. Nothing here is stored anywhere else: every figure is computed
//! from the state chains under `refs/ultraplan/` (the digests of runs
//! already read are a cache of that, never a source).
//!
//! * [`collect`] walks every state chain once and yields one [`Task`] per
//!   step execution (a step's attempts within one run) and one [`PlanRun`]
//!   per run, through the [`digest`]s of the runs it read before (a local
//!   cache keyed by each run's newest commit);
//! * [`metrics`] aggregates them as seed `000_…` asks: counts, rates,
//!   durations, per plan, per phase and per day, velocity and the trend;
//! * [`state_md`] writes the `## Performance Metrics` section of a STATE.md,
//!   and [`state_file`] commits it at the end of a run when configured;
//! * [`logs`] lays the record out as seed `000_…`'s log directory;
//! * [`exchange`] is the versioned export, [`export`] writes it (a text
//!   file as its [`delta`] from another where that is shorter) and
//!   [`import`] reads it back.

pub mod collect;
pub mod delta;
pub mod digest;
pub mod exchange;
pub mod export;
pub mod import;
pub mod logs;
pub mod metrics;
pub mod state_file;
pub mod state_md;

pub use collect::{collect, Attempt, Filter, PlanRun, Record, Task};
pub use metrics::{Metrics, Trend};
