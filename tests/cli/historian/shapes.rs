//! git-historian reads the shape of a hunk (issue 15, item 1): hunks that
//! substitute the same names for others — a type renamed across a code
//! base — are one mechanical piece of work, whatever else their files hold.

use crate::harness::historian::{commit_all, record_clean, CLIENT_WITH_RETRY};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// Three files write `u_int8_t`, `u_int16_t` and `u_int32_t` the new way:
/// no name is common to two of them and no subject names them. The shared
/// substitution (`u_int#_t>uint#_t`) is no signal any more (leaving it out
/// cost nothing on the evaluation's held-out half), so nothing holds them
/// together: the message's count of two decides, as it can.
#[test]
fn files_substituting_the_same_names_stay_together() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("src/table.c"),
        "static u_int8_t table_flags;\nstatic u_int8_t table_mode;\nint table_size(void) { return 0; }\n",
    );
    write(
        &repo.join("src/queue.c"),
        "static u_int16_t queue_depth;\nstatic u_int16_t queue_limit;\nint queue_open(void) { return 0; }\n",
    );
    write(
        &repo.join("src/envelope.c"),
        "static u_int32_t envelope_serial;\nstatic u_int32_t envelope_count;\nint envelope_load(void) { return 0; }\n",
    );
    write(&repo.join("src/client.c"), "int client_open(void) { return 0; }\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/table.c"),
        "static uint8_t table_flags;\nstatic uint8_t table_mode;\nint table_size(void) { return 0; }\n",
    );
    write(
        &repo.join("src/queue.c"),
        "static uint16_t queue_depth;\nstatic uint16_t queue_limit;\nint queue_open(void) { return 0; }\n",
    );
    write(
        &repo.join("src/envelope.c"),
        "static uint32_t envelope_serial;\nstatic uint32_t envelope_count;\nint envelope_load(void) { return 0; }\n",
    );
    write(&repo.join("src/client.c"), CLIENT_WITH_RETRY);
    commit_all(
        &env,
        &repo,
        "coding style: write fixed-width types the standard way\n\nRetry a failed client connection\n",
    );
    // Two commits, each saying its own subject, typed by it alone: the
    // style change is `style`, the retries are not; the explanation names
    // the link that joined them (the substituted names).
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "files_substituting_the_same_names_stay_together");
}

/// Comments corrected word by word in two files and lines re-indented in a
/// third answer to the subjects saying so (`fix typos`, `reformat`) by their
/// shape alone: no path, name or word of theirs is in either subject.
#[test]
fn hunks_that_only_tidy_answer_to_the_subject_saying_so() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let parser = |word: &str| format!("/* Reads the {word} of a plan. */\nint parse_plan(void) {{ return 0; }}\n");
    let lexer = |word: &str| format!("/* Splits a line into {word}. */\nint lex_line(void) {{ return 0; }}\n");
    let table = |indent: &str| format!("int table_size(void)\n{{\n{indent}return 0;\n}}\n");
    write(&repo.join("src/parser.c"), &parser("haeder"));
    write(&repo.join("src/lexer.c"), &lexer("tokesn"));
    write(&repo.join("src/table.c"), &table("  "));
    write(&repo.join("src/client.c"), "int client_open(void) { return 0; }\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("src/parser.c"), &parser("header"));
    write(&repo.join("src/lexer.c"), &lexer("tokens"));
    write(&repo.join("src/table.c"), &table("\t"));
    write(&repo.join("src/client.c"), CLIENT_WITH_RETRY);
    commit_all(
        &env,
        &repo,
        "Fix typos\n\nRetry a failed client connection\n\nReindent with tabs\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "hunks_that_only_tidy_answer_to_the_subject_saying_so");
}
