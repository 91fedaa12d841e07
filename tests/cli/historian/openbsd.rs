//! git-historian reads a squash of OpenBSD-style messages as the pieces of
//! work they name (issue 15, item 1): a subject that ends in its approval
//! (`…; ok gilles@`) is a subject and closes its message, and a wrapped
//! paragraph opening with a verb written with a hyphen (`Clean-up in …`)
//! opens the next message of a squash whose first subject is a sentence.

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

/// `argv.h` at the base: prototypes no one calls.
const ARGV_H: &str = "int argv_parse(int);\nint unused_lookup(const char *);\nint unused_parse(int);\n";

/// `argv.c` at the base: the argument kinds as defines.
const ARGV_C: &str =
    "#include \"argv.h\"\n\n#define ARGV_SINGLE 1\n#define ARGV_MULTI 2\n#define ARGV_OPT_SINGLE 3\n\n\
int\nargv_parse(int kind)\n{\n\treturn kind == ARGV_SINGLE;\n}\n";

#[test]
fn a_wrapped_paragraph_opening_with_a_hyphenated_verb_names_a_piece_of_work() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("argv.h"), ARGV_H);
    write(&repo.join("argv.c"), ARGV_C);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("argv.h"), "int argv_parse(int);\n");
    let tip = ARGV_C.replace(
        "#define ARGV_SINGLE 1\n#define ARGV_MULTI 2\n#define ARGV_OPT_SINGLE 3\n",
        "enum argv {\n\tARGV_SINGLE = 1,\n\tARGV_MULTI,\n\tARGV_OPT_SINGLE\n};\n",
    );
    write(&repo.join("argv.c"), &tip);
    commit_all(
        &env,
        &repo,
        "Kill off some unused function prototypes.\n\n\
         Clean-up in the table: make the single and multi kinds\nan enum.\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(
        t,
        "a_wrapped_paragraph_opening_with_a_hyphenated_verb_names_a_piece_of_work"
    );
}
