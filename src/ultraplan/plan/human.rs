//! Steps for a person: a GSD checkpoint task (look at what was built,
//! decide between options, do what only a person can) or a Verify written as
//! prose. The run stops at them (status `waiting`, exit 3) showing
//! [`HumanCheck::prompt`]; `run --resume --answer` gives the answer.

use serde::Serialize;

/// What a person is asked to check, do or decide.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HumanCheck {
    pub kind: HumanKind,
    /// What to check, do or decide, as written.
    pub text: String,
    /// A decision's options.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<HumanOption>,
    /// How the plan says to answer (`<resume-signal>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_signal: Option<String>,
}

impl HumanCheck {
    /// A checkpoint task needs the person instead of the executor; a prose
    /// Verify needs them after it.
    pub fn replaces_executor(&self) -> bool {
        self.kind != HumanKind::Check
    }

    /// The text shown when the run stops here.
    pub fn prompt(&self) -> String {
        let mut out = match self.kind {
            HumanKind::Verify => format!("Check this by hand:\n{}", self.text),
            HumanKind::Decision => format!("Decide:\n{}", self.text),
            HumanKind::Action => format!("Do this by hand:\n{}", self.text),
            HumanKind::Check => format!("Verify is prose, not a command; check it by hand:\n{}", self.text),
        };
        for o in &self.options {
            out.push_str(&format!("\n  {}: {}", o.id, o.name));
        }
        if let Some(signal) = &self.resume_signal {
            out.push_str(&format!("\nThe plan asks: {signal}"));
        }
        out.push_str(&format!("\n{ANSWER_HINT}"));
        out
    }

    /// The option an answer names (its id, its name, or its 1-based
    /// position), or the answer itself when there are no options. `None` when
    /// it names no option.
    pub fn accept(&self, answer: &str) -> Option<String> {
        let a = answer.trim();
        if a.is_empty() {
            return None;
        }
        if self.options.is_empty() {
            return Some(a.to_owned());
        }
        let by_position = a
            .parse::<usize>()
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.options.get(i));
        self.options
            .iter()
            .find(|o| o.id.eq_ignore_ascii_case(a) || o.name.eq_ignore_ascii_case(a))
            .or(by_position)
            .map(|o| o.id.clone())
    }
}

/// The last line of a person's prompt: how to answer.
pub const ANSWER_HINT: &str =
    "Answer with 'git ultraplan run --resume --answer <text>' (for a decision, an option id).";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HumanKind {
    /// `checkpoint:human-verify`: look at what was built.
    Verify,
    /// `checkpoint:decision`: choose one of the options.
    Decision,
    /// `checkpoint:human-action`: do what only a person can.
    Action,
    /// A Verify (or `<manual>`) written as prose: a check for a person.
    Check,
}

impl HumanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HumanKind::Verify => "human-verify",
            HumanKind::Decision => "decision",
            HumanKind::Action => "human-action",
            HumanKind::Check => "check",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HumanOption {
    pub id: String,
    pub name: String,
}
