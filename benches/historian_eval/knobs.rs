//! The tuning the evaluation plans with: the planner's defaults, with knobs
//! set by name from `HISTORIAN_EVAL_SET` (`join_threshold=0.5,doubt=0.1`,
//! and a signal's weight by its number in `weights::SIGNALS`: `w3=1.0`,
//! the intercept `w=-0.6`); and the variants `HISTORIAN_EVAL_ABLATE`
//! scores it against ([`variants`]): the planner without each signal, and
//! without each knob.

use ultraplan::historian::plan::context::Tuning;
use ultraplan::historian::plan::weights::{weights as built_in, SIGNALS};

/// The default tuning with the environment's knobs set.
pub fn tuning_from_env() -> Tuning {
    let mut tuning = Tuning::default();
    if let Ok(settings) = std::env::var("HISTORIAN_EVAL_SET") {
        set_knobs(&mut tuning, &settings);
    }
    tuning
}

fn weights(tuning: &Tuning) -> Vec<f64> {
    tuning.weights.clone().unwrap_or_else(built_in)
}

/// `base` with the knobs of `settings` (as `HISTORIAN_EVAL_SET` writes them).
pub fn tuning_with(base: &Tuning, settings: &str) -> Tuning {
    let mut tuning = base.clone();
    set_knobs(&mut tuning, settings);
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
            "ask_below" => tuning.ask_below = number(),
            "ask_per_file" => tuning.ask_per_file = number(),
            "sure_join" => tuning.sure_join = number(),
            "same_file" => tuning.same_file = number(),
            "authors_cut" => tuning.authors_cut = number(),
            "subject_words" => tuning.subject_words = number(),
            "used_words" => tuning.used_words = yes(),
            "count_from_message" => tuning.count_from_message = yes(),
            "unit_size" => tuning.unit_size = number(),
            "local_moves" => tuning.local_moves = yes(),
            "move_lines" => tuning.move_lines = number(),
            other if other.starts_with('w') => {
                let mut w = weights(tuning);
                let at = match &other[1..] {
                    "" => 0,
                    n => {
                        1 + n
                            .parse::<usize>()
                            .unwrap_or_else(|_| panic!("HISTORIAN_EVAL_SET: no knob {other}"))
                    }
                };
                *w.get_mut(at)
                    .unwrap_or_else(|| panic!("HISTORIAN_EVAL_SET: no signal {other}")) = number();
                tuning.weights = Some(w);
            }
            other => panic!("HISTORIAN_EVAL_SET: no knob {other}"),
        }
    }
}

/// The signals (by their place in `weights::SIGNALS`) the joint variant
/// keeps: the names in common and change coupling.
pub const STRONG: [usize; 2] = [0, 1];

/// The planner without each signal, or with one knob at its neutral value.
pub fn variants(base: &Tuning) -> Vec<(String, Tuning)> {
    let mut out = vec![("as tuned".to_owned(), base.clone())];
    for (n, signal) in SIGNALS.iter().enumerate() {
        if signal.weight == 0.0 {
            continue;
        }
        let mut t = base.clone();
        let mut w = weights(base);
        w[n + 1] = 0.0;
        t.weights = Some(w);
        out.push((format!("no '{}'", signal.name), t));
    }
    let knob = |label: &str, change: &dyn Fn(&mut Tuning)| {
        let mut t = base.clone();
        change(&mut t);
        (label.to_owned(), t)
    };
    // The intercept at 0: two parts with no signal a coin toss.
    let mut t = base.clone();
    let mut w = weights(base);
    w[0] = 0.0;
    t.weights = Some(w);
    out.push(("no intercept".to_owned(), t));
    // Leave-one-out cannot say what leaving several out at once does.
    let mut weak = base.clone();
    let mut w = weights(base);
    for n in (0..SIGNALS.len()).filter(|n| !STRONG.contains(n)) {
        w[n + 1] = 0.0;
    }
    weak.weights = Some(w);
    out.push(("no signal but names and coupling".to_owned(), weak));
    out.extend([
        knob("no same-file bonus", &|t| t.same_file = 0.0),
        knob("no unit size", &|t| t.unit_size = 0.0),
        knob("no local moves", &|t| t.local_moves = false),
        knob("no author's cut", &|t| t.authors_cut = 0.0),
        knob("no sure join", &|t| t.sure_join = t.join_threshold),
        knob("no count from the message", &|t| t.count_from_message = false),
        knob("no used words", &|t| t.used_words = false),
        knob("no subject words", &|t| t.subject_words = 0.0),
        knob("never asks", &|t| t.ask_below = f64::NEG_INFINITY),
        knob("no ask per file", &|t| t.ask_per_file = 0.0),
    ]);
    for threshold in [0.35, 0.4, 0.45, 0.5, 0.55, 0.6] {
        out.push(knob(&format!("join threshold {threshold}"), &|t| {
            t.join_threshold = threshold
        }));
    }
    out
}
