//! How a plan is read, for the commands that read one: the Taskmaster tag
//! and whether Kiro's optional tasks run.

/// Choices about reading the plan (`run`, `check`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PlanChoices {
    /// Taskmaster: run the tasks of this tag (default: the tag
    /// `.taskmaster/state.json` names as current, else `master`).
    #[arg(long, value_name = "NAME")]
    pub tag: Option<String>,

    /// Kiro: skip the optional tasks (`- [ ]*`); they are reported as skipped.
    #[arg(long)]
    pub skip_optional: bool,
}

impl PlanChoices {
    /// The parse context these choices give.
    pub fn context(&self) -> crate::ultraplan::plan::Context {
        crate::ultraplan::plan::Context {
            tag: self.tag.clone(),
            skip_optional: self.skip_optional,
            ..Default::default()
        }
    }

    /// The same choices as command-line arguments, for sessions run in worktrees.
    pub fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(tag) = &self.tag {
            out.push("--tag".into());
            out.push(tag.clone());
        }
        if self.skip_optional {
            out.push("--skip-optional".into());
        }
        out
    }
}
