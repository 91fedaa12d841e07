use super::*;

fn file(letter: char, path: &str, added: usize, removed: usize) -> FileLine {
    FileLine {
        letter,
        path: path.into(),
        from: None,
        hunks: None,
        added,
        removed,
        note: None,
    }
}

#[test]
fn messages_are_conventional_with_a_body() {
    let draft = Draft {
        categories: vec![(Category::Source, 40), (Category::Test, 10)],
        scope: Some("parser".into()),
        sources: vec![
            ("abc1234".into(), "Add the parser".into(), Kind::Normal, 45),
            ("def5678".into(), "wip".into(), Kind::Wip, 5),
        ],
        branch_words: Arc::default(),
        alternatives: Vec::new(),
        answered: None,
        names: Vec::new(),
        files: vec![file('A', "src/parser.rs", 40, 0), file('M', "tests/parser.rs", 10, 0)],
    };
    let message = draft.message();
    assert!(message.starts_with("feat(parser): add the parser\n\n"), "{message}");
    assert!(message.contains("  abc1234 Add the parser\n"), "{message}");
    assert!(message.contains("  A src/parser.rs (+40)\n"), "{message}");
}

#[test]
fn many_files_are_named_two_and_counted() {
    let mut draft = Draft {
        categories: vec![(Category::Source, 4)],
        scope: Some("app".into()),
        sources: vec![("abc1234".into(), "more".into(), Kind::Wip, 4)],
        branch_words: Arc::default(),
        alternatives: Vec::new(),
        answered: None,
        names: Vec::new(),
        files: vec![
            file('M', "app/a.rs", 1, 0),
            file('M', "app/b.rs", 1, 0),
            file('M', "app/c.rs", 1, 0),
        ],
    };
    assert_eq!(draft.describe(), "update a.rs, b.rs and c.rs");
    draft.files.push(file('D', "app/d.rs", 0, 1));
    assert_eq!(draft.describe(), "update a.rs, b.rs and 2 more files");
}

#[test]
fn noise_only_commits_are_described_by_their_files() {
    let draft = Draft {
        categories: vec![(Category::Docs, 3)],
        scope: Some("readme".into()),
        sources: vec![("abc1234".into(), "wip".into(), Kind::Wip, 3)],
        branch_words: Arc::default(),
        alternatives: Vec::new(),
        answered: None,
        names: Vec::new(),
        files: vec![file('M', "README.md", 2, 1)],
    };
    assert!(
        draft.message().starts_with("docs: update README.md\n"),
        "{}",
        draft.message()
    );
}

#[test]
fn a_subject_listing_several_things_names_what_the_commit_holds() {
    let mut words = BTreeSet::new();
    for path in ["src/parser.rs", "tests/lexer.rs", "src/lexer.rs"] {
        super::super::add_path_words(path, &mut words);
    }
    let draft = Draft {
        categories: vec![(Category::Source, 5)],
        scope: Some("parser".into()),
        sources: vec![(
            "abc1234".into(),
            "Test the lexer, fix the parser".into(),
            Kind::Normal,
            5,
        )],
        branch_words: Arc::new(words),
        alternatives: Vec::new(),
        answered: None,
        names: Vec::new(),
        files: vec![file('M', "src/parser.rs", 3, 2)],
    };
    let message = draft.message();
    assert!(message.starts_with("fix(parser): fix the parser\n"), "{message}");
    assert!(
        message.contains("  abc1234 Test the lexer, fix the parser\n"),
        "{message}"
    );
}

fn squash_draft(files: Vec<FileLine>, names: &[&str], branch: &[&str]) -> Draft {
    let mut words = BTreeSet::new();
    for path in branch {
        super::super::add_path_words(path, &mut words);
    }
    Draft {
        categories: vec![(Category::Source, 10)],
        scope: None,
        sources: vec![("abc1234".into(), "Update CHANGELOG.md".into(), Kind::Normal, 10)],
        branch_words: Arc::new(words),
        alternatives: vec!["Teach the lexer comments".into(), "Bump regex to 1.5".into()],
        answered: None,
        names: names.iter().map(|n| n.to_string()).collect(),
        files,
    }
}

#[test]
fn a_squash_gives_each_commit_the_subject_about_it() {
    let branch = ["CHANGELOG.md", "src/lexer.rs", "Cargo.toml"];
    let lexer = squash_draft(vec![file('M', "src/lexer.rs", 5, 1)], &["skip_comment"], &branch);
    assert_eq!(lexer.summary(), "teach the lexer comments");
    let mut build = squash_draft(vec![file('M', "Cargo.toml", 1, 1)], &[], &branch);
    build.categories = vec![(Category::Build, 2)];
    assert_eq!(build.summary(), "bump regex to 1.5");
    let changelog = squash_draft(vec![file('M', "CHANGELOG.md", 3, 0)], &[], &branch);
    assert_eq!(changelog.summary(), "update CHANGELOG.md");
}

#[test]
fn a_subject_about_other_files_gives_way_to_what_the_commit_holds() {
    let branch = ["CHANGELOG.md", "src/parser.rs"];
    let mut draft = squash_draft(
        vec![file('A', "src/parser.rs", 9, 0)],
        &["parse_statement", "parse_block"],
        &branch,
    );
    draft.alternatives.clear();
    assert_eq!(draft.summary(), "add parse_statement and parse_block");
    draft.names.clear();
    assert_eq!(draft.summary(), "add parser.rs");
}

#[test]
fn described_by_names_tests_and_files() {
    let mut draft = squash_draft(
        vec![file('M', "src/a.rs", 1, 1), file('A', "src/b.rs", 3, 0)],
        &["run", "stop", "pause", "resume"],
        &[],
    );
    assert_eq!(draft.describe(), "update run, stop and 2 more");
    draft.names.truncate(3);
    assert_eq!(draft.describe(), "update run, stop and pause");
    draft.categories = vec![(Category::Test, 4)];
    draft.files = vec![
        file('A', "tests/lexer.rs", 4, 0),
        file('A', "tests/parser_test.rs", 2, 0),
    ];
    assert_eq!(draft.describe(), "add tests for lexer and parser");
    draft.categories = vec![(Category::Docs, 4)];
    draft.files = vec![file('M', "README.md", 1, 1)];
    assert_eq!(draft.describe(), "update README.md");
    draft.categories = vec![(Category::Source, 4)];
    draft.files = vec![FileLine {
        from: Some("src/util.rs".into()),
        ..file('R', "src/helpers.rs", 0, 0)
    }];
    assert_eq!(draft.describe(), "rename util.rs to helpers.rs");
}

#[test]
fn assets_alone_are_chores() {
    let draft = Draft {
        categories: vec![(Category::Source, 0)],
        scope: Some("assets".into()),
        sources: vec![("abc1234".into(), "wip".into(), Kind::Wip, 0)],
        branch_words: Arc::default(),
        alternatives: Vec::new(),
        answered: None,
        names: Vec::new(),
        files: vec![file('A', "logo.png", 0, 0)],
    };
    assert!(
        draft.message().starts_with("chore(assets): add logo.png\n"),
        "{}",
        draft.message()
    );
}

#[test]
fn long_summaries_are_cut_at_a_word() {
    let cut = truncate_words("one two three four five", 12);
    assert_eq!(cut, "one two…");
    assert!(cut.chars().count() <= 12);
}
