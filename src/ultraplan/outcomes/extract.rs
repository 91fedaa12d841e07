//! Extraction: the plan behind an outcome, by the seed's rules exactly, or by
//! a command (`ultraplan.outcomes.extractor`) whose answer is checked against
//! the outcome before it is believed. Rules claim only what the outcome's
//! shape shows — path length, time, an explicit status — never intent.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use serde::Deserialize;
use serde_json::Value;

use super::model::{ExtractedPlan, Outcome};
use crate::process;

/// The seed's confidence for rule-based plans.
pub const RULES_CONFIDENCE: f64 = 0.8;
/// The seed's confidence for plans from a model (here: a command).
pub const COMMAND_CONFIDENCE: f64 = 0.95;
/// The most a command extractor may print.
const EXTRACTOR_OUTPUT_CAP: usize = 1 << 20;

/// A command that extracts plans: JSON outcome on stdin, JSON plan on stdout.
#[derive(Clone, Debug)]
pub struct ExtractorCommand {
    pub command: String,
    pub timeout: Duration,
}

/// How a plan was extracted, and why the rules decided when a command was configured.
#[derive(Clone, Debug)]
pub struct Extraction {
    pub plan: ExtractedPlan,
    pub warning: Option<String>,
}

/// The seed's rule set.
pub fn by_rules(outcome: &Outcome, timestamp: &str) -> ExtractedPlan {
    ExtractedPlan {
        plan_id: plan_id(&outcome.outcome_id),
        outcome_id: outcome.outcome_id.clone(),
        strategy_description: strategy(&outcome.execution_path),
        reasoning_pattern: reasoning_pattern(outcome.execution_path.len()).into(),
        tools_sequence: outcome.execution_path.clone(),
        key_decisions: key_decisions(&outcome.execution_path),
        success_factors: if outcome.success {
            success_factors(outcome)
        } else {
            Vec::new()
        },
        failure_factors: if outcome.success {
            Vec::new()
        } else {
            failure_factors(outcome)
        },
        confidence: RULES_CONFIDENCE,
        timestamp: timestamp.to_owned(),
        extracted_by: "rules".into(),
    }
}

/// By `command` when there is one, falling back to the rules (with a
/// warning saying why) when it fails, times out or answers something the
/// outcome does not support.
pub fn extract(outcome: &Outcome, command: Option<&ExtractorCommand>, cwd: &Path, timestamp: &str) -> Extraction {
    let Some(command) = command else {
        return Extraction {
            plan: by_rules(outcome, timestamp),
            warning: None,
        };
    };
    match by_command(outcome, command, cwd, timestamp) {
        Ok(plan) => Extraction { plan, warning: None },
        Err(err) => Extraction {
            plan: by_rules(outcome, timestamp),
            warning: Some(format!(
                "the extractor '{}' failed ({err:#}); the plan of {} was extracted by rules",
                command.command, outcome.outcome_id
            )),
        },
    }
}

pub fn plan_id(outcome_id: &str) -> String {
    format!("plan_{outcome_id}")
}

fn strategy(path: &[String]) -> String {
    format!("Sequential execution: {}", path.join(" → "))
}

/// ≤ 2 steps direct, 3–5 iterative, more complex.
fn reasoning_pattern(steps: usize) -> &'static str {
    match steps {
        0..=2 => "direct_implementation",
        3..=5 => "iterative_refinement",
        _ => "complex_multi_step",
    }
}

fn key_decisions(path: &[String]) -> Vec<String> {
    path.iter()
        .enumerate()
        .map(|(i, step)| format!("Step {}: {step}", i + 1))
        .collect()
}

fn success_factors(outcome: &Outcome) -> Vec<String> {
    let mut factors = Vec::new();
    if outcome.execution_time < 5.0 {
        factors.push("Fast execution (< 5s)".into());
    }
    if outcome.execution_path.len() <= 5 {
        factors.push("Efficient path (≤ 5 steps)".into());
    }
    if outcome.result.get("status").and_then(Value::as_str) == Some("success") {
        factors.push("Explicit success status in result".into());
    }
    factors
}

fn failure_factors(outcome: &Outcome) -> Vec<String> {
    let mut factors = Vec::new();
    if let Some(error) = outcome.error_message.as_deref().filter(|e| !e.trim().is_empty()) {
        factors.push(format!("Error: {error}"));
    }
    if outcome.execution_time > 30.0 {
        factors.push("Slow execution (> 30s)".into());
    }
    if outcome.execution_path.len() > 10 {
        factors.push("Inefficient path (> 10 steps)".into());
    }
    factors
}

/// What a command extractor answers: the plan's content fields.
#[derive(Debug, Deserialize)]
struct CommandPlan {
    strategy_description: String,
    reasoning_pattern: String,
    tools_sequence: Vec<String>,
    #[serde(default)]
    key_decisions: Vec<String>,
    #[serde(default)]
    success_factors: Vec<String>,
    #[serde(default)]
    failure_factors: Vec<String>,
    #[serde(default)]
    confidence: Option<f64>,
}

fn by_command(outcome: &Outcome, command: &ExtractorCommand, cwd: &Path, timestamp: &str) -> Result<ExtractedPlan> {
    let input = serde_json::to_vec(outcome)?;
    let finished = process::run(process::Spec {
        program: "sh",
        args: vec!["-c".into(), command.command.clone()],
        cwd,
        env: Vec::new(),
        stdin: Some(input),
        timeout: command.timeout,
        cap: EXTRACTOR_OUTPUT_CAP,
    })?;
    if !finished.ending.success() {
        bail!("{}", finished.ending.describe());
    }
    let answer: CommandPlan = serde_json::from_str(finished.stdout.trim()).context("its answer is not a JSON plan")?;
    check(&answer, outcome)?;
    Ok(ExtractedPlan {
        plan_id: plan_id(&outcome.outcome_id),
        outcome_id: outcome.outcome_id.clone(),
        strategy_description: answer.strategy_description,
        reasoning_pattern: answer.reasoning_pattern,
        tools_sequence: answer.tools_sequence,
        key_decisions: answer.key_decisions,
        success_factors: answer.success_factors,
        failure_factors: answer.failure_factors,
        confidence: COMMAND_CONFIDENCE,
        timestamp: timestamp.to_owned(),
        extracted_by: "command".into(),
    })
}

/// A command's plan must be drawn from the outcome: every tool in its
/// sequence is a step of the execution path, in the path's order.
fn check(answer: &CommandPlan, outcome: &Outcome) -> Result<()> {
    if answer.strategy_description.trim().is_empty() {
        bail!("its strategy_description is empty");
    }
    if answer.reasoning_pattern.trim().is_empty() {
        bail!("its reasoning_pattern is empty");
    }
    if let Some(c) = answer.confidence {
        if !(0.0..=1.0).contains(&c) {
            bail!("its confidence {c} is not in [0, 1]");
        }
    }
    let mut rest = outcome.execution_path.iter();
    for tool in &answer.tools_sequence {
        if !rest.any(|step| step == tool) {
            bail!("its tools_sequence names '{tool}', which is not (in that order) in the execution path");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn outcome(steps: usize, seconds: f64, success: bool) -> Outcome {
        Outcome {
            outcome_id: "outcome_builder_7f3a2c1b".into(),
            task_description: "Build endpoint".into(),
            agent_name: "builder".into(),
            execution_path: (1..=steps).map(|i| format!("s{i}")).collect(),
            result: Map::new(),
            success,
            error_message: None,
            execution_time: seconds,
            timestamp: "2025-10-24T00:00:00Z".into(),
            context: Map::new(),
            tags: Vec::new(),
        }
    }

    fn pattern(steps: usize) -> String {
        by_rules(&outcome(steps, 1.0, true), "t").reasoning_pattern
    }

    #[test]
    fn reasoning_pattern_edges() {
        assert_eq!(pattern(0), "direct_implementation");
        assert_eq!(pattern(2), "direct_implementation");
        assert_eq!(pattern(3), "iterative_refinement");
        assert_eq!(pattern(5), "iterative_refinement");
        assert_eq!(pattern(6), "complex_multi_step");
        assert_eq!(pattern(11), "complex_multi_step");
    }

    #[test]
    fn efficient_path_edge_is_five_steps() {
        let five = by_rules(&outcome(5, 10.0, true), "t").success_factors;
        assert_eq!(five, vec!["Efficient path (≤ 5 steps)"]);
        let six = by_rules(&outcome(6, 10.0, true), "t").success_factors;
        assert!(six.is_empty(), "{six:?}");
    }

    #[test]
    fn inefficient_path_edge_is_ten_steps() {
        let ten = by_rules(&outcome(10, 10.0, false), "t").failure_factors;
        assert!(ten.is_empty(), "{ten:?}");
        let eleven = by_rules(&outcome(11, 10.0, false), "t").failure_factors;
        assert_eq!(eleven, vec!["Inefficient path (> 10 steps)"]);
    }

    #[test]
    fn fast_execution_edge_is_five_seconds() {
        let under = by_rules(&outcome(6, 4.999, true), "t").success_factors;
        assert_eq!(under, vec!["Fast execution (< 5s)"]);
        let at = by_rules(&outcome(6, 5.0, true), "t").success_factors;
        assert!(at.is_empty(), "{at:?}");
    }

    #[test]
    fn slow_execution_edge_is_thirty_seconds() {
        let at = by_rules(&outcome(1, 30.0, false), "t").failure_factors;
        assert!(at.is_empty(), "{at:?}");
        let over = by_rules(&outcome(1, 30.001, false), "t").failure_factors;
        assert_eq!(over, vec!["Slow execution (> 30s)"]);
    }

    #[test]
    fn the_seeds_example() {
        let mut o = outcome(0, 4.2, true);
        o.execution_path = [
            "analyze_requirements",
            "generate_endpoint_code",
            "add_jwt_validation",
            "write_tests",
            "validate_security",
        ]
        .map(String::from)
        .to_vec();
        o.result.insert("status".into(), "success".into());
        let plan = by_rules(&o, "t");
        assert_eq!(plan.plan_id, "plan_outcome_builder_7f3a2c1b");
        assert_eq!(
            plan.strategy_description,
            "Sequential execution: analyze_requirements → generate_endpoint_code → add_jwt_validation → write_tests → validate_security"
        );
        assert_eq!(plan.reasoning_pattern, "iterative_refinement");
        assert_eq!(plan.tools_sequence, o.execution_path);
        assert_eq!(plan.key_decisions[0], "Step 1: analyze_requirements");
        assert_eq!(plan.key_decisions[4], "Step 5: validate_security");
        assert_eq!(
            plan.success_factors,
            vec![
                "Fast execution (< 5s)",
                "Efficient path (≤ 5 steps)",
                "Explicit success status in result"
            ]
        );
        assert!(plan.failure_factors.is_empty());
        assert_eq!(plan.confidence, 0.8);
    }

    #[test]
    fn failures_name_their_error() {
        let mut o = outcome(2, 1.0, false);
        o.error_message = Some("verify exit 1".into());
        let plan = by_rules(&o, "t");
        assert_eq!(plan.failure_factors, vec!["Error: verify exit 1"]);
        assert!(plan.success_factors.is_empty());
    }

    fn answer(tools: &[&str], confidence: Option<f64>) -> CommandPlan {
        CommandPlan {
            strategy_description: "s".into(),
            reasoning_pattern: "r".into(),
            tools_sequence: tools.iter().map(|t| t.to_string()).collect(),
            key_decisions: Vec::new(),
            success_factors: Vec::new(),
            failure_factors: Vec::new(),
            confidence,
        }
    }

    #[test]
    fn a_commands_plan_is_checked_against_the_outcome() {
        let o = outcome(3, 1.0, true);
        assert!(check(&answer(&["s1", "s3"], Some(0.5)), &o).is_ok());
        assert!(check(&answer(&["s3", "s1"], None), &o).is_err());
        assert!(check(&answer(&["s9"], None), &o).is_err());
        assert!(check(&answer(&["s1"], Some(1.5)), &o).is_err());
        assert!(check(&answer(&["s1"], Some(-0.1)), &o).is_err());
    }

    #[test]
    fn a_failing_command_falls_back_to_rules() {
        let o = outcome(3, 1.0, true);
        let dir = std::env::temp_dir();
        let cmd = |c: &str| ExtractorCommand {
            command: c.into(),
            timeout: Duration::from_secs(5),
        };
        let good =
            r#"cat >/dev/null; echo '{"strategy_description":"x","reasoning_pattern":"y","tools_sequence":["s2"]}'"#;
        let e = extract(&o, Some(&cmd(good)), &dir, "t");
        assert_eq!((e.plan.extracted_by.as_str(), e.plan.confidence), ("command", 0.95));
        assert!(e.warning.is_none());
        for bad in [
            "exit 3",
            "echo nope",
            r#"echo '{"strategy_description":"x","reasoning_pattern":"y","tools_sequence":["zz"]}'"#,
        ] {
            let e = extract(&o, Some(&cmd(bad)), &dir, "t");
            assert_eq!(e.plan.extracted_by, "rules", "{bad}");
            assert!(e.warning.is_some(), "{bad}");
        }
        let slow = ExtractorCommand {
            command: "sleep 5".into(),
            timeout: Duration::from_millis(200),
        };
        let e = extract(&o, Some(&slow), &dir, "t");
        assert!(e.warning.unwrap().contains("timed out"));
    }
}
