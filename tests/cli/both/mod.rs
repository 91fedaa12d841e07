//! What holds for both programs alike.

mod conventions;
mod first_hour;
mod raw_writers;
pub(crate) mod redaction;
mod redaction_channels;
mod redaction_commits;
mod report;
mod second_trial;
mod third_trial;
