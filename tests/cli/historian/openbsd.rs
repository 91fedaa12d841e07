//! git-historian reads a squash of OpenBSD-style messages as the pieces of
//! work they name (issue 15, item 1): a subject that ends in its approval
//! (`…; ok gilles@`) is a subject and closes its message. (A wrapped
//! paragraph is a body: reading one as a subject did not earn its place on
//! the evaluation's held-out half, issue 39.)

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// `queue.c` at the base: a dead function, and a rename that gives up on
/// any error.
const QUEUE: &str = "#include <stdio.h>\n\nint\nqueue_envelope_dump(int id)\n{\n\tprintf(\"%d\\n\", id);\n\treturn 0;\n}\n\n\
/* many lines between the two functions */\nstatic int a1;\nstatic int a2;\nstatic int a3;\nstatic int a4;\nstatic int a5;\n\
static int a6;\nstatic int a7;\nstatic int a8;\n\nint\nqueue_commit(const char *from, const char *to)\n{\n\
\tif (rename(from, to) == -1)\n\t\treturn -1;\n\treturn 0;\n}\n";

#[test]
fn a_subject_ending_in_its_approval_names_a_piece_of_work() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("queue.c"), QUEUE);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let tip = QUEUE
        .replace(
            "int\nqueue_envelope_dump(int id)\n{\n\tprintf(\"%d\\n\", id);\n\treturn 0;\n}\n\n",
            "",
        )
        .replace(
            "\tif (rename(from, to) == -1)\n\t\treturn -1;\n",
            "\tif (rename(from, to) == -1) {\n\t\tif (errno == ENOSPC)\n\t\t\treturn 0;\n\t\treturn -1;\n\t}\n",
        );
    write(&repo.join("queue.c"), &tip);
    commit_all(
        &env,
        &repo,
        "kill unnecessary queue_envelope_dump(); ok gilles@\n\n\
         rename may fail due to ENOSPC, make smtpd survive this condition; ok gilles@\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_subject_ending_in_its_approval_names_a_piece_of_work");
}
