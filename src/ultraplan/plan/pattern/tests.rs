use super::*;

#[test]
fn a_literal_path_covers_itself_and_nothing_its_characters_would_glob() {
    let covers = |path: &str, other: &str| literal(path).iter().any(|p| matches(p, other));
    assert!(covers("*.md", "*.md"));
    assert!(!covers("*.md", "plan.md"));
    assert!(covers("a?[b].md", "a?[b].md"));
    assert!(!covers("a?[b].md", "ax[b].md"));
    assert!(!covers("a?[b].md", "a?b.md"));
    assert!(covers("phase[1]", "phase[1]/01-PLAN.md"));
    assert!(!covers("phase[1]", "phase1/01-PLAN.md"));
    assert_eq!(literal("docs/plan.md"), ["docs/plan.md"]);
}

#[test]
fn a_phase_directory_fences_its_plans_and_not_its_other_files() {
    let covers = |path: &str, other: &str| plan_fence(path, true).iter().any(|p| matches(p, other));
    assert!(covers(".planning/phases/01-x", ".planning/phases/01-x/01-02-PLAN.md"));
    assert!(!covers(
        ".planning/phases/01-x",
        ".planning/phases/01-x/01-02-SUMMARY.md"
    ));
    assert!(!covers(
        ".planning/phases/01-x",
        ".planning/phases/01-x/sub/01-02-PLAN.md"
    ));
    assert!(covers("phase[1]/", "phase[1]/01-01-PLAN.md"));
    assert!(!covers("phase[1]", "phase1/01-01-PLAN.md"));
    assert_eq!(plan_fence("docs/plan.md", false), ["docs/plan.md"]);
    assert_eq!(
        phase_summary("p/01-x", "01-02-PLAN.md").as_deref(),
        Some("p/01-x/01-02-SUMMARY.md")
    );
}

#[test]
fn expand_walks_only_what_a_pattern_reaches_and_agrees_with_matches() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in [
        ".env",
        ".env.local",
        "config/app.local",
        "config/app.toml",
        "a/b/c/.env",
        ".git/x.local",
        "src/main.rs",
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    assert_eq!(expand(root, ".env*"), vec![".env", ".env.local"]);
    assert_eq!(expand(root, "config/*.local"), vec!["config/app.local"]);
    assert_eq!(expand(root, "**/.env"), vec![".env", "a/b/c/.env"]);
    assert_eq!(expand(root, "config"), vec!["config/app.local", "config/app.toml"]);
    assert_eq!(
        expand(root, "**/*.local"),
        vec![".env.local", "config/app.local"],
        ".git is never entered"
    );
    assert_eq!(expand(root, "nothing/*"), Vec::<String>::new());
    for pattern in [".env*", "config/*.local", "**/.env", "config", "**/*.local"] {
        for found in expand(root, pattern) {
            assert!(matches(pattern, &found), "{pattern} {found}");
        }
    }
}

#[test]
fn safety() {
    assert_eq!(safe_relative_path("./src/../src/a.rs"), Ok("src/a.rs".into()));
    assert_eq!(safe_relative_path("/etc/passwd"), Err(UnsafePath::Absolute));
    assert_eq!(safe_relative_path("~/.ssh/id_rsa"), Err(UnsafePath::Absolute));
    assert_eq!(safe_relative_path("C:\\x"), Err(UnsafePath::Absolute));
    assert_eq!(safe_relative_path("../outside"), Err(UnsafePath::Escapes));
    assert_eq!(safe_relative_path("a/../../b"), Err(UnsafePath::Escapes));
    assert_eq!(safe_relative_path("a\\..\\..\\b"), Err(UnsafePath::Escapes));
    assert_eq!(safe_relative_path(".git/config"), Err(UnsafePath::InsideGitDir));
    assert_eq!(safe_relative_path("sub/.GIT/hooks/x"), Err(UnsafePath::InsideGitDir));
    assert_eq!(safe_relative_path("."), Err(UnsafePath::Empty));
    assert_eq!(safe_relative_path("a\u{0}b"), Err(UnsafePath::ControlCharacter));
    assert_eq!(safe_relative_path("src/.gitignore"), Ok("src/.gitignore".into()));
}

#[test]
fn matching() {
    assert!(matches("src/server/**", "src/server/mod.rs"));
    assert!(matches("src/server/**", "src/server/a/b.rs"));
    assert!(!matches("src/server/**", "src/serverx/a.rs"));
    assert!(matches("src/server", "src/server/mod.rs"));
    assert!(matches("src/cli.rs", "src/cli.rs"));
    assert!(!matches("src/cli.rs", "src/cli.rsx"));
    assert!(matches("src/*.rs", "src/a.rs"));
    assert!(!matches("src/*.rs", "src/a/b.rs"));
    assert!(matches("**/*.md", "README.md"));
    assert!(matches("**/*.md", "docs/a/b.md"));
    assert!(matches("tests/**", "tests/x.rs"));
    assert!(matches("src/[ab].rs", "src/b.rs"));
    assert!(!matches("src/[!ab].rs", "src/b.rs"));
    assert!(matches("a?c", "abc"));
    assert!(matches("weird[", "weird["));
    assert!(matches("src/a.rs", "src/a.rs"), "a literal pattern");
    assert!(matches("src/*", "src/[x]"), "a name with brackets is still one name");
}

#[test]
fn overlaps() {
    assert!(overlap("src/server/**", "src/server/mod.rs"));
    assert!(overlap("src/**", "src/server/**"));
    assert!(overlap("src/a.rs", "src/a.rs"));
    assert!(!overlap("src/a.rs", "src/b.rs"));
    assert!(!overlap("src/**", "tests/**"));
    assert!(!overlap("src/*.rs", "src/*.md"));
    assert!(overlap("src/a*", "src/*b"));
    assert!(overlap("**/mod.rs", "src/server/**"));
    assert!(!overlap("src/config.rs", "src/server/**"));
}

#[test]
fn many_double_stars_stay_fast() {
    let p = "**/".repeat(40) + "x.rs";
    let q = "a/".repeat(40) + "*.md";
    assert!(!overlap(&p, &q));
    assert!(overlap(&p, &("a/".repeat(40) + "x.rs")));
}
