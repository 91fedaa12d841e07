//! Numbered references: a step list (`1-3`, `3 and 4`) and session
//! references (`Sessions 1, 2`, `S1`).

use super::{is_none_value, strip_parentheses};
use crate::ultraplan::plan::markdown::plain;

/// A list of step numbers: `1, 2`, `1-3`, `1–3`, `3 and 4`.
pub(crate) fn step_list(text: &str) -> Result<Vec<u32>, String> {
    let cleaned = strip_parentheses(&plain(text)).replace(['–', '—'], "-");
    let cleaned = cleaned.replace(" and ", ",").replace(" to ", "-");
    let mut out = Vec::new();
    for part in cleaned.split([',', ';']) {
        let part = part.trim();
        let part = part
            .strip_prefix("Steps")
            .or_else(|| part.strip_prefix("steps"))
            .or_else(|| part.strip_prefix("Step"))
            .or_else(|| part.strip_prefix("step"))
            .unwrap_or(part)
            .trim();
        if part.is_empty() {
            continue;
        }
        if let Some((a, b)) = part.split_once('-') {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("range '{part}' runs backwards"));
            }
            if b - a > 10_000 {
                return Err(format!("range '{part}' is too large"));
            }
            out.extend(a..=b);
        } else {
            out.push(number(part)?);
        }
    }
    Ok(out)
}

fn number(text: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{}' is not a step number", text.trim()))
}

/// Session references: `none`, `Session 1`, `Sessions 1, 2`, `S1, S2`;
/// remarks after a dash or in parentheses are ignored.
pub(crate) fn session_refs(text: &str) -> Result<Vec<u32>, String> {
    let cleaned = strip_parentheses(&plain(text));
    let head = cleaned.split([' ', '\t']).collect::<Vec<_>>().join(" ");
    let head = ["—", "–", " - ", ":"]
        .iter()
        .fold(head.as_str(), |acc, sep| acc.split(sep).next().unwrap_or(acc))
        .trim()
        .to_owned();
    if is_none_value(&head) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for part in head.split([',', '&', ';', '+']).flat_map(|p| p.split(" and ")) {
        let p = part.trim().to_lowercase();
        let p = p
            .strip_prefix("sessions")
            .or_else(|| p.strip_prefix("session"))
            .or_else(|| p.strip_prefix('s'))
            .unwrap_or(&p)
            .trim();
        if p.is_empty() {
            continue;
        }
        match p.parse::<u32>() {
            Ok(n) => out.push(n),
            Err(_) => return Err(format!("cannot read '{}' as a session", part.trim())),
        }
    }
    Ok(out)
}
