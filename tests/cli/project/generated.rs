//! Man pages and completions are generated from the CLI definition; these
//! tests fail when the committed copies are stale (set ULTRAPLAN_REGENERATE=1
//! to rewrite them), and check that they work with `man` and git's bash
//! completion where those are installed.

use std::path::Path;

use crate::harness::support::{repo_root, TestEnv};

#[test]
fn generated_files_are_fresh() {
    let regenerate = std::env::var_os("ULTRAPLAN_REGENERATE").is_some();
    let mut stale = Vec::new();
    let expected: Vec<_> = crate::project::generate::all();
    for file in &expected {
        let path = repo_root().join(&file.path);
        let current = std::fs::read(&path).ok();
        if current.as_deref() != Some(file.contents.as_slice()) {
            if regenerate {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &file.contents).unwrap();
            } else {
                stale.push(file.path.display().to_string());
            }
        }
    }
    // Nothing generated may linger after a subcommand is renamed or removed.
    for dir in ["man", "completions"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).into_iter().flatten().flatten() {
            let relative = Path::new(dir).join(entry.file_name());
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if !is_link && !expected.iter().any(|f| f.path == relative) {
                if regenerate {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    stale.push(format!("{} (no longer generated)", relative.display()));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are stale: {stale:?}\nrun: ULTRAPLAN_REGENERATE=1 cargo test --test cli generated"
    );
}

/// `docs/reference/config.md` is the key table the programs read, one row a
/// key (it is generated above; this says so in words a reader of a failure
/// understands).
#[test]
fn the_configuration_reference_lists_every_key() {
    let page = std::fs::read_to_string(repo_root().join("docs/reference/config.md")).unwrap();
    for key in ultraplan::cli::config::ALL {
        assert!(
            page.lines()
                .filter(|l| l.starts_with(&format!("| `{}` |", key.name)))
                .count()
                == 1,
            "docs/reference/config.md has no row for {}; run: ULTRAPLAN_REGENERATE=1 cargo test --test cli generated",
            key.name
        );
    }
}

#[test]
fn man_pages_have_the_git_sections() {
    for file in crate::project::generate::all()
        .iter()
        .filter(|f| f.path.starts_with("man"))
    {
        let text = String::from_utf8_lossy(&file.contents);
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "EXAMPLES",
            "CONFIGURATION",
            "EXIT STATUS",
            "SEE ALSO",
        ] {
            assert!(
                text.contains(&format!(".SH {section}")) || text.contains(&format!(".SH \"{section}\"")),
                "{} lacks {section}",
                file.path.display()
            );
        }
    }
    let names: Vec<String> = crate::project::generate::all()
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    for page in [
        "man/git-ultraplan.1",
        "man/git-ultraplan-check.1",
        "man/git-ultraplan-result-check.1",
        "man/git-historian.1",
    ] {
        assert!(names.iter().any(|n| n == page), "{page} missing from {names:?}");
    }
}

/// An internal option (`run --clean-at`, hidden from `--help`) is offered
/// by no completion script.
#[test]
fn completions_offer_no_hidden_option() {
    for file in crate::project::generate::all()
        .iter()
        .filter(|f| f.path.starts_with("completions"))
    {
        let text = String::from_utf8_lossy(&file.contents);
        assert!(!text.contains("clean-at"), "{} offers --clean-at", file.path.display());
        if file.path.to_string_lossy().contains("ultraplan") {
            assert!(text.contains("session"), "{} lost --session", file.path.display());
        }
    }
}

/// `git ultraplan --help` makes git open `man git-ultraplan`; with `man/` on
/// MANPATH that is our page.
#[test]
fn git_help_opens_the_man_page() {
    if which::which("man").is_err() {
        crate::harness::support::skip("git_help_opens_the_man_page", "no man program on this machine");
        return;
    }
    let mut env = TestEnv::new();
    env.set("MANPATH", repo_root().join("man").display().to_string());
    env.set("MANPAGER", "cat");
    env.set("PAGER", "cat");
    env.set("MANWIDTH", "100");
    let repo = env.repo("repo");
    let out = env.run(&repo, &["ultraplan", "--help"]).expect_code(0);
    assert!(out.stdout.contains("git-ultraplan - Run implementation plans"), "{out}");
    assert!(out.stdout.contains("EXIT STATUS"), "{out}");
    let out = env.run(&repo, &["historian", "--help"]).expect_code(0);
    assert!(
        out.stdout.contains("git-historian - Rewrite a messy feature branch"),
        "{out}"
    );
    // A subcommand's --help, which git passes on to us, opens its page too,
    // with its examples; -h stays the short usage.
    let out = env.run(&repo, &["ultraplan", "run", "--help"]).expect_code(0);
    assert!(out.stdout.contains("git-ultraplan-run - Execute a plan"), "{out}");
    assert!(out.stdout.contains("EXAMPLES"), "{out}");
    let out = env.run(&repo, &["historian", "clean", "--help"]).expect_code(0);
    assert!(out.stdout.contains("git-historian-clean - "), "{out}");
    let out = env.run(&repo, &["ultraplan", "run", "-h"]).expect_code(0);
    assert!(out.stdout.starts_with("Execute a plan"), "{out}");
    assert!(!out.stdout.contains("EXAMPLES"), "{out}");
}

/// Without the man pages installed, a subcommand's --help prints the same
/// reference itself, examples included.
#[test]
fn help_without_the_man_pages_prints_the_reference() {
    let mut env = TestEnv::new();
    let empty = env.root().join("no-man-pages");
    std::fs::create_dir_all(&empty).unwrap();
    env.set("MANPATH", empty.display().to_string());
    let repo = env.repo("repo");
    let out = env.run(&repo, &["ultraplan", "run", "--help"]).expect_code(0);
    assert!(out.stdout.contains("Usage: git ultraplan run"), "{out}");
    assert!(out.stdout.contains("Examples:\n  Check a plan, then run it"), "{out}");
    assert_eq!(out.stderr, "", "{out}");
}

fn git_completion_script() -> Option<std::path::PathBuf> {
    [
        "/usr/share/bash-completion/completions/git",
        "/usr/share/git/completion/git-completion.bash",
        "/usr/local/share/git-core/contrib/completion/git-completion.bash",
        "/etc/bash_completion.d/git",
    ]
    .iter()
    .map(std::path::PathBuf::from)
    .find(|p| p.is_file())
}

/// Completes `line` (cursor at the end) with git's bash completion and ours.
fn complete(env: &TestEnv, script: &Path, line: &str) -> Vec<String> {
    let ours = repo_root().join("completions");
    let program = format!(
        r#"
source "{git}"
source "{ours}/git-ultraplan.bash"
source "{ours}/git-historian.bash"
COMP_LINE='{line}'
COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"
case "$COMP_LINE" in *' ') COMP_WORDS+=(""); esac
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
__git_wrap__git_main
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        git = script.display(),
        ours = ours.display(),
    );
    let mut cmd = env.command("bash", env.root());
    cmd.args(["--norc", "--noprofile", "-c", &program]);
    let out = crate::harness::support::capture(cmd);
    assert_eq!(out.code, 0, "{out}");
    let mut words: Vec<String> = out.stdout.split_whitespace().map(String::from).collect();
    words.sort();
    words
}

#[test]
fn bash_completion_through_git() {
    let Some(script) = git_completion_script() else {
        crate::harness::support::skip("bash_completion_through_git", "git's bash completion is not installed");
        return;
    };
    let env = TestEnv::new();
    assert_eq!(
        complete(&env, &script, "git ultraplan "),
        vec![
            "agents", "check", "clean", "export", "hook", "import", "install", "log", "outcome", "report", "result",
            "run", "show", "stats", "status", "sync", "work"
        ]
    );
    assert_eq!(
        complete(&env, &script, "git ultraplan outcome "),
        vec!["extract", "list", "log", "search", "show", "stats"]
    );
    assert_eq!(
        complete(&env, &script, "git ultraplan hook "),
        vec!["install", "pre-push"]
    );
    assert!(complete(&env, &script, "git ultraplan sync --").contains(&"--setup".to_owned()));
    assert!(complete(&env, &script, "git ultraplan run --").contains(&"--resume".to_owned()));
    assert!(complete(&env, &script, "git ultraplan run --")
        .iter()
        .any(|w| w.starts_with("--distribute")));
    assert!(complete(&env, &script, "git ultraplan work --").contains(&"--once".to_owned()));
    assert_eq!(complete(&env, &script, "git ultraplan result "), vec!["check"]);
    assert!(complete(&env, &script, "git ultraplan check --").contains(&"--json".to_owned()));
    assert_eq!(
        complete(&env, &script, "git ultraplan --color="),
        vec!["always", "auto", "never"]
    );
}
