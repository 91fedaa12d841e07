//! How well git-historian untangles work, measured on real histories in the
//! forms users bring it (`regimes::Regime`):
//!
//! * **neutral squash**: 2–3 consecutive original commits squashed into one
//!   commit with one neutral message (`Update`), as a tangled commit reads;
//! * **messy branch**: the same originals rebuilt as 3–8 `wip`/`fix`/`more`
//!   commits whose hunks interleave the originals (some of A, then of B,
//!   then the rest of A; now and then one commit holds work of two):
//!   provenance helps but does not decide;
//! * **joined messages**: squashed keeping the originals' messages joined,
//!   as `git rebase -i` joins them;
//! * **clean branch**: the originals themselves, their trees,
//!   messages and authors (the tip is the last): a branch already clean,
//!   where keeping it as it is scores 1 but for hunks two originals wrote;
//! * **tangled first commit**: the same, but the first two
//!   originals squashed under the first's message, as a described commit
//!   holding two pieces of work reads: what trusting the author's commits
//!   costs.
//!
//! For each repository the harness takes runs of 12 consecutive small
//! commits (at most 25 files and 600 changed lines each, no merges; 20 runs
//! by default, `HISTORIAN_EVAL_SEGMENTS`, `HISTORIAN_EVAL_LENGTH`), cuts each
//! run into groups of 2–3, and rebuilds every group as the branch of each
//! regime, on the group's real base. Each group is a case: the planner plans
//! its branch as `git historian clean` would, and the score is the share of
//! its changed lines that the planned commits group as the original commits
//! did (every line labelled with the original that wrote it, planned and
//! original commits matched one to one for the most agreement: the
//! Hungarian method). A commit never cuts a hunk, so a hunk two originals
//! wrote is right for one of them at most.
//!
//! Beside the planner, per case: one commit (do nothing), one commit per
//! directory, one commit per file, and the branch's own commits as they are
//! (`as is`: keeping the branch as it is; one commit for a squash); the
//! cases whose plan groups the items otherwise than the branch's commits
//! (`changes`: each item with the commit that wrote most of it); the
//! planned commit count below/equal/above the true one; the cases worse
//! than one commit; the
//! cases where `clean` would ask a person (`asks`: a QUESTION, its reading
//! being weak) and the mean over the cases it decides alone (`alone`). The
//! mean when every question is answered with the first option ("split as
//! proposed") is the plain mean.
//!
//! The public repositories are `sources::REPOSITORIES`, mirrored under
//! `/work/.mirror` (`HISTORIAN_EVAL_MIRROR` names another directory; fetched
//! at evaluation time, never committed), cut in two halves fixed before any
//! tuning. The held-out half is read only with `HISTORIAN_EVAL_HELD_OUT=1`.
//! A generated history is always there (not in either half);
//! `HISTORIAN_EVAL_REPOS` (colon-separated git directories) adds others.
//! `HISTORIAN_EVAL_REGIMES=neutral,messy` scores only those regimes (`clean`
//! and `tangled` the last two; all five by default, the last two costing
//! a few seconds: they write nothing or two commits per case);
//! `HISTORIAN_EVAL_ONLY=<text>` only the repositories whose name holds it;
//! `HISTORIAN_EVAL_HALF=held-out` (with `_HELD_OUT`) only the held-out half.
//! `HISTORIAN_EVAL_FIT=1` fits the affinity's weights by logistic
//! regression on the neutral and messy cases of the tuning half
//! (`fitting`) and prints them beside the built-in ones.
//! `HISTORIAN_EVAL_LINES=1` prints, for the tuning half, how often two
//! parts come from one original by what their line history says
//! (`fitting::lineage_report`: unknown, no past commit in common, or some).
//! `HISTORIAN_EVAL_ASK_SWEEP=1` scores the tuning half asking below each
//! of a few confidences (where `Tuning::ask_below` is set).
//! `HISTORIAN_EVAL_TRY=<settings>;<settings>;…` scores the tuning half
//! (only) with each setting written as `HISTORIAN_EVAL_SET` writes it
//! (`w6=1.5,join_threshold=0.5`), side by side on the same cases.
//! `HISTORIAN_EVAL_ABLATE=1` also scores the planner without each signal
//! (`knobs::variants`; `=<words,…>`: only the variants naming one), per
//! regime, on the held-out half when it is shown, else on the tuning half; `HISTORIAN_EVAL_PRECISE=1` prints means to five places
//! with the hindsight bound.
//!
//! Cases are written into a scratch repository borrowing the source's
//! objects; the source is only read.
//!
//! Run with `cargo bench --bench historian_eval`.

// Matrix code (the Hungarian method) reads best with indices.
#![allow(clippy::needless_range_loop)]

mod common;
#[path = "historian_eval/fitting.rs"]
mod fitting;
#[path = "historian_eval/generate.rs"]
mod generate;
#[path = "historian_eval/knobs.rs"]
mod knobs;
#[path = "historian_eval/pruning.rs"]
mod pruning;
#[path = "historian_eval/regimes.rs"]
mod regimes;
#[path = "historian_eval/scoring.rs"]
mod scoring;
#[path = "historian_eval/sources.rs"]
mod sources;
#[path = "historian_eval/tally.rs"]
mod tally;

use generate::generate;
use regimes::{Regime, REGIMES};
use sources::{Case, Lcg};
use tally::{print_header, print_row, score_case, Tally};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Time spent building the cases (`build`): analysing the groups, then
/// writing and tracing each regime's branches (by `Regime as usize + 1`).
static BUILD_NANOS: [std::sync::atomic::AtomicU64; REGIMES.len() + 1] =
    [const { std::sync::atomic::AtomicU64::new(0) }; REGIMES.len() + 1];

/// The cases of one repository in one regime.
struct Cases {
    name: String,
    language: String,
    held_out: Option<bool>,
    regime: Regime,
    cases: Vec<Case>,
}

fn main() {
    for (k, v) in common::env() {
        std::env::set_var(k, v);
    }
    let segment_count = env_number("HISTORIAN_EVAL_SEGMENTS", 20);
    let length = env_number("HISTORIAN_EVAL_LENGTH", 12);
    let show_held_out = std::env::var_os("HISTORIAN_EVAL_HELD_OUT").is_some();
    // Only the held-out half (an ablation run reads nothing else).
    let held_out_only = show_held_out && std::env::var("HISTORIAN_EVAL_HALF").is_ok_and(|h| h == "held-out");
    let only = std::env::var("HISTORIAN_EVAL_ONLY").unwrap_or_default();
    let regimes: Vec<Regime> = match std::env::var("HISTORIAN_EVAL_REGIMES") {
        Ok(list) => REGIMES
            .into_iter()
            .filter(|r| {
                list.split(',')
                    .any(|w| !w.trim().is_empty() && r.label().contains(w.trim()))
            })
            .collect(),
        Err(_) => REGIMES.to_vec(),
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let generated = dir.path().join("generated");
    generate(&generated);
    let scratch_root = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch_root).expect("scratch");
    let tuning = knobs::tuning_from_env();
    println!(
        "historian_eval: runs of {length} commits cut into groups of 2-3, up to {segment_count} runs per repository; regimes: {}",
        regimes.iter().map(|r| r.label()).collect::<Vec<_>>().join(", ")
    );
    let mut all: Vec<Cases> = Vec::new();
    // Each source's scratch repository, kept while the cases are planned.
    let mut kept = Vec::new();
    for source in sources::sources(&generated) {
        if !only.is_empty() && !source.name.contains(&only) {
            continue;
        }
        if held_out_only && source.held_out != Some(true) {
            continue;
        }
        if source.held_out == Some(true) && !show_held_out {
            // Not read at all: a tuning run neither sees nor waits for it.
            println!("{:<30} (held out: HISTORIAN_EVAL_HELD_OUT=1 shows it)", source.name);
            continue;
        }
        let Some(workspace) = sources::scratch(&source, &scratch_root) else {
            println!(
                "{:<30} (skipped: not found at {})",
                source.name,
                source.git_dir.display()
            );
            continue;
        };
        let repo = workspace.repo().expect("scratch repository");
        let groups = sources::groups(&source, repo, segment_count, length);
        if groups.is_empty() {
            println!("{:<30} (skipped: no run of {length} small commits)", source.name);
            continue;
        }
        all.extend(build(&source, repo, &groups, &regimes));
        kept.push(workspace);
    }
    let seconds = |n: &std::sync::atomic::AtomicU64| n.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e9;
    let built: Vec<String> = regimes
        .iter()
        .map(|&r| format!("{} {:.1} s", r.label(), seconds(&BUILD_NANOS[r as usize + 1])))
        .collect();
    println!(
        "cases built in: analysis {:.1} s, {}",
        seconds(&BUILD_NANOS[0]),
        built.join(", ")
    );
    println!(
        "line history read in {:.1} s in all",
        sources::LINE_HISTORY_NANOS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e9
    );
    for &regime in &regimes {
        println!("\n== {}", regime.label());
        let started = std::time::Instant::now();
        print_header();
        let mut halves = [Tally::default(), Tally::default()];
        for c in all.iter().filter(|c| c.regime == regime) {
            let t = tally_of(&c.cases, &tuning);
            let half = match c.held_out {
                Some(true) => "held out",
                Some(false) => "tuning",
                None => "-",
            };
            print_row(&format!("{} ({}, {half})", c.name, c.language), &t);
            if let Some(held) = c.held_out {
                halves[usize::from(held)].add(&t);
            }
        }
        print_row("tuning half", &halves[0]);
        if show_held_out {
            print_row("held-out half", &halves[1]);
        }
        println!("planned and scored in {:.0} s", started.elapsed().as_secs_f64());
    }
    prune(&all, &regimes, show_held_out, &tuning);
    drop(kept);
    if std::env::var_os("HISTORIAN_EVAL_FIT").is_some() {
        let mut rows = Vec::new();
        for c in all
            .iter()
            .filter(|c| c.held_out == Some(false) && matches!(c.regime, Regime::Neutral | Regime::Messy))
        {
            rows.extend(fitting::dataset(&c.cases, &tuning));
        }
        let together = rows.iter().filter(|r| r.1).count();
        fitting::report(&fitting::fit(&rows), rows.len(), together);
    }
    if std::env::var_os("HISTORIAN_EVAL_LINES").is_some() {
        for &regime in regimes.iter().filter(|&&r| r != Regime::Joined) {
            let cases: Vec<&Case> = all
                .iter()
                .filter(|c| c.regime == regime && c.held_out == Some(false))
                .flat_map(|c| &c.cases)
                .collect();
            fitting::lineage_report(regime.label(), &cases, &tuning);
        }
    }
    if std::env::var_os("HISTORIAN_EVAL_ASK_SWEEP").is_some() {
        // Where to ask, chosen on the tuning half only.
        for &regime in regimes.iter().filter(|&&r| r != Regime::Joined) {
            println!("\n== {} (tuning half), by where it asks", regime.label());
            print_header();
            for ask in [0.28, 0.3, 0.32, 0.34, 0.36, 0.37, 0.38, 0.4] {
                let t = ultraplan::historian::plan::context::Tuning {
                    ask_below: ask,
                    ..tuning.clone()
                };
                let mut half = Tally::default();
                for c in all.iter().filter(|c| c.regime == regime && c.held_out == Some(false)) {
                    half.add(&tally_of(&c.cases, &t));
                }
                print_row(&format!("ask below {ask}"), &half);
            }
        }
    }
    if let Ok(tries) = std::env::var("HISTORIAN_EVAL_TRY") {
        // Settings tried side by side on the same cases: the tuning half
        // only, whatever else is shown.
        for &regime in &regimes {
            println!("\n== {} (tuning half), by setting", regime.label());
            print_header();
            for settings in tries.split(';').filter(|s| !s.trim().is_empty()) {
                let variant = knobs::tuning_with(&tuning, settings);
                let mut half = Tally::default();
                for c in all.iter().filter(|c| c.regime == regime && c.held_out == Some(false)) {
                    half.add(&tally_of(&c.cases, &variant));
                }
                print_row(settings.trim(), &half);
            }
        }
    }
    if let Ok(wanted) = std::env::var("HISTORIAN_EVAL_ABLATE") {
        let wanted = |label: &str| wanted == "1" || wanted.split(',').any(|w| label.contains(w.trim()));
        for &regime in &regimes {
            println!("\n== ablation, {}: the planner without one signal", regime.label());
            print_header();
            for (label, variant) in knobs::variants(&tuning).into_iter().filter(|(l, _)| wanted(l)) {
                // One half: the held-out one when it is shown (what a
                // signal must earn its place on), else the tuning half.
                let mut half = Tally::default();
                for c in all
                    .iter()
                    .filter(|c| c.regime == regime && c.held_out == Some(show_held_out))
                {
                    half.add(&tally_of(&c.cases, &variant));
                }
                let which = if show_held_out { "held out" } else { "tuning" };
                print_row(&format!("{label} ({which})"), &half);
            }
        }
    }
}

/// The cases of `source`'s `groups` in each of `regimes`.
fn build(
    source: &sources::Source,
    repo: &ultraplan::git::Repo,
    groups: &[sources::Group],
    regimes: &[Regime],
) -> Vec<Cases> {
    let started = std::time::Instant::now();
    let prepared: Vec<Option<sources::Prepared>> = groups.iter().map(|g| sources::prepare(repo, g)).collect();
    let took = |at: usize, since: std::time::Instant| {
        BUILD_NANOS[at].fetch_add(since.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
    };
    took(0, started);
    let mut out = Vec::new();
    for &regime in regimes {
        let started = std::time::Instant::now();
        let mut seed = Lcg(0xca5e ^ source.name.len() as u64);
        let cases: Vec<Case> = groups
            .iter()
            .zip(&prepared)
            .filter_map(|(g, p)| {
                let seed = seed.next();
                regimes::case(repo, g, p.as_ref()?, regime, seed)
            })
            .collect();
        took(regime as usize + 1, started);
        out.push(Cases {
            name: source.name.clone(),
            language: source.language.clone(),
            held_out: source.held_out,
            regime,
            cases,
        });
    }
    out
}

/// `HISTORIAN_EVAL_GREEDY`, `_LEAVE_OUT` and `_DUMP` (`pruning`).
fn prune(all: &[Cases], regimes: &[Regime], show_held_out: bool, tuning: &ultraplan::historian::plan::context::Tuning) {
    let half = |c: &&Cases| c.held_out == Some(show_held_out);
    let which = if show_held_out { "held out" } else { "tuning" };
    let of = |r: Regime| -> Vec<&Case> {
        all.iter()
            .filter(half)
            .filter(|c| c.regime == r)
            .flat_map(|c| &c.cases)
            .collect()
    };
    if std::env::var_os("HISTORIAN_EVAL_GREEDY").is_some() {
        let plain: Vec<(Regime, Vec<&Case>)> = regimes
            .iter()
            .filter(|&&r| matches!(r, Regime::Neutral | Regime::Messy))
            .map(|&r| (r, of(r)))
            .collect();
        println!("\n== greedy elimination ({which} half)");
        let removed = pruning::greedy(&plain, tuning);
        println!("removed: {removed:?}");
    }
    if let Ok(wanted) = std::env::var("HISTORIAN_EVAL_LEAVE_OUT") {
        let wanted = |name: &str| wanted == "1" || wanted.split(',').any(|w| w.trim() == name);
        println!("\n== each word list or constant left out ({which} half): mean per regime");
        let base: Vec<(Regime, f64)> = regimes.iter().map(|&r| (r, pruning::mean(&of(r), tuning))).collect();
        let line = |name: &str, means: &[(Regime, f64)]| {
            let cells: Vec<String> = means
                .iter()
                .map(|(r, m)| {
                    let b = base.iter().find(|(x, _)| x == r).map_or(0.0, |(_, b)| *b);
                    format!("{} {m:.4} ({:+.4})", r.label(), m - b)
                })
                .collect();
            println!("{name:<24} {}", cells.join(", "));
        };
        line("as tuned", &base);
        for (name, messages) in pruning::LEFT_OUT.iter().filter(|(n, _)| wanted(n)) {
            let on: Vec<Regime> = regimes
                .iter()
                .copied()
                .filter(|&r| !messages || r == Regime::Joined)
                .collect();
            if on.is_empty() {
                continue;
            }
            let _guard = pruning::LeftOut::new(name);
            let means: Vec<(Regime, f64)> = on.iter().map(|&r| (r, pruning::mean(&of(r), tuning))).collect();
            line(name, &means);
        }
    }
    if let Ok(path) = std::env::var("HISTORIAN_EVAL_DUMP") {
        let rows: Vec<(String, String, Regime, &[Case])> = all
            .iter()
            .filter(|c| c.held_out.is_some())
            .map(|c| {
                let half = if c.held_out == Some(true) { "held-out" } else { "tuning" };
                (c.name.clone(), half.to_owned(), c.regime, &c.cases[..])
            })
            .collect();
        pruning::dump(&path, &rows, tuning);
        println!("\ndump: {path}");
    }
}

fn tally_of(cases: &[Case], tuning: &ultraplan::historian::plan::context::Tuning) -> Tally {
    Tally {
        cases: cases.iter().map(|c| score_case(c, tuning)).collect(),
    }
}
