//! Splitting a command line into words as `sh` does for simple commands,
//! used for a Checkpoint's `git commit -m` and `ultraplan.claudeArgs`.
//!
//! Hand-written rather than `shell-words` or `shlex`: those split any text
//! into words, while what we need is the answer "is this a simple command,
//! and which words" — a Checkpoint like `git commit -m "x"; rm -rf ~` or
//! one with `$(…)` must be refused, not split. Both crates pass `;`, `|`,
//! `&`, `$` and backquotes through as word characters, so the refusal would
//! be a second scan of the same quoting rules; this one function does both
//! in one pass and is fifty lines.

/// Splits a command into words the way `sh` would for simple commands:
/// quotes and backslashes; `None` for anything with shell operators,
/// substitutions or unbalanced quotes.
pub fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
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
                    words.push(std::mem::take(&mut word));
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
        words.push(word);
    }
    Some(words)
}
