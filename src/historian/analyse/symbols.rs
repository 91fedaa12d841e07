//! The names a change item defines, uses and falls inside, read from the
//! syntax of its file on both sides of the diff ([`super::syntax`]): a hunk
//! that uses a name another hunk defines links the two, and orders them
//! (the definer goes first or they go together, DESIGN §10.2); a hunk
//! calling the function another changes is evidence of belonging together.

use std::collections::BTreeSet;
use std::ops::Range;

use super::syntax::{self, Language, Parsed, Reading};

/// What one change item defines and mentions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    /// Names whose definition the item adds, removes or renames.
    pub defined: BTreeSet<String>,
    /// Names whose definition the item only removes (its old side defines
    /// them, its new side does not): a commit removing one comes after the
    /// commits that stop using it.
    pub undefined: BTreeSet<String>,
    /// Specific-looking names the item's lines use or mention
    /// (definitions included).
    pub used: BTreeSet<String>,
    /// The innermost definitions the item's lines fall inside (the
    /// functions a hunk changes, as git's hunk header names one).
    pub enclosing: BTreeSet<String>,
    /// Modules the item's lines import by a relative name (`mod export;`,
    /// `from .export import x`, `require('./export')`, `#include
    /// "export.h"`), lowercased as file stems are.
    pub modules: BTreeSet<String>,
    /// Whether every changed line that is not blank imports a module: the
    /// item is nothing but the wiring of modules into place.
    pub only_modules: bool,
    /// The words of the heading a document's item falls under
    /// ([`super::sections`]), filled by the caller: what it answers to a
    /// subject by, though it links no two items.
    pub heading: BTreeSet<String>,
}

/// One side of a file's diff, parsed when its language is known.
pub struct Side<'t> {
    lines: &'t [&'t [u8]],
    parsed: Option<Parsed<'t>>,
}

impl<'t> Side<'t> {
    /// The side of the file at `path` whose text is `text`, split into `lines`.
    pub fn new(path: &str, text: &'t [u8], lines: &'t [&'t [u8]]) -> Side<'t> {
        let first = lines.first().copied().unwrap_or_default();
        let parsed = Language::of(path, first).and_then(|language| syntax::parse(language, text));
        Side { lines, parsed }
    }

    /// Whether the side was parsed (its language is known and it is small
    /// enough).
    pub fn is_parsed(&self) -> bool {
        self.parsed.is_some()
    }

    fn read(&self, range: Range<usize>) -> Reading {
        match &self.parsed {
            Some(parsed) => parsed.read(range),
            None => Reading {
                used: syntax::words(self.lines[range].iter().copied()),
                ..Reading::default()
            },
        }
    }
}

/// The symbols of the lines `old` of `before` and `new` of `after` (a
/// hunk's, or every changed line of a whole file).
pub fn read(before: &Side<'_>, old: &[Range<usize>], after: &Side<'_>, new: &[Range<usize>]) -> Symbols {
    let mut symbols = Symbols::default();
    let mut old_defined = BTreeSet::new();
    let mut new_defined = BTreeSet::new();
    let mut module_lines = true;
    let mut merge = |side: &Side<'_>, range: &Range<usize>, defined: &mut BTreeSet<String>| {
        let r = side.read(range.clone());
        defined.extend(r.defined.iter().cloned());
        symbols.used.extend(r.defined);
        symbols.used.extend(r.used);
        symbols.enclosing.extend(r.enclosing);
        symbols.modules.extend(r.modules);
        module_lines &= range
            .clone()
            .all(|n| r.module_lines.contains(&n) || side.lines[n].trim_ascii().is_empty());
    };
    for range in old {
        merge(before, range, &mut old_defined);
    }
    for range in new {
        merge(after, range, &mut new_defined);
    }
    symbols.only_modules = !symbols.modules.is_empty() && module_lines;
    symbols.undefined = &old_defined - &new_defined;
    symbols.defined = &old_defined | &new_defined;
    // A definition holding the whole change is what it changes, not what
    // it falls inside.
    symbols.enclosing.retain(|n| !symbols.defined.contains(n));
    symbols
}

#[cfg(test)]
#[path = "symbols_tests.rs"]
mod tests;
