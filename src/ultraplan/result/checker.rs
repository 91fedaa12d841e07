//! The validator's notebook: findings collected with the line of the field
//! they concern, and the small readers of YAML values every rule uses.

use serde_yaml::Value;

use super::validation::{Finding, ValidationContext};

pub(super) struct Checker<'a> {
    pub lines: std::collections::HashMap<String, usize>,
    pub violations: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub ctx: ValidationContext<'a>,
}

impl Checker<'_> {
    /// The line of `field`, or of the nearest enclosing key.
    pub(super) fn line(&self, field: &str) -> Option<usize> {
        let mut key = field;
        loop {
            if let Some(&l) = self.lines.get(key) {
                return Some(l);
            }
            key = match key.rsplit_once(['.', '[']) {
                Some((parent, _)) => parent,
                None => return None,
            };
        }
    }

    pub(super) fn violation(&mut self, field: &str, message: impl Into<String>) {
        let line = self.line(field);
        self.violations.push(Finding {
            line,
            field: field.to_owned(),
            message: message.into(),
        });
    }

    pub(super) fn warning(&mut self, field: &str, message: impl Into<String>) {
        let line = self.line(field);
        self.warnings.push(Finding {
            line,
            field: field.to_owned(),
            message: message.into(),
        });
    }
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

pub(super) fn get<'v>(map: &'v serde_yaml::Mapping, key: &str) -> Option<&'v Value> {
    map.get(key)
}

pub(super) fn describe(v: &Value) -> String {
    match v.as_str() {
        Some(s) => format!("'{s}'"),
        None => type_name(v).to_owned(),
    }
}

pub(super) fn required_string(c: &mut Checker<'_>, map: &serde_yaml::Mapping, key: &str) -> Option<String> {
    match get(map, key) {
        None => {
            c.violation(key, format!("missing required field '{key}'"));
            None
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            c.violation(key, format!("{key} must be a string, not {}", type_name(v)));
            None
        }
    }
}
