//! `git historian clean --stack`: one branch per clean commit,
//! `<clean>-stack/NN-<slug>`, each on the previous, made with the clean
//! branch when the run succeeds (after a QUESTION, when `resume` ends it),
//! removed by `abort`; every other reference stays byte-identical.

use std::path::Path;

use crate::harness::historian::{field, messy_repo, refs, show_outcome, subjects_of, user_state};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;
use crate::historian::session::big_repo;

/// Records the clean branch's commits from `main`, oldest first, each with
/// the branches at it: the n-th stack branch at the n-th commit.
fn show_stack(t: &mut Transcript, repo: &Path, clean: &str) {
    let range = format!("main..{clean}");
    let _ = t
        .run(repo, &["log", "--reverse", "--format=%s%d", &range])
        .expect_code(0);
}

/// The `Stack branches:` lines of a SUCCESS block.
fn stack_lines(out: &Output) -> Vec<String> {
    out.stdout
        .lines()
        .skip_while(|l| *l != "Stack branches:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_owned())
        .collect()
}

/// `git for-each-ref` without the lines of the references named (by prefix).
fn refs_without(env: &TestEnv, repo: &Path, made: &[String]) -> String {
    refs(env, repo)
        .lines()
        .filter(|l| !made.iter().any(|m| l.starts_with(&format!("refs/heads/{m} "))))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Checks that `stack` are the stack branches of `clean`: numbered in
/// order under `<clean>-stack/`, the n-th at the n-th clean commit.
fn assert_stack(env: &TestEnv, repo: &Path, clean: &str, stack: &[String]) {
    let commits = env.git(repo, &["rev-list", "--reverse", &format!("main..{clean}")]);
    let commits: Vec<&str> = commits.lines().collect();
    assert_eq!(stack.len(), commits.len(), "{stack:?}");
    let listed = env.git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            &format!("refs/heads/{clean}-stack/"),
        ],
    );
    assert_eq!(listed.lines().collect::<Vec<_>>(), stack);
    let subjects = subjects_of(env, repo, &format!("main..{clean}"));
    for (n, (name, id)) in stack.iter().zip(&commits).enumerate() {
        let number = format!("{clean}-stack/{:02}-", n + 1);
        assert!(name.starts_with(&number), "{name}");
        let slug = &name[number.len()..];
        assert!(
            !slug.is_empty()
                && slug
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{name}"
        );
        // The slug is made of the subject's words.
        let subject = subjects[n].to_lowercase();
        assert!(slug.split('-').all(|w| subject.contains(w)), "{slug} / {subject}");
        assert_eq!(env.git(repo, &["rev-parse", name]).trim(), *id);
        // Each on the previous: the previous branch is its parent.
        let parent = env.git(repo, &["rev-parse", &format!("{name}^")]);
        match n {
            0 => assert_eq!(parent, env.git(repo, &["rev-parse", "main"])),
            _ => assert_eq!(parent, env.git(repo, &["rev-parse", &stack[n - 1]])),
        }
    }
    assert_eq!(
        env.git(repo, &["rev-parse", stack.last().unwrap()]),
        env.git(repo, &["rev-parse", clean])
    );
}

#[test]
fn stack_makes_one_branch_per_clean_commit_and_touches_nothing_else() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let before = refs(&env, &repo);
    let state = user_state(&env, &repo, "feature");
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean", "--stack"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    let stack = stack_lines(&out);
    show_stack(&mut t, &repo, &clean);
    show_outcome(&mut t, &repo, "feature", &clean);
    assert_transcript!(t, "stack_makes_one_branch_per_clean_commit_and_touches_nothing_else");
    assert_stack(&env, &repo, &clean, &stack);
    // Every other reference, byte for byte.
    let mut made = vec![clean.clone()];
    made.extend(stack.iter().cloned());
    assert_eq!(refs_without(&env, &repo, &made), before);
    let mut after = user_state(&env, &repo, "feature");
    after.branches = state.branches.clone();
    assert_eq!(state, after);

    // The same commits as without --stack.
    let plain = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert_eq!(
        subjects_of(&env, &repo, &format!("main..{}", field(&plain, "Clean branch"))),
        subjects_of(&env, &repo, &format!("main..{clean}"))
    );
    assert!(!plain.stdout.contains("Stack branches"), "{plain}");

    // As JSON, the same names.
    let json = env
        .run(&repo, &["historian", "clean", "--stack", "--json"])
        .expect_code(0)
        .json();
    let names: Vec<String> = json["stack_branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_stack(&env, &repo, json["clean_branch"].as_str().unwrap(), &names);
}

#[test]
fn a_stack_after_a_question_is_made_when_resume_ends_the_run() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean", "--stack"]).expect_code(3);
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    t.note("nothing of the stack yet; the session remembers it was asked for");
    let stack_refs = format!("refs/heads/{clean}-stack/");
    let _ = t.run(&repo, &["for-each-ref", &stack_refs]).expect_code(0);
    let state: serde_json::Value =
        serde_json::from_str(&env.git(&repo, &["show", "refs/historian/feature:session.json"])).unwrap();
    assert_eq!(state["settings"]["stack"], true);

    let out = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    let stack = stack_lines(&out);
    show_stack(&mut t, &repo, &clean);
    show_outcome(&mut t, &repo, "feature", &clean);
    assert_transcript!(t, "a_stack_after_a_question_is_made_when_resume_ends_the_run");
    assert_stack(&env, &repo, &clean, &stack);
    let mut made = vec![clean.clone()];
    made.extend(stack.iter().cloned());
    assert_eq!(refs_without(&env, &repo, &made), before);
}

#[test]
fn abort_removes_the_stack_branches_the_run_made_and_spares_others() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean", "--stack"]).expect_code(3);
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    // As a run killed while making its stack would leave it: a stack
    // branch at a commit it built; and one a person made elsewhere.
    let ours = format!("{clean}-stack/01-depend-on-serde");
    let theirs = format!("{clean}-stack/99-mine");
    env.git(&repo, &["branch", &ours, &clean]);
    env.git(&repo, &["branch", &theirs, "main"]);
    t.note("a stack branch at a commit the run built (as a run killed while making its stack leaves it), and one a person made at main");
    let stack_refs = format!("refs/heads/{clean}-stack/");
    let listing = ["for-each-ref", "--format=%(refname:short) %(subject)", &stack_refs];
    let _ = t.run(&repo, &listing).expect_code(0);
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(0);
    let _ = t.run(&repo, &listing).expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
    assert_transcript!(t, "abort_removes_the_stack_branches_the_run_made_and_spares_others");
    env.git(&repo, &["branch", "-D", "-q", &theirs]);
    assert_eq!(refs(&env, &repo), before);
}

/// git allows `|`, `"`, `<` and `>` in a branch name (a path Windows
/// could not hold): the stack is made under it all the same, and the hint
/// after a QUESTION quotes the name so that pasting it runs no pipe.
#[test]
fn a_branch_name_a_shell_or_windows_reads_specially_is_stacked_and_quoted() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a"), "a\n");
    crate::harness::historian::commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feat/a|b"]);
    write(&repo.join("docs/guide.md"), "# Guide\n");
    crate::harness::historian::commit_all(&env, &repo, "Write the guide");
    for i in 0..20 {
        write(&repo.join(format!("src/f{i}.c")), &format!("int f{i} = SEED;\n"));
    }
    crate::harness::historian::commit_all(&env, &repo, "Add twenty sources");
    let mut t = Transcript::new(&env);
    let out = t
        .run(&repo, &["historian", "clean", "--stack", "--max-files", "100"])
        .expect_code(0);
    let clean = field(&out, "Clean branch");
    show_stack(&mut t, &repo, &clean);
    show_outcome(&mut t, &repo, "feat/a|b", &clean);
    assert_stack(&env, &repo, &clean, &stack_lines(&out));
    t.note("the hint quotes the name, so that pasting it runs no pipe");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(3);
    assert_transcript!(
        t,
        "a_branch_name_a_shell_or_windows_reads_specially_is_stacked_and_quoted"
    );
}
