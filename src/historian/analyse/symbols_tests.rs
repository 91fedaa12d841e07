//! Tests of `symbols`: an item's names read from both sides of its diff.

// A hunk's lines are one range among a hunk's ranges: `&[1..3]` is meant.
#![allow(clippy::single_range_in_vec_init)]

use super::*;

fn lines(text: &str) -> Vec<&[u8]> {
    text.split_inclusive('\n').map(str::as_bytes).collect()
}

#[test]
fn a_removed_definition_is_undefined_and_a_renamed_one_is_both() {
    let old_text = "fn keep() {}\nfn gone() {}\nfn old_name() {}\n";
    let new_text = "fn keep() {}\nfn new_name() {}\n";
    let (old, new) = (lines(old_text), lines(new_text));
    let before = Side::new("a.rs", old_text.as_bytes(), &old);
    let after = Side::new("a.rs", new_text.as_bytes(), &new);
    let s = read(&before, &[1..3], &after, &[1..2]);
    assert_eq!(s.defined.iter().collect::<Vec<_>>(), ["gone", "new_name", "old_name"]);
    assert_eq!(s.undefined.iter().collect::<Vec<_>>(), ["gone", "old_name"]);
}

#[test]
fn a_hunk_of_only_module_declarations_is_wiring() {
    let old_text = "mod a;\n";
    let new_text = "mod a;\npub mod export;\n\n";
    let (old, new) = (lines(old_text), lines(new_text));
    let before = Side::new("lib.rs", old_text.as_bytes(), &old);
    let after = Side::new("lib.rs", new_text.as_bytes(), &new);
    let s = read(&before, &[1..1], &after, &[1..3]);
    assert!(s.only_modules);
    assert_eq!(s.modules.iter().collect::<Vec<_>>(), ["export"]);
    let new_text = "mod a;\npub mod export;\npub fn run() {}\n";
    let new = lines(new_text);
    let after = Side::new("lib.rs", new_text.as_bytes(), &new);
    assert!(!read(&before, &[1..1], &after, &[1..3]).only_modules);
}

#[test]
fn files_in_no_known_language_are_read_as_words() {
    let text = "retry_limit: 3\nserver_name: api\n";
    let l = lines(text);
    let side = Side::new("config.yml", text.as_bytes(), &l);
    assert!(!side.is_parsed());
    let empty = Side::new("config.yml", b"", &[]);
    let s = read(&empty, &[], &side, &[0..2]);
    assert!(s.used.contains("retry_limit") && s.used.contains("server_name"));
    assert!(s.defined.is_empty());
}
