//! What an agent says about its run, read from its machine output: claims to
//! record, never to trust.

use serde::{Deserialize, Serialize};

/// Token usage as the agent reports it, summed over its turns.
///
/// `input` is the input billed at the full rate (for agents that count
/// cached input inside their input total, the cached part is taken out;
/// tokens written to a prompt cache count here), `cached` the input read
/// from a prompt cache, `output` what the model generated (reasoning
/// included where the agent counts it apart).
///
/// An agent that reports only a total (goose) has it in `total`, the
/// others zero; a sum over several agents adds both kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tokens {
    #[serde(skip_serializing_if = "is_zero")]
    pub input: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub output: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub cached: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub total: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Tokens {
    pub fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
        self.total += other.total;
    }

    /// Everything counted (`total` holds only what came without a split).
    pub fn sum(&self) -> u64 {
        self.input + self.output + self.cached + self.total
    }
}

/// A limit the agent stopped at, named as it names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Its maximum number of turns (`--max-turns`, `maxSessionTurns`, …).
    Turns,
    /// Its spending limit (`--max-budget-usd`).
    Budget,
}

impl Limit {
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Turns => "its turn limit",
            Limit::Budget => "its budget limit",
        }
    }
}

/// The agent's own account of its run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Its last message (the answer).
    pub final_text: Option<String>,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub turns: Option<u32>,
    pub tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    /// Its own error text, when it reported one (even with exit 0).
    pub error: Option<String>,
    /// A turn or budget limit it stopped at.
    pub limit: Option<Limit>,
    /// Its final event arrived (the stream was not cut short).
    pub finished: bool,
}

impl Report {
    /// Adds one turn's tokens.
    pub fn add_tokens(&mut self, t: Tokens) {
        self.tokens.get_or_insert_with(Tokens::default).add(t);
    }

    /// Adds one step's cost.
    pub fn add_cost(&mut self, usd: f64) {
        if usd.is_finite() && usd >= 0.0 {
            *self.cost_usd.get_or_insert(0.0) += usd;
        }
    }

    /// Keeps the first error and adds later ones on new lines.
    pub fn add_error(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        match &mut self.error {
            Some(e) if !e.contains(text) => {
                e.push('\n');
                e.push_str(text);
            }
            Some(_) => {}
            None => self.error = Some(text.to_owned()),
        }
    }
}

/// What the agent is doing now, for the live status line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Activity {
    /// The tool it calls (`Edit`, `shell`).
    pub tool: Option<String>,
    /// The file it edits or the command it runs.
    pub target: Option<String>,
    /// Turns so far.
    pub turns: u32,
    /// Cost so far, when the agent reports it as it goes.
    pub cost_usd: Option<f64>,
}

impl Activity {
    /// One line: `Edit src/lib.rs · turn 3 · $0.04`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match (&self.tool, &self.target) {
            (Some(tool), Some(target)) => parts.push(format!("{tool} {}", shorten(target, 60))),
            (Some(tool), None) => parts.push(tool.clone()),
            (None, Some(target)) => parts.push(shorten(target, 60)),
            (None, None) => parts.push("thinking".into()),
        }
        if self.turns > 0 {
            parts.push(format!("turn {}", self.turns));
        }
        if let Some(cost) = self.cost_usd {
            parts.push(format!("${cost:.2}"));
        }
        parts.join(" · ")
    }
}

/// The first line of `text`, at most `n` characters.
fn shorten(text: &str, n: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= n {
        line.to_owned()
    } else {
        let cut: String = line.chars().take(n.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
