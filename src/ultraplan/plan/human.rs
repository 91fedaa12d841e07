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
    /// GSD's `gate="blocking-human"`: only an answer given to this very
    /// check, after the run stopped at it, passes it — never
    /// `--allow-unverified`, an answer meant for another check, or one an
    /// orchestrator hands to several sessions.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blocking: bool,
    /// An end-of-phase review's checks (GSD `<verify><human-check>`
    /// collected over the phase), answered one by one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ReviewItem>,
}

/// One check of an end-of-phase review.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReviewItem {
    /// What to do (`<test>`).
    pub test: String,
    /// What the person should see (`<expected>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// Why no command can check it (`<why_human>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_human: Option<String>,
    /// The step whose `<verify>` holds it.
    pub step: u32,
}

impl HumanCheck {
    /// A checkpoint task needs the person instead of the executor; a prose
    /// Verify needs them after it.
    pub fn replaces_executor(&self) -> bool {
        self.kind != HumanKind::Check
    }

    /// A human check with no items, of `kind`, saying `text`.
    pub fn new(kind: HumanKind, text: impl Into<String>) -> HumanCheck {
        HumanCheck {
            kind,
            text: text.into(),
            options: Vec::new(),
            resume_signal: None,
            blocking: false,
            items: Vec::new(),
        }
    }

    /// The text shown when the run stops here.
    pub fn prompt(&self) -> String {
        let mut out = match self.kind {
            HumanKind::Verify => format!("Check this by hand:\n{}", self.text),
            HumanKind::Decision => format!("Decide:\n{}", self.text),
            HumanKind::Action => format!("Do this by hand:\n{}", self.text),
            HumanKind::Check => format!("Verify is prose, not a command; check it by hand:\n{}", self.text),
            HumanKind::Review => return self.review_prompt(&Default::default()),
        };
        if self.blocking {
            out.push_str("\n(gate=\"blocking-human\": only your answer to this check passes it)");
        }
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
    /// The end of a GSD phase: every `<verify><human-check>` of its tasks,
    /// reviewed by a person in one sitting (GSD's HUMAN-UAT).
    Review,
}

impl HumanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HumanKind::Verify => "human-verify",
            HumanKind::Decision => "decision",
            HumanKind::Action => "human-action",
            HumanKind::Check => "check",
            HumanKind::Review => "review",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HumanOption {
    pub id: String,
    pub name: String,
}
