//! How a historian run ends — SUCCESS, ERROR or QUESTION — as values, with
//! their RESULT block (DESIGN §9.3, seed 001) and their JSON form
//! (`{"result": "SUCCESS" | "ERROR" | "QUESTION", …}`).

use serde_json::{json, Map, Value};

use crate::git::Oid;

use super::protocol::{ErrorResult, Question, ResultBlock, ResumeValue, Success};

/// The six steps of a run (DESIGN §10.1), named as seed 001 names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Validate = 1,
    Prepare = 2,
    Analyse = 3,
    Plan = 4,
    Execute = 5,
    Verify = 6,
}

impl Step {
    pub fn number(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Step::Validate => "Validate",
            Step::Prepare => "Prepare Materials",
            Step::Analyse => "Analyse Changes",
            Step::Plan => "Plan Commits",
            Step::Execute => "Execute Plan",
            Step::Verify => "Verify Result",
        }
    }

    /// `5 (Execute Plan)`.
    pub fn label(self) -> String {
        format!("{} ({})", self.number(), self.name())
    }
}

/// A commit of the clean branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltCommit {
    pub id: Oid,
    pub short: String,
    pub subject: String,
    pub files: usize,
    pub lines: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    pub original_branch: String,
    pub clean_branch: String,
    pub base: Oid,
    pub base_short: String,
    pub original_tip: Oid,
    pub tip_short: String,
    pub tree: Oid,
    pub commits: Vec<BuiltCommit>,
    /// The stack branches made (`clean --stack`), in commit order.
    pub stack: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    pub step: Step,
    /// Where it happened, after the step (`Original branch`, `Commit`, …).
    pub context: Vec<(String, String)>,
    pub description: String,
    pub details: Option<String>,
    /// Advice printed on stderr as `hint:` lines.
    pub hint: Option<String>,
}

impl Failed {
    pub fn new(step: Step, description: impl Into<String>) -> Failed {
        Failed {
            step,
            context: Vec::new(),
            description: description.into(),
            details: None,
            hint: None,
        }
    }

    pub fn details(mut self, details: impl Into<String>) -> Failed {
        self.details = Some(details.into());
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Failed {
        self.hint = Some(hint.into());
        self
    }

    pub fn context(mut self, key: &str, value: impl Into<String>) -> Failed {
        self.context.push((key.to_owned(), value.into()));
        self
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    pub question: Question,
    /// The session ref holding the resume state.
    pub session: String,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success(Done),
    Error(Failed),
    Question(Asked),
}

impl Outcome {
    /// The RESULT block.
    pub fn block(&self) -> ResultBlock {
        match self {
            Outcome::Success(d) => {
                let mut fields = vec![
                    ("Original branch".to_owned(), d.original_branch.clone()),
                    ("Clean branch".to_owned(), d.clean_branch.clone()),
                    ("Base commit".to_owned(), d.base_short.clone()),
                    ("Commits created".to_owned(), d.commits.len().to_string()),
                    ("Original tip".to_owned(), d.tip_short.clone()),
                    (
                        "Tree".to_owned(),
                        format!("{} (identical to the original tip)", d.tree.to_hex_with_len(12)),
                    ),
                ];
                let list: Vec<String> = d.commits.iter().map(|c| format!("{} {}", c.short, c.subject)).collect();
                if !list.is_empty() {
                    fields.push(("Commits".to_owned(), format!("\n{}", list.join("\n"))));
                }
                if !d.stack.is_empty() {
                    fields.push(("Stack branches".to_owned(), format!("\n{}", d.stack.join("\n"))));
                }
                ResultBlock::Success(Success { fields })
            }
            Outcome::Error(f) => {
                let mut context = vec![("Step".to_owned(), f.step.label())];
                context.extend(f.context.iter().cloned());
                ResultBlock::Error(ErrorResult {
                    context,
                    description: f.description.clone(),
                    details: f.details.clone(),
                })
            }
            Outcome::Question(a) => ResultBlock::Question(a.question.clone()),
        }
    }

    /// The JSON form: the same as data.
    pub fn json(&self) -> Value {
        match self {
            Outcome::Success(d) => json!({
                "result": "SUCCESS",
                "original_branch": d.original_branch,
                "clean_branch": d.clean_branch,
                "base_commit": d.base.to_string(),
                "commits_created": d.commits.len(),
                "original_tip": d.original_tip.to_string(),
                "tree": d.tree.to_string(),
                "commits": d.commits.iter().map(|c| json!({
                    "id": c.id.to_string(),
                    "subject": c.subject,
                    "files": c.files,
                    "lines": c.lines,
                })).collect::<Vec<_>>(),
                "stack_branches": d.stack,
            }),
            Outcome::Error(f) => {
                let mut context = Map::new();
                for (k, v) in &f.context {
                    context.insert(snake(k), Value::String(v.clone()));
                }
                json!({
                    "result": "ERROR",
                    "step": f.step.number(),
                    "step_name": f.step.name(),
                    "context": context,
                    "description": f.description,
                    "details": f.details,
                })
            }
            Outcome::Question(a) => {
                let mut value = question_json(&a.question);
                value["session"] = Value::String(a.session.clone());
                value
            }
        }
    }
}

/// A QUESTION as JSON, nested results included.
pub fn question_json(q: &Question) -> Value {
    let mut state = Map::new();
    for entry in &q.resume_state {
        let value = match &entry.value {
            ResumeValue::Text(t) => Value::String(t.clone()),
            ResumeValue::Nested(block) => block_json(block),
        };
        state.insert(snake(&entry.key), value);
    }
    json!({
        "result": "QUESTION",
        "context": q.context,
        "resume_state": state,
        "question": q.question,
        "options": q.options,
        "prompt": q.prompt,
    })
}

/// Any RESULT block as JSON (a commit writer's, nested in a question).
pub fn block_json(block: &ResultBlock) -> Value {
    match block {
        ResultBlock::Success(s) => {
            let mut m = Map::new();
            m.insert("result".into(), "SUCCESS".into());
            for (k, v) in &s.fields {
                m.insert(snake(k), Value::String(v.clone()));
            }
            Value::Object(m)
        }
        ResultBlock::Error(e) => {
            let mut context = Map::new();
            for (k, v) in &e.context {
                context.insert(snake(k), Value::String(v.clone()));
            }
            json!({"result": "ERROR", "context": context, "description": e.description, "details": e.details})
        }
        ResultBlock::Question(q) => question_json(q),
    }
}

/// `Commit-writer question` → `commit_writer_question`.
pub fn snake(key: &str) -> String {
    let mut out = String::new();
    for c in key.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_owned()
}
