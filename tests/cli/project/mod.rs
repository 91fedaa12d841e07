//! The project's own files: documentation that runs, the floors of `src/`,
//! the generated man pages, completions and configuration reference.

mod docs;
mod floors;
mod generate;
mod generated;
