//! What an agent executor is told: the whole step for a fresh session, or,
//! when a retry continues the agent's own session, only what failed (the
//! agent still has the step in its context) and the rules again.

use super::{Context, Request};

pub(super) fn full(request: &Request<'_>, ctx: &Context<'_>) -> String {
    let step = request.step;
    let mut p = format!(
        "You are carrying out one step of an implementation plan in the git repository at {}.\n\n",
        ctx.workdir.display()
    );
    p.push_str(&format!("{}\n", step.task_name()));
    if !step.files.is_empty() {
        let files: Vec<&str> = step.files.iter().map(|f| f.path.as_str()).collect();
        p.push_str(&format!("Files you may create or modify: {}\n", files.join(", ")));
    }
    if !step.changes.is_empty() {
        p.push_str(&format!("Changes:\n{}\n", step.changes));
    }
    if let Some(reuses) = &step.reuses {
        p.push_str(&format!("Reuses: {reuses}\n"));
    }
    let context: Vec<&str> = step
        .context
        .iter()
        .chain(&request.plan.context)
        .map(String::as_str)
        .collect();
    if !context.is_empty() {
        p.push_str(&format!("Read these files first: {}\n", context.join(", ")));
    }
    if let Some(fails_when) = &step.fails_when {
        p.push_str(&format!("The step fails when: {fails_when}\n"));
    }
    if let Some(done) = &step.done {
        p.push_str(&format!("Done when: {done}\n"));
    }
    if let Some(verify) = &step.verify {
        p.push_str(&format!(
            "git-ultraplan verifies this step itself afterwards by running: {}{}\n",
            verify.command,
            verify
                .expected
                .as_ref()
                .map(|e| format!(" (expected: {e})"))
                .unwrap_or_default()
        ));
    }
    if !request.touch.is_empty() {
        p.push_str(&format!("Touch only: {}\n", request.touch.join(", ")));
    }
    if !request.never_touch.is_empty() {
        p.push_str(&format!("Never touch: {}\n", request.never_touch.join(", ")));
    }
    if let Some(feedback) = &request.feedback {
        p.push_str(&format!(
            "\nThis is attempt {} of {}. The previous attempt failed:\n{feedback}\n",
            request.attempt, request.max_attempts
        ));
    }
    p.push_str(&rules(request, ctx));
    p
}

/// The prompt of a retry that continues the agent's session: what failed,
/// and the rules again.
pub(super) fn resumed(request: &Request<'_>, ctx: &Context<'_>) -> String {
    let mut p = format!(
        "Your previous attempt at {} did not pass (this is attempt {} of {}).\n",
        request.step.task_name(),
        request.attempt,
        request.max_attempts
    );
    if let Some(feedback) = &request.feedback {
        p.push_str(&format!("\n{feedback}\n"));
    }
    p.push_str("\nFix it: make the step's Verify command pass.\n");
    p.push_str(&rules(request, ctx));
    p
}

fn rules(request: &Request<'_>, ctx: &Context<'_>) -> String {
    format!(
        "\nRules:\n- Do not commit, stage, stash, reset or otherwise change git state: git-ultraplan commits the step itself.\n\
         - Change only what the step asks for.\n\
         - When you are done, write your result as YAML to the file {} with the fields status (success, failure or blocked), \
         task_name: \"{}\", files_modified, verification (command, exit_code, output_summary), done_criteria_met, evidence and error.\n",
        ctx.result_file.display(),
        request.step.task_name()
    )
}
