//! Hunks that substitute the same names for others — a type renamed across
//! a code base — as git-historian plans them now that it no longer reads a
//! hunk's shape (issue 39: neither the substitution nor the tidying shape
//! earned its place on the evaluation's held-out half).

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
