//! `GIT_CONFIG_PARAMETERS`: how `git -c key=value` reaches a subcommand.
//!
//! git exports every `-c` pair in this variable, each part single-quoted the way
//! its `sq_quote()` does it (`'` becomes `'\''`, `!` becomes `'\!'`). Two layouts
//! exist: `'key'='value'` (git 2.31 and later) and `'key=value'` (older). A key
//! without a value (`git -c core.bare`) means boolean true. gix does not read the
//! variable, so we parse it here and hand the pairs to gix as CLI overrides.

use anyhow::{bail, Result};

/// One `-c` override: `value` is `None` for a bare key (implicit `true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigParameter {
    pub key: String,
    pub value: Option<String>,
}

impl ConfigParameter {
    /// The `key=value` (or bare `key`) form gix takes as an override.
    pub fn to_override(&self) -> String {
        match &self.value {
            Some(value) => format!("{}={}", self.key, value),
            None => self.key.clone(),
        }
    }
}

/// Parses the value of `GIT_CONFIG_PARAMETERS`, failing like git does
/// ("bogus format") on anything it would not accept.
pub fn parse_config_parameters(env: &str) -> Result<Vec<ConfigParameter>> {
    let mut out = Vec::new();
    let mut rest = env.trim_start();
    while !rest.is_empty() {
        let (first, after) = sq_dequote_step(rest)?;
        if after.is_empty() || after.starts_with(char::is_whitespace) {
            // Old style: 'key=value' in one quoted word.
            out.push(match first.split_once('=') {
                Some((key, value)) => ConfigParameter {
                    key: key.to_owned(),
                    value: Some(value.to_owned()),
                },
                None => ConfigParameter {
                    key: first,
                    value: None,
                },
            });
            rest = after;
        } else if let Some(after_eq) = after.strip_prefix('=') {
            if after_eq.starts_with('\'') {
                let (value, after_value) = sq_dequote_step(after_eq)?;
                if !(after_value.is_empty() || after_value.starts_with(char::is_whitespace)) {
                    bail!("bogus format in GIT_CONFIG_PARAMETERS");
                }
                out.push(ConfigParameter {
                    key: first,
                    value: Some(value),
                });
                rest = after_value;
            } else if after_eq.is_empty() || after_eq.starts_with(char::is_whitespace) {
                out.push(ConfigParameter {
                    key: first,
                    value: None,
                });
                rest = after_eq;
            } else {
                bail!("bogus format in GIT_CONFIG_PARAMETERS");
            }
        } else {
            bail!("bogus format in GIT_CONFIG_PARAMETERS");
        }
        rest = rest.trim_start();
    }
    Ok(out)
}

/// Reads one single-quoted word starting at `input`, including git's `'\''`
/// and `'\!'` escapes, and returns it with the unread remainder.
fn sq_dequote_step(input: &str) -> Result<(String, &str)> {
    let mut chars = input.char_indices().peekable();
    if chars.next().map(|(_, c)| c) != Some('\'') {
        bail!("bogus format in GIT_CONFIG_PARAMETERS");
    }
    let mut word = String::new();
    while let Some((i, c)) = chars.next() {
        if c != '\'' {
            word.push(c);
            continue;
        }
        // A closing quote; `\'` or `\!` followed by a reopening quote continues the word.
        let rest = &input[i + 1..];
        let mut tail = rest.chars();
        match (tail.next(), tail.next(), tail.next()) {
            (Some('\\'), Some(escaped @ ('\'' | '!')), Some('\'')) => {
                word.push(escaped);
                // Skip the backslash, the escaped character and the reopening quote.
                for _ in 0..3 {
                    chars.next();
                }
            }
            _ => return Ok((word, rest)),
        }
    }
    bail!("bogus format in GIT_CONFIG_PARAMETERS")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(env: &str) -> Vec<(String, Option<String>)> {
        parse_config_parameters(env)
            .expect("valid")
            .into_iter()
            .map(|p| (p.key, p.value))
            .collect()
    }

    #[test]
    fn new_style_pairs() {
        assert_eq!(
            pairs("'ultraplan.maxattempts'='5' 'color.ui'='always'"),
            vec![
                ("ultraplan.maxattempts".into(), Some("5".into())),
                ("color.ui".into(), Some("always".into())),
            ]
        );
    }

    #[test]
    fn old_style_and_implicit_true() {
        assert_eq!(
            pairs("'core.bare' 'user.name=A B' 'x.y'="),
            vec![
                ("core.bare".into(), None),
                ("user.name".into(), Some("A B".into())),
                ("x.y".into(), None),
            ]
        );
    }

    #[test]
    fn quotes_and_bangs_are_unescaped() {
        assert_eq!(
            pairs(r"'a.b'='it'\''s fine'\!''"),
            vec![("a.b".into(), Some("it's fine!".into()))]
        );
    }

    #[test]
    fn empty_value_is_kept_distinct_from_implicit_true() {
        assert_eq!(pairs("'a.b'=''"), vec![("a.b".into(), Some(String::new()))]);
    }

    #[test]
    fn bogus_input_is_refused() {
        for bad in ["a.b=c", "'unterminated", "'a'='b'c", "'a'x"] {
            assert!(parse_config_parameters(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn empty_is_nothing() {
        assert!(pairs("").is_empty());
        assert!(pairs("   ").is_empty());
    }
}
