//! The tuning the evaluation plans with: the planner's defaults, with knobs
//! set from the environment (`HISTORIAN_EVAL_THRESHOLD`, `_SMALL`,
//! `_COMMON`, `_HISTORY`, and any by name with `HISTORIAN_EVAL_SET`).

use ultraplan::historian::plan::context::Tuning;

/// The default tuning with the environment's knobs set.
pub fn tuning_from_env() -> Tuning {
    let mut tuning = Tuning::default();
    if let Some(t) = std::env::var("HISTORIAN_EVAL_THRESHOLD")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        tuning.join_threshold = t;
    }
    if let Some(t) = std::env::var("HISTORIAN_EVAL_SMALL").ok().and_then(|v| v.parse().ok()) {
        tuning.small_part_lines = t;
    }
    if let Some(t) = std::env::var("HISTORIAN_EVAL_COMMON").ok().and_then(|v| v.parse().ok()) {
        tuning.common_name_share = t;
    }
    if let Some(t) = std::env::var("HISTORIAN_EVAL_HISTORY")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        tuning.coupling_history = t;
    }
    if let Ok(settings) = std::env::var("HISTORIAN_EVAL_SET") {
        set_knobs(&mut tuning, &settings);
    }
    tuning
}

/// `HISTORIAN_EVAL_SET=<knob>=<value>,…`: the tuning's number and yes-no
/// knobs by name, to try values without rebuilding.
fn set_knobs(tuning: &mut Tuning, settings: &str) {
    for setting in settings.split(',').filter(|s| !s.trim().is_empty()) {
        let (knob, value) = setting.split_once('=').unwrap_or((setting, ""));
        let (knob, value) = (knob.trim(), value.trim());
        let number = || {
            value
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("{knob}: not a number: {value}"))
        };
        let yes = || {
            value
                .parse::<bool>()
                .unwrap_or_else(|_| panic!("{knob}: not true or false: {value}"))
        };
        match knob {
            "join_threshold" => tuning.join_threshold = number(),
            "sure_join" => tuning.sure_join = number(),
            "same_file" => tuning.same_file = number(),
            "subject_words" => tuning.subject_words = number(),
            "body_words" => tuning.body_words = number(),
            "leaning_words" => tuning.leaning_words = number(),
            "used_words" => tuning.used_words = yes(),
            "versions" => tuning.versions = yes(),
            "issues" => tuning.issues = yes(),
            "shapes" => tuning.shapes = yes(),
            "history_words" => tuning.history_words = number(),
            "subject_kinds" => tuning.subject_kinds = number(),
            "unclaimed_subjects" => tuning.unclaimed_subjects = yes(),
            "supported_subjects" => tuning.supported_subjects = yes(),
            "subject_veto" => tuning.subject_veto = yes(),
            "unsupported_cuts" => tuning.unsupported_cuts = yes(),
            "subject_margins" => tuning.subject_margins = yes(),
            other => panic!("HISTORIAN_EVAL_SET: no knob {other}"),
        }
    }
}
