//! The seed's records — `ProductionOutcome`, `ExtractedPlan` and the training
//! example pairing them — and the checks an outcome passes before it is
//! stored: types, sizes, nesting depth and agent names safe as a folder.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use anyhow::{anyhow, bail, Context as _, Result};

/// The largest `outcome log` input read (a JSON document on stdin); anything
/// longer is refused by its size before it is parsed.
pub const MAX_INPUT_BYTES: usize = 1 << 20;
/// The largest task description, in bytes.
pub const MAX_TASK_BYTES: usize = 16 * 1024;
/// The longest error message, in bytes.
pub const MAX_ERROR_BYTES: usize = 16 * 1024;
/// The most steps an execution path may hold, and the longest step.
pub const MAX_PATH_STEPS: usize = 1000;
pub const MAX_STEP_BYTES: usize = 1024;
/// How deeply `result` and `context` may nest objects and arrays.
pub const MAX_DEPTH: usize = 16;
/// The longest agent name.
pub const MAX_AGENT_BYTES: usize = 64;

/// What happened: one execution by one agent (the seed's `ProductionOutcome`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub outcome_id: String,
    pub task_description: String,
    pub agent_name: String,
    pub execution_path: Vec<String>,
    pub result: Map<String, Value>,
    pub success: bool,
    pub error_message: Option<String>,
    /// Seconds.
    pub execution_time: f64,
    /// ISO 8601, UTC.
    pub timestamp: String,
    pub context: Map<String, Value>,
    /// The seed's tags: production, outcome, success|failure.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// The plan reverse-engineered from an outcome (the seed's `ExtractedPlan`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtractedPlan {
    pub plan_id: String,
    pub outcome_id: String,
    pub strategy_description: String,
    pub reasoning_pattern: String,
    pub tools_sequence: Vec<String>,
    pub key_decisions: Vec<String>,
    pub success_factors: Vec<String>,
    pub failure_factors: Vec<String>,
    pub confidence: f64,
    pub timestamp: String,
    /// `rules`, or `command` for `ultraplan.outcomes.extractor` (not in the seed).
    #[serde(default = "rules")]
    pub extracted_by: String,
}

fn rules() -> String {
    "rules".into()
}

/// An outcome with the plan extracted from it, as the seed's training namespace holds them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingExample {
    pub training_id: String,
    pub outcome: Outcome,
    pub plan: ExtractedPlan,
    pub tags: Vec<String>,
}

impl TrainingExample {
    pub fn new(outcome: Outcome, plan: ExtractedPlan) -> TrainingExample {
        TrainingExample {
            training_id: format!("training_{}", plan.plan_id),
            outcome,
            plan,
            tags: vec!["se_darwin".into(), "training".into(), "production_learning".into()],
        }
    }
}

/// The arguments of the seed's `log_outcome()`: what an agent reports.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutcomeInput {
    #[serde(alias = "task_description")]
    pub task: String,
    #[serde(alias = "agent")]
    pub agent_name: String,
    pub success: bool,
    #[serde(default)]
    pub execution_path: Vec<String>,
    #[serde(default)]
    pub result: Map<String, Value>,
    #[serde(default)]
    pub error_message: Option<String>,
    #[serde(default)]
    pub execution_time: f64,
    #[serde(default)]
    pub context: Map<String, Value>,
}

impl OutcomeInput {
    /// One JSON object, refused by size before it is parsed.
    pub fn from_json(bytes: &[u8]) -> Result<OutcomeInput> {
        if bytes.len() > MAX_INPUT_BYTES {
            bail!(
                "the outcome is larger than {} bytes; it is refused unread",
                MAX_INPUT_BYTES
            );
        }
        let text = std::str::from_utf8(bytes).context("the outcome is not UTF-8")?;
        if text.trim().is_empty() {
            bail!("no outcome on stdin: expected one JSON object");
        }
        let value: Value = serde_json::from_str(text).context("the outcome is not JSON")?;
        if !value.is_object() {
            bail!("the outcome must be one JSON object, not {}", kind_of(&value));
        }
        serde_json::from_value(value).context("invalid outcome")
    }

    /// Every check the stored outcome must pass; the first failure names the field.
    pub fn validate(&self) -> Result<()> {
        agent_name_problem(&self.agent_name).map_or(Ok(()), |p| Err(anyhow!("invalid agent_name: {p}")))?;
        if self.task.trim().is_empty() {
            bail!("invalid task: it is empty");
        }
        if self.task.len() > MAX_TASK_BYTES {
            bail!(
                "invalid task: {} bytes, at most {MAX_TASK_BYTES} are allowed",
                self.task.len()
            );
        }
        if self.execution_path.len() > MAX_PATH_STEPS {
            bail!(
                "invalid execution_path: {} steps, at most {MAX_PATH_STEPS} are allowed",
                self.execution_path.len()
            );
        }
        for (i, step) in self.execution_path.iter().enumerate() {
            if step.trim().is_empty() {
                bail!("invalid execution_path: step {} is empty", i + 1);
            }
            if step.len() > MAX_STEP_BYTES {
                bail!(
                    "invalid execution_path: step {} is {} bytes, at most {MAX_STEP_BYTES} are allowed",
                    i + 1,
                    step.len()
                );
            }
        }
        if let Some(error) = &self.error_message {
            if error.len() > MAX_ERROR_BYTES {
                bail!(
                    "invalid error_message: {} bytes, at most {MAX_ERROR_BYTES} are allowed",
                    error.len()
                );
            }
        }
        if !self.execution_time.is_finite() || self.execution_time < 0.0 {
            bail!(
                "invalid execution_time: {} is not a number of seconds ≥ 0",
                self.execution_time
            );
        }
        for (name, map) in [("result", &self.result), ("context", &self.context)] {
            if depth(&Value::Object(map.clone())) > MAX_DEPTH {
                bail!("invalid {name}: nested deeper than {MAX_DEPTH} levels");
            }
        }
        Ok(())
    }
}

/// Why `name` cannot be an agent's folder name, if it cannot.
pub fn agent_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.len() > MAX_AGENT_BYTES {
        return Some(format!("'{name}' is longer than {MAX_AGENT_BYTES} bytes"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!("'{name}' holds {c:?}; use letters, digits, '-', '_' and '.'"));
    }
    if name.starts_with('.') || name.contains("..") || name.ends_with(".lock") {
        return Some(format!("'{name}' cannot start with '.', hold '..' or end in '.lock'"));
    }
    None
}

/// An agent name made from anything (an executor's command line): the
/// characters allowed in [`agent_name_problem`], the rest as `-`.
pub fn agent_name_from(text: &str) -> String {
    let mut name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' })
        .collect();
    while name.contains("--") {
        name = name.replace("--", "-");
    }
    let name = name.trim_matches('-');
    let name: String = name.chars().take(MAX_AGENT_BYTES).collect();
    if name.is_empty() {
        "agent".into()
    } else {
        name
    }
}

/// Whether `id` looks like an outcome id (`outcome_<agent>_<8 hex>`), so
/// that it can be looked up as a file name safely.
pub fn outcome_id_problem(id: &str) -> Option<String> {
    let Some(rest) = id.strip_prefix("outcome_") else {
        return Some(format!("'{id}' is not an outcome id (outcome_<agent>_<8 hex digits>)"));
    };
    let Some((agent, hex)) = rest.rsplit_once('_') else {
        return Some(format!("'{id}' is not an outcome id (outcome_<agent>_<8 hex digits>)"));
    };
    if hex.len() != 8 || !hex.chars().all(|c| c.is_ascii_hexdigit()) || agent_name_problem(agent).is_some() {
        return Some(format!("'{id}' is not an outcome id (outcome_<agent>_<8 hex digits>)"));
    }
    None
}

/// The agent part of a valid outcome id.
pub fn agent_of(id: &str) -> Option<&str> {
    id.strip_prefix("outcome_")?.rsplit_once('_').map(|(agent, _)| agent)
}

/// Eight hex digits that differ between processes, calls and instants.
pub fn random_hex8(salt: &str) -> String {
    use std::hash::{BuildHasher, Hash, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // RandomState is seeded from the OS per process; the rest separates calls.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    salt.hash(&mut hasher);
    std::process::id().hash(&mut hasher);
    COUNTER.fetch_add(1, Ordering::Relaxed).hash(&mut hasher);
    std::time::SystemTime::now().hash(&mut hasher);
    format!("{:08x}", hasher.finish() as u32)
}

fn depth(value: &Value) -> usize {
    // Iterative, so a hostile document cannot overflow the stack.
    let mut deepest = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Object(map) => stack.extend(map.values().map(|c| (c, d + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    deepest
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_names_with_path_characters_are_refused() {
        for bad in ["../x", "a/b", "", ".hidden", "a..b", "x.lock", "a b", "a\\b", "é"] {
            assert!(agent_name_problem(bad).is_some(), "{bad}");
        }
        for good in ["builder", "qa-2", "claude_code", "v1.2"] {
            assert_eq!(agent_name_problem(good), None, "{good}");
        }
        assert!(agent_name_problem(&"a".repeat(65)).is_some());
    }

    #[test]
    fn executor_command_lines_become_agent_names() {
        assert_eq!(agent_name_from("command: ./my agent --fast"), "command-my-agent-fast");
        assert_eq!(agent_name_from("shell"), "shell");
        assert_eq!(agent_name_from("../.."), "agent");
        assert_eq!(agent_name_problem(&agent_name_from(&"x/".repeat(100))), None);
    }

    #[test]
    fn outcome_ids_are_checked() {
        assert_eq!(outcome_id_problem("outcome_builder_7f3a2c1b"), None);
        assert_eq!(agent_of("outcome_qa-2_7f3a2c1b"), Some("qa-2"));
        for bad in [
            "outcome_builder_7f3a2c1",
            "outcome_../x_7f3a2c1b",
            "plan_x",
            "outcome_builder_zzzzzzzz",
        ] {
            assert!(outcome_id_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn json_input_is_typed_and_named() {
        let input = OutcomeInput::from_json(br#"{"task":"t","agent_name":"a","success":true}"#).unwrap();
        assert_eq!(input.execution_time, 0.0);
        let err = OutcomeInput::from_json(br#"{"task":"t","agent_name":"a","success":"yes"}"#).unwrap_err();
        assert!(format!("{err:#}").contains("invalid type"), "{err:#}");
        let err = OutcomeInput::from_json(b"not json").unwrap_err();
        assert!(format!("{err:#}").contains("not JSON"), "{err:#}");
        let err = OutcomeInput::from_json(b"[1]").unwrap_err();
        assert!(format!("{err:#}").contains("not an array"), "{err:#}");
        let err = OutcomeInput::from_json(br#"{"task":"t","agent_name":"a","success":true,"extra":1}"#).unwrap_err();
        assert!(format!("{err:#}").contains("unknown field `extra`"), "{err:#}");
        let err = OutcomeInput::from_json(&vec![b' '; MAX_INPUT_BYTES + 1]).unwrap_err();
        assert!(format!("{err:#}").contains("refused unread"), "{err:#}");
    }

    #[test]
    fn validation_names_the_field() {
        let ok = OutcomeInput {
            task: "t".into(),
            agent_name: "a".into(),
            success: true,
            ..Default::default()
        };
        assert!(ok.validate().is_ok());
        let cases: Vec<(OutcomeInput, &str)> = vec![
            (
                OutcomeInput {
                    task: "x".repeat(MAX_TASK_BYTES + 1),
                    ..ok.clone()
                },
                "invalid task",
            ),
            (
                OutcomeInput {
                    execution_time: -1.0,
                    ..ok.clone()
                },
                "invalid execution_time",
            ),
            (
                OutcomeInput {
                    execution_path: vec!["s".into(); MAX_PATH_STEPS + 1],
                    ..ok.clone()
                },
                "invalid execution_path",
            ),
            (
                OutcomeInput {
                    agent_name: "../x".into(),
                    ..ok.clone()
                },
                "invalid agent_name",
            ),
        ];
        for (input, message) in cases {
            let err = input.validate().unwrap_err().to_string();
            assert!(err.contains(message), "{err}");
        }
        let mut deep = Value::Null;
        for _ in 0..MAX_DEPTH + 1 {
            deep = Value::Array(vec![deep]);
        }
        let mut result = Map::new();
        result.insert("x".into(), deep);
        let err = OutcomeInput { result, ..ok }.validate().unwrap_err().to_string();
        assert!(err.contains("invalid result: nested deeper"), "{err}");
    }
}
