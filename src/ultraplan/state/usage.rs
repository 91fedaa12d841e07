//! What an agent's attempts cost: `metadata.cost_usd` and `metadata.tokens`
//! of recorded results, summed — per attempt, step, run, plan, agent or
//! day, wherever the record is read back (the final report, `stats`,
//! `export`), and kept in each attempt's summary in the run state, so a
//! run's total is read from the step entries, not from every record. A result without them adds nothing: an executor that reports
//! no cost is not free, its cost is unknown, and `reported` says how many
//! attempts the figures come from.

use serde::{Deserialize, Serialize};

pub use crate::agents::Tokens;

/// Cost and tokens, summed over the attempts that reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// USD; `None` when no attempt reported a cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

impl Usage {
    /// The usage one recorded result (a note or `attempt-<A>.yaml`, or its
    /// `result:` part, or the result itself) reports.
    pub fn of_record(record: &serde_yaml::Value) -> Usage {
        let meta = match &record["result"]["metadata"] {
            serde_yaml::Value::Null => &record["metadata"],
            m => m,
        };
        let cost_usd = meta["cost_usd"].as_f64().filter(|c| c.is_finite() && *c >= 0.0);
        let n = |k: &str| meta["tokens"][k].as_u64().unwrap_or(0);
        let tokens = match &meta["tokens"] {
            serde_yaml::Value::Number(t) => t.as_u64().map(|total| Tokens {
                total,
                ..Tokens::default()
            }),
            serde_yaml::Value::Mapping(_) => Some(Tokens {
                input: n("input"),
                output: n("output"),
                cached: n("cached"),
                total: n("total"),
            }),
            _ => None,
        };
        Usage { cost_usd, tokens }
    }

    pub fn add(&mut self, other: &Usage) {
        if let Some(c) = other.cost_usd {
            *self.cost_usd.get_or_insert(0.0) += c;
        }
        if let Some(t) = other.tokens {
            self.tokens.get_or_insert_with(Tokens::default).add(t);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.cost_usd.is_none() && self.tokens.is_none()
    }

    /// `$0.0123` (cents matter for a step), `$12.34`, or `-` when nothing
    /// reported a cost.
    pub fn cost_text(&self) -> String {
        match self.cost_usd {
            Some(c) if c < 1.0 => format!("${c:.4}"),
            Some(c) => format!("${c:.2}"),
            None => "-".into(),
        }
    }

    /// `1.2k in, 300 out, 4.5k cached`, or `-`.
    pub fn tokens_text(&self) -> String {
        let Some(t) = self.tokens else {
            return "-".into();
        };
        let mut parts = Vec::new();
        if t.input > 0 {
            parts.push(format!("{} in", short(t.input)));
        }
        if t.output > 0 {
            parts.push(format!("{} out", short(t.output)));
        }
        if t.cached > 0 {
            parts.push(format!("{} cached", short(t.cached)));
        }
        // Agents that report only a total (goose).
        if t.total > 0 && parts.is_empty() {
            parts.push(format!("{} total", short(t.total)));
        } else if t.total > 0 {
            parts.push(format!("{} in+out", short(t.total)));
        }
        if parts.is_empty() {
            "-".into()
        } else {
            parts.join(", ")
        }
    }
}

/// `345`, `2.1k`, `12k`, `3.4M`.
fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=9_999 => format!("{:.1}k", n as f64 / 1000.0),
        10_000..=999_999 => format!("{}k", (n as f64 / 1000.0).round() as u64),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_sums_what_results_report() {
        let a: serde_yaml::Value = crate::yaml::parse(
            "result:\n  metadata:\n    cost_usd: 0.0123\n    tokens: {input: 100, output: 30, cached: 20}\n",
        )
        .unwrap();
        let b: serde_yaml::Value = crate::yaml::parse("metadata:\n  tokens: 2345\n").unwrap();
        let none: serde_yaml::Value = crate::yaml::parse("metadata:\n  attempt: 1\n").unwrap();
        let mut u = Usage::of_record(&a);
        u.add(&Usage::of_record(&b));
        u.add(&Usage::of_record(&none));
        assert_eq!(u.cost_usd, Some(0.0123));
        assert_eq!(u.tokens.unwrap().sum(), 2345 + 150);
        assert_eq!(u.tokens.unwrap().input, 100);
        assert_eq!(u.cost_text(), "$0.0123");
        assert_eq!(u.tokens_text(), "100 in, 30 out, 20 cached, 2.3k in+out");
        assert_eq!(Usage::of_record(&b).tokens_text(), "2.3k total");
        assert!(Usage::of_record(&none).is_empty());
        assert_eq!(short(24448), "24k");
    }
}
