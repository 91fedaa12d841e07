//! Splitting a command line into words as `sh` does for simple commands
//! (a Checkpoint's `git commit -m`): the function lives with the other
//! shell words in [`crate::cli::shell`], which the historian reads too.

pub use crate::cli::shell::shell_words;
