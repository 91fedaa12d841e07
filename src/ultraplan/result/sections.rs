//! The `verification` and `metadata` blocks of a result: their fields,
//! types and the consistency rules between them.

use serde_yaml::Value;

use super::checker::{describe, get, type_name, Checker};

const VERIFICATION: [&str; 3] = ["command", "exit_code", "output_summary"];

const METADATA: [&str; 9] = [
    "duration_ms",
    "attempt",
    "executor_id",
    "cost_usd",
    "tokens",
    "model",
    "session_id",
    "turns",
    "resumed",
];

const OPTIONAL_METADATA: [&str; 3] = ["duration_ms", "attempt", "executor_id"];

/// Checks the verification block; returns (command, exit_code) where the outer
/// `None` means absent or mistyped and the inner `None` means null.
#[allow(clippy::type_complexity)]
pub(super) fn verification(
    c: &mut Checker<'_>,
    map: &serde_yaml::Mapping,
) -> (Option<Option<String>>, Option<Option<i64>>) {
    let block = match get(map, "verification") {
        None => {
            c.violation("verification", "missing required field 'verification'");
            return (None, None);
        }
        Some(Value::Mapping(m)) => m,
        Some(v) => {
            c.violation(
                "verification",
                format!("verification must be a mapping, not {}", type_name(v)),
            );
            return (None, None);
        }
    };
    for key in block.keys() {
        match key.as_str() {
            Some(k) if VERIFICATION.contains(&k) => {}
            Some(k) => c.warning(
                &format!("verification.{k}"),
                format!("unknown field 'verification.{k}'"),
            ),
            None => c.warning("verification", format!("unknown field {key:?} in verification")),
        }
    }
    let command = match block.get("command") {
        None => {
            c.violation("verification.command", "missing required field 'verification.command'");
            None
        }
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(v) => {
            c.violation(
                "verification.command",
                format!("verification.command must be a string or null, not {}", type_name(v)),
            );
            None
        }
    };
    let exit_code = match block.get("exit_code") {
        None => {
            c.violation(
                "verification.exit_code",
                "missing required field 'verification.exit_code'",
            );
            None
        }
        Some(Value::Null) => Some(None),
        Some(Value::Number(n)) if n.as_i64().is_some() => Some(n.as_i64()),
        Some(v) => {
            c.violation(
                "verification.exit_code",
                format!("verification.exit_code must be an integer, not {}", type_name(v)),
            );
            None
        }
    };
    match block.get("output_summary") {
        None => c.violation(
            "verification.output_summary",
            "missing required field 'verification.output_summary'",
        ),
        Some(Value::String(_)) => {}
        Some(v) => c.violation(
            "verification.output_summary",
            format!("verification.output_summary must be a string, not {}", type_name(v)),
        ),
    }
    (command, exit_code)
}

pub(super) fn metadata(c: &mut Checker<'_>, map: &serde_yaml::Mapping) {
    let block = match get(map, "metadata") {
        None | Some(Value::Null) => {
            c.warning(
                "metadata",
                "missing optional field 'metadata' (duration_ms, attempt, executor_id)",
            );
            return;
        }
        Some(Value::Mapping(m)) => m,
        Some(v) => {
            c.violation("metadata", format!("metadata must be a mapping, not {}", type_name(v)));
            return;
        }
    };
    for key in block.keys() {
        match key.as_str() {
            Some(k) if METADATA.contains(&k) => {}
            Some(k) => c.warning(&format!("metadata.{k}"), format!("unknown field 'metadata.{k}'")),
            None => c.warning("metadata", format!("unknown field {key:?} in metadata")),
        }
    }
    for key in OPTIONAL_METADATA {
        if !block.contains_key(key) {
            c.warning("metadata", format!("missing optional field 'metadata.{key}'"));
        }
    }
    let field = |k: &str| format!("metadata.{k}");
    if let Some(v) = block.get("duration_ms") {
        if v.as_u64().is_none() {
            c.violation(
                &field("duration_ms"),
                format!(
                    "metadata.duration_ms must be a non-negative integer, not {}",
                    describe(v)
                ),
            );
        }
    }
    if let Some(v) = block.get("attempt") {
        if v.as_u64().is_none_or(|n| n < 1) {
            c.violation(
                &field("attempt"),
                format!("metadata.attempt must be an integer from 1, not {}", describe(v)),
            );
        }
    }
    if let Some(v) = block.get("executor_id") {
        if !v.is_string() {
            c.violation(
                &field("executor_id"),
                format!("metadata.executor_id must be a string, not {}", type_name(v)),
            );
        }
    }
    if let Some(v) = block.get("cost_usd") {
        if !v.as_f64().is_some_and(|n| n >= 0.0) {
            c.violation(
                &field("cost_usd"),
                format!("metadata.cost_usd must be a non-negative number, not {}", describe(v)),
            );
        }
    }
    if let Some(v) = block.get("tokens") {
        let ok = v.as_u64().is_some() || v.as_mapping().is_some_and(|m| m.values().all(|n| n.as_u64().is_some()));
        if !ok {
            c.violation(
                &field("tokens"),
                format!(
                    "metadata.tokens must be an integer or a mapping of integers, not {}",
                    type_name(v)
                ),
            );
        }
    }
    for key in ["model", "session_id"] {
        if let Some(v) = block.get(key).filter(|v| !v.is_string() && !v.is_null()) {
            c.violation(
                &field(key),
                format!("metadata.{key} must be a string, not {}", type_name(v)),
            );
        }
    }
    if let Some(v) = block.get("turns").filter(|v| v.as_u64().is_none()) {
        c.violation(
            &field("turns"),
            format!("metadata.turns must be a non-negative integer, not {}", describe(v)),
        );
    }
    if let Some(v) = block.get("resumed").filter(|v| !v.is_bool()) {
        c.violation(
            &field("resumed"),
            format!("metadata.resumed must be true or false, not {}", type_name(v)),
        );
    }
}
