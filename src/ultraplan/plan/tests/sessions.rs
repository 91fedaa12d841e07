//! Execution Strategies: sessions, their references and cycles, waves and
//! scope fences.

use super::*;

#[test]
fn sessions_cycles_are_named() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Depends on:** Session 2\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 1\n",
    ));
    let p = problems(&plan);
    assert!(
        p.iter()
            .any(|(_, m)| m == "dependency cycle: session 1 → session 2 → session 1"),
        "{p:?}"
    );
}

#[test]
fn session_reference_problems() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2, 7\n- **Depends on:** Session 1\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 5\n",
    ));
    let p = problems(&plan);
    assert!(
        has_problem(&plan, 18, "session 1 lists step 7, which the plan does not have"),
        "{p:?}"
    );
    assert!(has_problem(&plan, 18, "session 1 depends on itself"));
    assert!(has_problem(&plan, 21, "step 2 belongs to both session 1 and session 2"));
    assert!(has_problem(
        &plan,
        21,
        "session 2 depends on session 5, which the plan does not have"
    ));
}

#[test]
fn waves_are_derived_and_checked() {
    let derived = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Depends on:** none\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 1\n",
    ));
    assert_eq!(problems(&derived), vec![]);
    assert_eq!(derived.waves, vec![vec![1], vec![2]]);
    assert_eq!(derived.strategy().to_string(), "2 sessions (0 parallel, 2 sequential)");

    let wrong = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 1\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** Session 1\n",
    ));
    assert!(has_problem(
        &wrong,
        21,
        "session 2 runs in wave 1 but depends on session 1 in wave 1"
    ));

    let order = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 2\n\
         ### Session 2: Two\n- **Steps:** 2\n\
         ### Execution Order\n- Wave 1: Session 1, Session 2 (parallel)\n",
    ));
    assert!(has_problem(
        &order,
        24,
        "session 1 is in wave 2 by its Wave field but in wave 1 by the execution order"
    ));
    assert_eq!(
        order.session(2).unwrap().wave,
        Some(1),
        "the execution order gives the wave"
    );
}

#[test]
fn touch_overlaps_within_a_wave_name_the_files() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 1\n- **Scope fence:** Touch: `a.txt`, `shared/**` — Never touch: `b.txt`\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Wave:** 1\n- **Scope fence:** Touch: `b.txt`, `shared/x.rs`\n",
    ));
    let p = problems(&plan);
    assert!(
        p.iter().any(|(line, m)| *line == 22
            && m == "sessions 1 and 2 are both in wave 1 and both touch 'shared/**' and 'shared/x.rs'"),
        "{p:?}"
    );
}

#[test]
fn step_files_outside_the_session_fence_are_warnings() {
    let has_warning =
        |plan: &Plan, line: usize, needle: &str| warnings(plan).iter().any(|(l, m)| *l == line && m.contains(needle));
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2\n- **Scope fence:** Touch: `a.txt` — Never touch: `b.txt`\n",
    ));
    assert!(
        has_warning(
            &plan,
            12,
            "step 2: 'b.txt' is in session 1's Never touch list ('b.txt'); the step will escalate"
        ),
        "{:?}",
        warnings(&plan)
    );
    assert_eq!(problems(&plan), vec![], "the plan still runs");
    let outside = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2\n- **Scope fence:** Touch: `a.txt`\n",
    ));
    assert!(has_warning(
        &outside,
        12,
        "step 2: 'b.txt' is outside session 1's Touch list"
    ));
    assert_eq!(problems(&outside), vec![]);
}

#[test]
fn execution_strategy_without_sessions_or_steps() {
    let plan = parsed(&two_steps("## Execution Strategy\n\nTBD\n"));
    assert!(has_problem(&plan, 17, "has no '### Session N: <title>' sections"));
    let empty = parsed("# T\n\n## Implementation Plan\n\nNothing yet.\n");
    assert!(has_problem(&empty, 3, "no '### Step N: <title>' headings"));
}
