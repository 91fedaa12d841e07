//! How the planned commits' subjects read (issue 15, item 5): fallbacks,
//! the authors' own words, the original commit's words.

use std::collections::{BTreeMap, BTreeSet};

use ultraplan::historian::message;
use ultraplan::historian::plan::auto;
use ultraplan::historian::plan::context::{Context, Tuning};

use super::best_of;
use super::sources::Segment;

/// Of the planned commits (issue 15, item 5): how many subjects only list
/// files or number a part (`message::is_fallback`), how many of those are
/// an author's own words (found in a squashed message, not numbered), how
/// many say what
/// the original commit most of its lines come from said (its summary's
/// words hold every word of the planned summary), and all.
pub fn subject_measures(sources: &[&(String, Vec<Segment>)], tuning: &Tuning) -> [usize; 4] {
    let words = |text: &str| -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let mut counts = [0; 4];
    for (_, segs) in sources {
        for seg in segs {
            let ctx = Context::new(&seg.changes, &seg.seen, &seg.squashed, seg.coupling.clone());
            for commit in auto::plan(&ctx, tuning).commits {
                let subject = commit.subject();
                let summary = message::parse_subject(subject).summary;
                let summary = summary
                    .split(" (")
                    .next()
                    .unwrap_or("")
                    .trim_end_matches('…')
                    .to_owned();
                let fallback = message::is_fallback(subject);
                // A numbered part is a fallback whatever words it repeats.
                let authored = !subject.contains(" (part ")
                    && !summary.is_empty()
                    && seg
                        .squashed
                        .iter()
                        .any(|c| c.message.to_lowercase().contains(&summary.to_lowercase()));
                let mut from: BTreeMap<usize, u32> = BTreeMap::new();
                for &i in &commit.items {
                    for &(k, w) in &seg.truth.items[i] {
                        *from.entry(k).or_default() += w;
                    }
                }
                let original = &seg.originals[best_of(&from)];
                let truth = words(&message::parse_subject(message::meaningful_subject(&original.message)).summary);
                let planned = words(&summary);
                let right = !planned.is_empty() && planned.is_subset(&truth);
                counts[0] += usize::from(fallback);
                counts[1] += usize::from(fallback && authored);
                counts[2] += usize::from(right);
                counts[3] += 1;
                if std::env::var_os("HISTORIAN_EVAL_SUBJECTS").is_some() {
                    let mark = if fallback {
                        "F"
                    } else if right {
                        "="
                    } else {
                        " "
                    };
                    eprintln!("{mark} {subject}    <- {}", original.subject());
                }
            }
        }
    }
    counts
}
