//! Words for a command a person pastes into a shell, and a command line
//! split into words as `sh` splits a simple command.
//!
//! The splitting is used for a Checkpoint's `git commit -m` and for the
//! arguments of agent executors (`ultraplan.<agent>.args`). Hand-written
//! rather than `shell-words` or `shlex`: those split any text into words,
//! while what we need is the answer "is this a simple command, and which
//! words" — a Checkpoint like `git commit -m "x"; rm -rf ~` or one with
//! `$(…)` must be refused, not split. Both crates pass `;`, `|`, `&`, `$`
//! and backquotes through as word characters, so the refusal would be a
//! second scan of the same quoting rules; this one function does both in
//! one pass and is fifty lines.

use std::borrow::Cow;

/// `word` as one shell word: as it is when it holds only characters no
/// shell reads specially (letters, digits, `-_./:@%+=,`), between single
/// quotes otherwise. A branch may be called `feat/a|b` or `x;rm -rf ~`,
/// and a hint's command must not run more than it says.
pub fn shell_word(word: &str) -> Cow<'_, str> {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', r"'\''")))
    }
}

/// Splits a command into words the way `sh` would for simple commands:
/// quotes and backslashes; `None` for anything with shell operators,
/// substitutions or unbalanced quotes.
pub fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    // One buffer for every word, each copied out at its own size.
    let mut word = String::with_capacity(command.len());
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        x => word.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            x @ ('"' | '\\' | '$' | '`') => word.push(x),
                            '\n' => {}
                            x => {
                                word.push('\\');
                                word.push(x);
                            }
                        },
                        '$' | '`' => return None,
                        x => word.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            ';' | '&' | '|' | '<' | '>' | '$' | '`' | '(' | ')' | '\n' => return None,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(word.clone());
                    word.clear();
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word.as_str().to_owned());
    }
    Some(words)
}

/// A path as the last word of a command (`git ultraplan run -- -x.md`):
/// [`shell_word`], after `--` when it starts with `-`, so that the command
/// reads it as the operand it is, not as an option.
pub fn operand(path: &str) -> String {
    if path.starts_with('-') {
        format!("-- {}", shell_word(path))
    } else {
        shell_word(path).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::{operand, shell_word};

    #[test]
    fn an_operand_that_looks_like_an_option_follows_a_double_dash() {
        assert_eq!(operand("plan.md"), "plan.md");
        assert_eq!(operand("-x.md"), "-- -x.md");
        assert_eq!(operand("--help"), "-- --help");
        assert_eq!(operand("-a b.md"), "-- '-a b.md'");
        assert_eq!(operand("*.md"), "'*.md'");
    }

    #[test]
    fn a_word_is_quoted_only_when_a_shell_would_read_it() {
        assert_eq!(shell_word("feature/parser-2"), "feature/parser-2");
        assert_eq!(shell_word("feat/a|b"), "'feat/a|b'");
        assert_eq!(shell_word("x;rm -rf ~"), "'x;rm -rf ~'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
