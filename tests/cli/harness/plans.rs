//! Small plan builders so each test reads as a story.

/// One `### Step N:` with a shell block as Changes.
pub struct StepSpec<'a> {
    pub n: u32,
    pub files: &'a str,
    pub script: &'a str,
    pub verify: &'a str,
    pub policy: &'a str,
    /// `commit` for `git commit -m "step N"`, `none`, or a literal Checkpoint value.
    pub checkpoint: &'a str,
}

impl<'a> StepSpec<'a> {
    pub fn new(n: u32, files: &'a str, script: &'a str, verify: &'a str) -> Self {
        StepSpec {
            n,
            files,
            script,
            verify,
            policy: "revert",
            checkpoint: "commit",
        }
    }

    pub fn policy(mut self, policy: &'a str) -> Self {
        self.policy = policy;
        self
    }

    #[allow(dead_code)] // for plans that need another checkpoint
    pub fn checkpoint(mut self, checkpoint: &'a str) -> Self {
        self.checkpoint = checkpoint;
        self
    }

    pub fn render(&self) -> String {
        let script: String = self.script.lines().map(|l| format!("  {l}\n")).collect();
        let checkpoint = match self.checkpoint {
            "commit" => format!("`git commit -m \"step {}\"`", self.n),
            other => other.to_owned(),
        };
        format!(
            "### Step {n}: Step {n}\n\n- **Files:** {files}\n- **Changes:** do it\n  ```sh\n{script}  ```\n- **Verify:** `{verify}`\n- **On failure:** {policy}\n- **Checkpoint:** {checkpoint}\n\n",
            n = self.n,
            files = self.files,
            verify = self.verify,
            policy = self.policy,
        )
    }
}

pub fn plan(steps: &[StepSpec<'_>]) -> String {
    let body: String = steps.iter().map(StepSpec::render).collect();
    format!("# Test plan\n\n## Implementation Plan\n\n{body}")
}
