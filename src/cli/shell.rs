//! Words for a command a person pastes into a shell.

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

#[cfg(test)]
mod tests {
    use super::shell_word;

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
