//! The tuning the evaluation plans with: the planner's defaults, with knobs
//! set from the environment (`HISTORIAN_EVAL_THRESHOLD`, `_SMALL`,
//! `_COMMON`, `_HISTORY`, and any by name with `HISTORIAN_EVAL_SET`); and
//! the variants `HISTORIAN_EVAL_ABLATE` scores it against ([`variants`]).

use ultraplan::historian::plan::context::{HunkParts, Tuning};
use ultraplan::historian::plan::{affinity, count};

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
            "whole_words" => tuning.whole_words = yes(),
            "version_weight" => tuning.version_weight = number(),
            "issue_weight" => tuning.issue_weight = number(),
            "supported_subjects" => tuning.supported_subjects = yes(),
            "subject_veto" => tuning.subject_veto = yes(),
            "unsupported_cuts" => tuning.unsupported_cuts = yes(),
            "cluster_elimination" => tuning.cluster_elimination = yes(),
            "elimination_share" => tuning.elimination_share = number(),
            "subject_margins" => tuning.subject_margins = yes(),
            // `w3=1.0`: the weight of the affinity's feature 3 (of
            // `affinity::FEATURES`, from 0), the intercept `w=…`.
            other if other.starts_with('w') => {
                let mut c = tuning
                    .coefficients
                    .clone()
                    .unwrap_or_else(|| affinity::COEFFICIENTS.to_vec());
                let at = match &other[1..] {
                    "" => 0,
                    n => {
                        1 + n
                            .parse::<usize>()
                            .unwrap_or_else(|_| panic!("HISTORIAN_EVAL_SET: no knob {other}"))
                    }
                };
                *c.get_mut(at)
                    .unwrap_or_else(|| panic!("HISTORIAN_EVAL_SET: no feature {other}")) = number();
                tuning.coefficients = Some(c);
            }
            other => panic!("HISTORIAN_EVAL_SET: no knob {other}"),
        }
    }
}

/// The planner without each signal, or with one knob changed.
pub fn variants(base: &Tuning) -> Vec<(String, Tuning)> {
    let mut out = Vec::new();
    let without = |features: &[usize]| {
        let mut t = base.clone();
        let mut c = t
            .coefficients
            .clone()
            .unwrap_or_else(|| affinity::COEFFICIENTS.to_vec());
        for &f in features {
            c[f + 1] = 0.0;
        }
        t.coefficients = Some(c);
        t
    };
    out.push(("as tuned".to_owned(), base.clone()));
    out.push(("no names in common".to_owned(), without(&[0, 1, 2])));
    out.push(("no change coupling".to_owned(), without(&[3, 4])));
    out.push(("no test naming its code".to_owned(), without(&[5])));
    out.push(("no definition and use".to_owned(), without(&[6])));
    out.push(("no file naming a stem".to_owned(), without(&[7])));
    out.push(("no kinds of file".to_owned(), without(&[11, 12, 13, 14])));
    for leaning in [0.0, 1.0] {
        let mut t = base.clone();
        t.leaning_words = leaning;
        out.push((format!("leaning words {leaning}"), t));
    }
    let mut t = base.clone();
    t.versions = !t.versions;
    out.push((format!("versions {}", t.versions), t));
    let mut t = base.clone();
    t.issues = !t.issues;
    out.push((format!("issue numbers {}", t.issues), t));
    let mut t = base.clone();
    t.shapes = !t.shapes;
    out.push((format!("shapes {}", t.shapes), t));
    for weight in [0.0, 0.5, 2.0] {
        let mut t = base.clone();
        t.history_words = weight;
        out.push((format!("history words {weight}"), t));
    }
    for share in [0.25, 1.0] {
        let mut t = base.clone();
        t.subject_kinds = share;
        out.push((format!("subject kinds {share}"), t));
    }
    let mut t = base.clone();
    t.unclaimed_subjects = !t.unclaimed_subjects;
    out.push((format!("unclaimed subjects {}", t.unclaimed_subjects), t));
    for (version, issue) in [(1.0, 1.0), (1.0, base.issue_weight), (base.version_weight, 1.0)] {
        let mut t = base.clone();
        t.version_weight = version;
        t.issue_weight = issue;
        out.push((format!("version words {version}, issue words {issue}"), t));
    }
    let mut t = base.clone();
    t.whole_words = !t.whole_words;
    out.push((format!("whole words {}", t.whole_words), t));
    let mut t = base.clone();
    t.subject_veto = !t.subject_veto;
    out.push((format!("subject veto {}", t.subject_veto), t));
    let mut t = base.clone();
    t.subject_margins = !t.subject_margins;
    out.push((format!("subject margins {}", t.subject_margins), t));
    let mut t = base.clone();
    t.unsupported_cuts = !t.unsupported_cuts;
    out.push((format!("unsupported cuts {}", t.unsupported_cuts), t));
    let mut t = base.clone();
    t.cluster_elimination = !t.cluster_elimination;
    out.push((format!("cluster elimination {}", t.cluster_elimination), t));
    for share in [0.0, 0.2] {
        let mut t = base.clone();
        t.elimination_share = share;
        out.push((format!("elimination share {share}"), t));
    }
    for reading in [
        count::Reading::Loose,
        count::Reading::NotProse,
        count::Reading::Stops,
        count::Reading::Verb,
    ] {
        let mut t = base.clone();
        t.reading = reading;
        out.push((format!("subjects read {reading:?}"), t));
    }
    let mut t = base.clone();
    t.supported_subjects = !base.supported_subjects;
    out.push((format!("supported subjects {}", t.supported_subjects), t));
    let mut t = base.clone();
    t.count_from_message = !base.count_from_message;
    out.push((format!("count from the message {}", t.count_from_message), t));
    for (label, mode) in [
        ("files kept whole", HunkParts::Never),
        ("hunks by subject", HunkParts::BySubject),
        ("hunks when fewer files", HunkParts::WhenFewerFiles),
        ("hunks with any count", HunkParts::WithCount),
    ] {
        let mut t = base.clone();
        t.hunk_parts = mode;
        out.push((label.to_owned(), t));
    }
    let mut t = base.clone();
    t.used_words = !base.used_words;
    out.push((format!("used words {}", t.used_words), t));
    for weight in [0.0, 0.25, 0.5] {
        let mut t = base.clone();
        t.body_words = weight;
        out.push((format!("body words {weight}"), t));
    }
    for weight in [0.0, 0.75, 1.5, 3.0] {
        let mut t = base.clone();
        t.subject_words = weight;
        out.push((format!("subject words {weight}"), t));
    }
    for bonus in [0.0, 1.0, 3.0, 5.0] {
        let mut t = base.clone();
        t.same_file = bonus;
        out.push((format!("same file {bonus}"), t));
    }
    for sure in [0.85, 0.9, 0.95, 1.01] {
        let mut t = base.clone();
        t.sure_join = sure;
        out.push((format!("sure join {sure}"), t));
    }
    for threshold in [0.4, 0.5, 0.6] {
        let mut t = base.clone();
        t.join_threshold = threshold;
        out.push((format!("join threshold {threshold}"), t));
    }
    out
}
