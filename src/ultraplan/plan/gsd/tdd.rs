//! GSD's TDD plans (`type: tdd`): each `<feature>` becomes RED, GREEN and
//! REFACTOR steps around one test command.

use super::super::elements::{find_open_tag, task_files, Page};
use super::super::front_matter::FrontMatter;
use super::super::{Checkpoint, Diagnostics, FailurePolicy, OnFailure, Step, Verify};
use super::read_verify;

/// `type: tdd` in the front matter.
pub(crate) fn is_tdd(front: &FrontMatter<'_>) -> bool {
    front.value("type").is_some_and(|t| t.eq_ignore_ascii_case("tdd"))
}

/// A TDD plan's `<feature>` elements as RED, GREEN and REFACTOR steps: RED
/// writes the test, and passes only when the test command fails; GREEN
/// implements, and passes only when it succeeds; REFACTOR may clean up, and
/// the test must still pass (no change, no commit). The command is the feature's `<verify>`,
/// else the plan's `<verification>`.
pub(crate) fn tdd_steps(page: &Page<'_>, diags: &mut Diagnostics) -> Vec<Step> {
    let whole = (0, page.text.len());
    let plan_verify = page.element_raw("verification", whole);
    let mut steps = Vec::new();
    let mut at = 0;
    let mut index = 0;
    while let Some(open) = find_open_tag(page.text, "feature", at) {
        index += 1;
        let line = page.lines.line(open);
        let Some(close) = page.text[open..].find("</feature>").map(|i| open + i) else {
            diags.problem(line, "<feature> has no matching </feature>");
            break;
        };
        let scope = (open, close);
        let name = page
            .element("name", scope)
            .map(|e| e.content)
            .unwrap_or_else(|| format!("Feature {index}"));
        let files = page.element("files", scope).map(|e| task_files(&e)).unwrap_or_default();
        let behavior = page
            .element_raw("behavior", scope)
            .map(|e| e.content)
            .unwrap_or_default();
        let implementation = page
            .element_raw("implementation", scope)
            .map(|e| e.content)
            .unwrap_or_default();
        let number = steps.len() as u32 + 1;
        let own = page.element_raw("verify", scope);
        let read = read_verify(own.as_ref().or(plan_verify.as_ref()), number, diags);
        if own.is_none() && plan_verify.is_none() {
            diags.warning(
                line,
                format!("feature '{name}' has no <verify> and the plan no <verification>; its steps wait for a person"),
            );
        }
        let red_verify = read.verify.as_ref().map(|v| Verify {
            command: format!("! {{ {}\n}}", v.command),
            expected: None,
            expected_kind: None,
        });
        let make = |number: u32, title: String, changes: String, verify: Option<Verify>| Step {
            number,
            title: title.clone(),
            files: files.clone(),
            changes,
            code_blocks: Vec::new(),
            reuses: None,
            test_first: None,
            verify,
            on_failure: OnFailure {
                action: FailurePolicy::Retry,
                instructions: None,
            },
            checkpoint: Some(Checkpoint::Commit {
                message: format!("Task {number}: {title}"),
            }),
            manifest: None,
            done: None,
            task_type: Some("tdd".into()),
            name: None,
            human: read.human.clone(),
            context: Vec::new(),
            fails_when: None,
            unchecked: Vec::new(),
            origin: None,
            line,
            ..Default::default()
        };
        let mut red = make(
            number,
            format!("RED: failing test for {name}"),
            format!(
                "Write the test (in {}) for this behavior; it must fail before the implementation.\n{behavior}",
                files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", ")
            ),
            red_verify,
        );
        // The cycle writes its files: none is "not found".
        for f in &mut red.files {
            f.new = true;
        }
        // RED writes the test: a test command failing because nothing was
        // written (no test file at all) is no RED.
        red.manifest = Some(super::super::Manifest {
            min_file_count: Some(1),
            ..Default::default()
        });
        steps.push(red);
        steps.push(make(
            number + 1,
            format!("GREEN: implement {name}"),
            format!("Implement so the test passes.\n{implementation}\n{behavior}"),
            read.verify.clone(),
        ));
        // Nothing changed is fine: no commit, as GSD asks.
        steps.push(make(
            number + 2,
            format!("REFACTOR: clean up {name}"),
            "Clean up the implementation if there is an obvious improvement; the test must still pass. Change nothing otherwise.".into(),
            read.verify.clone(),
        ));
        at = close;
    }
    steps
}
