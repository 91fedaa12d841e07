//! `git historian`: `clean` end to end, then a file a way it reads a branch
//! or a command it offers.

mod agent;
mod base;
mod blocks;
mod claims;
mod clean;
mod commands;
mod history;
mod issues;
mod kept;
mod messages;
mod moves;
mod openbsd;
mod plans;
mod sections;
mod session;
mod shapes;
mod stack;
mod untangle;
mod wip;
mod words;
mod writer;
