//! The seed's own examples, rendered and parsed back.

use super::*;

fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn text(key: &str, value: &str) -> ResumeEntry {
    ResumeEntry {
        key: key.into(),
        value: ResumeValue::Text(value.into()),
    }
}

const SEED_SUCCESS: &str = "RESULT: SUCCESS
Original branch: feature/user-profile
Clean branch: feature/user-profile-20251021-143022-clean
Base commit: abc123
Commits created: 7
";

const SEED_ERROR: &str = "RESULT: ERROR
Step: 2 (Prepare Materials)
Description: Cannot find base commit for branch
Details: git merge-base returned error - branch may not be connected to main/master
";

const SEED_QUESTION: &str = "RESULT: QUESTION
Context: Executing commit plan - commit 3 of 5
Resume State:
  - Step: 5 (Execute Plan)
  - Original branch: feature/user-profile
  - Clean branch: feature/user-profile-20251021-143022-clean
  - Base commit: abc123
  - Current commit: 3
  - Commits completed: 2

The commit-writer agent found that commit 3 \"add user profile API endpoints\" is too large (18 files).

Option 1: Three commits - (1) data models, (2) controller logic, (3) route definitions
Option 2: Two commits - (1) backend API, (2) API documentation
Option 3: Four commits - (1) models, (2) controllers, (3) routes, (4) tests

What approach should I take?
";

#[test]
fn success_renders_exactly_as_the_seed() {
    let block = ResultBlock::Success(Success {
        fields: fields(&[
            ("Original branch", "feature/user-profile"),
            ("Clean branch", "feature/user-profile-20251021-143022-clean"),
            ("Base commit", "abc123"),
            ("Commits created", "7"),
        ]),
    });
    assert_eq!(block.render(), SEED_SUCCESS);
    assert_eq!(parse(SEED_SUCCESS).unwrap(), block);
}

#[test]
fn error_renders_exactly_as_the_seed() {
    let block = ResultBlock::Error(ErrorResult {
        context: fields(&[("Step", "2 (Prepare Materials)")]),
        description: "Cannot find base commit for branch".into(),
        details: Some("git merge-base returned error - branch may not be connected to main/master".into()),
    });
    assert_eq!(block.render(), SEED_ERROR);
    assert_eq!(parse(SEED_ERROR).unwrap(), block);
}

#[test]
fn question_renders_exactly_as_the_seed() {
    let block = ResultBlock::Question(Question {
        context: "Executing commit plan - commit 3 of 5".into(),
        resume_state: vec![
            text("Step", "5 (Execute Plan)"),
            text("Original branch", "feature/user-profile"),
            text("Clean branch", "feature/user-profile-20251021-143022-clean"),
            text("Base commit", "abc123"),
            text("Current commit", "3"),
            text("Commits completed", "2"),
        ],
        question:
            "The commit-writer agent found that commit 3 \"add user profile API endpoints\" is too large (18 files)."
                .into(),
        options: vec![
            "Three commits - (1) data models, (2) controller logic, (3) route definitions".into(),
            "Two commits - (1) backend API, (2) API documentation".into(),
            "Four commits - (1) models, (2) controllers, (3) routes, (4) tests".into(),
        ],
        prompt: "What approach should I take?".into(),
    });
    assert_eq!(block.render(), SEED_QUESTION);
    assert_eq!(parse(SEED_QUESTION).unwrap(), block);
}

#[test]
fn nested_question_round_trips() {
    let inner = ResultBlock::Question(Question {
        context: "Creating commit \"add user authentication system\"".into(),
        resume_state: vec![
            text("Branch", "feature/auth-20251021-143022-clean"),
            text("Commit description", "add user authentication system"),
        ],
        question: "This commit is too large (23 files).\n\nIt spans three layers.".into(),
        options: vec!["Three commits by layer".into(), "Two commits by tier".into()],
        prompt: "What approach should I take?".into(),
    });
    let outer = ResultBlock::Question(Question {
        context: "Executing commit plan - commit 3 of 5".into(),
        resume_state: vec![
            text("Step", "5 (Execute Plan)"),
            ResumeEntry {
                key: "Commit-writer question".into(),
                value: ResumeValue::Nested(Box::new(inner.clone())),
            },
            text("Commits completed", "2"),
        ],
        question: "The commit-writer asks how to split commit 3.".into(),
        options: vec![
            "Three commits by layer".into(),
            "Two commits by tier".into(),
            "Keep as one commit".into(),
        ],
        prompt: DEFAULT_PROMPT.into(),
    });
    let rendered = outer.render();
    assert!(rendered.contains("  - Commit-writer question:\n    RESULT: QUESTION\n    Context: Creating commit"));
    let parsed = parse(&rendered).unwrap();
    assert_eq!(parsed, outer);
    match &parsed {
        ResultBlock::Question(q) => match &q.resume_state[1].value {
            ResumeValue::Nested(block) => assert_eq!(**block, inner),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn multi_line_values_round_trip() {
    let block = ResultBlock::Error(ErrorResult {
        context: vec![],
        description: "Tree mismatch".into(),
        details: Some("first line\nsecond line\n  indented".into()),
    });
    assert_eq!(parse(&block.render()).unwrap(), block);
    let q = ResultBlock::Question(Question {
        context: "c".into(),
        resume_state: vec![text("Commit plan", "1. feat: a\n2. fix: b")],
        question: "q?".into(),
        options: vec!["a".into()],
        prompt: DEFAULT_PROMPT.into(),
    });
    assert_eq!(parse(&q.render()).unwrap(), q);
}

#[test]
fn chatter_before_the_block_is_ignored() {
    let text = format!("Analysing 12 commits...\nDone.\n\n{SEED_ERROR}");
    assert!(matches!(parse(&text).unwrap(), ResultBlock::Error(_)));
}

#[test]
fn malformed_blocks_are_errors_with_lines() {
    assert_eq!(parse("nothing here").unwrap_err().message, "no 'RESULT:' line");
    assert!(parse("RESULT: MAYBE\n")
        .unwrap_err()
        .message
        .contains("unknown result 'MAYBE'"));
    assert!(parse("RESULT: ERROR\nDetails: x\n")
        .unwrap_err()
        .message
        .contains("Description"));
    assert!(parse("RESULT: QUESTION\nResume State:\n")
        .unwrap_err()
        .message
        .contains("Context"));
    let no_options = "RESULT: QUESTION\nContext: c\nResume State:\n  - a: b\n\nWhat now?\n";
    assert!(parse(no_options).unwrap_err().message.contains("Option N:"));
    let bad_state = "RESULT: QUESTION\nContext: c\nResume State:\n  not an entry\n\nq\n\nOption 1: x\n";
    assert_eq!(parse(bad_state).unwrap_err().line, 4);
}

#[test]
fn json_form_names_the_result() {
    let json = serde_json::to_value(parse(SEED_SUCCESS).unwrap()).unwrap();
    assert_eq!(json["result"], "SUCCESS");
}
