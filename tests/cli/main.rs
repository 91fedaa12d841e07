//! Integration tests: the real binaries, driven through the real `git` (build
//! directory first on PATH, so `git ultraplan …` dispatches as for a user), in
//! hermetic temporary repositories, with outcomes checked by the real `git`.

// First, so that its `assert_transcript!` is in scope in every module below.
#[macro_use]
mod transcript;

mod agent_stubs;
mod generate;
mod plans;
mod records;
mod shared;
mod support;

mod agents;
mod bad_input;
mod check;
mod conventions;
mod crash;
mod dates;
mod distribute;
mod docs;
mod executors;
mod first_hour;
mod floors;
mod formats;
mod formats_corpus;
mod gate;
mod generated;
mod gsd;
mod gsd_phase;
mod gsd_verify;
mod historian;
mod historian_agent;
mod historian_blocks;
mod historian_claims;
mod historian_commands;
mod historian_history;
mod historian_issues;
mod historian_messages;
mod historian_moves;
mod historian_openbsd;
mod historian_sections;
mod historian_session;
mod historian_shapes;
mod historian_stack;
mod historian_untangle;
mod historian_words;
mod hostile_plans;
mod hostile_remote;
mod outcome_index;
mod outcomes;
mod recovery;
mod recovery_distribute;
mod recovery_waves;
mod redaction;
mod redaction_channels;
mod redaction_commits;
mod refusals;
mod report;
mod result;
mod run;
mod safety;
mod second_trial;
mod sessions;
mod state;
mod state_layout;
mod state_reads;
mod sync;
mod sync_faults;
mod ultraplan_commands;
mod verification;
mod waves;
mod waves_reuse;
