//! Ranked full-text search over outcomes and their plans: Okapi BM25
//! (k1 = 1.2, b = 0.75, the Lucene/Robertson idf `ln(1 + (N − n + 0.5) / (n + 0.5))`)
//! over the task, the strategy, the success and failure factors and the key
//! decisions. A small implementation rather than a search-engine crate: the
//! corpus is at most tens of thousands of short documents, ranked in a few
//! milliseconds; what costs is reading them, which the [`super::search_index`]
//! (the documents kept beside the store, keyed by the ref's commit) spares.

use std::collections::HashMap;

use super::store::Stored;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lowercased runs of letters and digits.
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}

/// The searchable text of an outcome and its plan.
pub fn document(stored: &Stored) -> String {
    let mut text = stored.outcome.task_description.clone();
    if let Some(error) = &stored.outcome.error_message {
        text.push('\n');
        text.push_str(error);
    }
    if let Some(plan) = &stored.plan {
        text.push('\n');
        text.push_str(&plan.strategy_description);
        for line in plan
            .success_factors
            .iter()
            .chain(&plan.failure_factors)
            .chain(&plan.key_decisions)
        {
            text.push('\n');
            text.push_str(line);
        }
    }
    text
}

/// The BM25 score of every document that matches at least one query term,
/// best first (ties in document order), as (index, score).
pub fn rank(documents: &[String], query: &str) -> Vec<(usize, f64)> {
    let mut terms: Vec<String> = tokens(query).collect();
    terms.sort();
    terms.dedup();
    if terms.is_empty() || documents.is_empty() {
        return Vec::new();
    }
    let wanted: HashMap<&str, usize> = terms.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
    // Per document: its length and the frequency of each query term.
    let mut lengths = Vec::with_capacity(documents.len());
    let mut freqs: Vec<Vec<u32>> = Vec::with_capacity(documents.len());
    let mut containing = vec![0usize; terms.len()];
    for doc in documents {
        let mut f = vec![0u32; terms.len()];
        let mut len = 0usize;
        for token in tokens(doc) {
            len += 1;
            if let Some(&i) = wanted.get(token.as_str()) {
                f[i] += 1;
            }
        }
        for (i, &n) in f.iter().enumerate() {
            if n > 0 {
                containing[i] += 1;
            }
        }
        lengths.push(len as f64);
        freqs.push(f);
    }
    let n = documents.len() as f64;
    let average = (lengths.iter().sum::<f64>() / n).max(1.0);
    let idf: Vec<f64> = containing
        .iter()
        .map(|&c| (1.0 + (n - c as f64 + 0.5) / (c as f64 + 0.5)).ln())
        .collect();
    let mut scored: Vec<(usize, f64)> = freqs
        .iter()
        .enumerate()
        .filter_map(|(d, f)| {
            let norm = K1 * (1.0 - B + B * lengths[d] / average);
            let score: f64 = f
                .iter()
                .enumerate()
                .filter(|(_, &tf)| tf > 0)
                .map(|(i, &tf)| idf[i] * (f64::from(tf) * (K1 + 1.0)) / (f64::from(tf) + norm))
                .sum();
            (score > 0.0).then_some((d, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn tokens_are_lowercase_words() {
        let t: Vec<String> = tokens("Build JWT-auth → /api/login, v2!").collect();
        assert_eq!(t, vec!["build", "jwt", "auth", "api", "login", "v2"]);
    }

    #[test]
    fn only_matching_documents_rank() {
        let d = docs(&["build the api", "write docs", "deploy the api"]);
        let r = rank(&d, "API");
        let ids: Vec<usize> = r.iter().map(|x| x.0).collect();
        assert_eq!(ids, vec![0, 2]);
        assert!(rank(&d, "nothing").is_empty());
        assert!(rank(&d, "  ").is_empty());
        assert!(rank(&[], "api").is_empty());
    }

    #[test]
    fn rare_terms_weigh_more_than_common_ones() {
        let d = docs(&["auth test", "auth deploy", "auth build", "jwt build"]);
        // "jwt" is in one document, "auth" in three: the jwt document wins.
        let r = rank(&d, "auth jwt");
        assert_eq!(r[0].0, 3);
    }

    #[test]
    fn term_frequency_saturates_and_length_normalises() {
        let d = docs(&[
            "api",
            "api api api api api api api api",
            "api and a lot of other words here",
        ]);
        let r = rank(&d, "api");
        let score = |i: usize| r.iter().find(|x| x.0 == i).unwrap().1;
        assert!(score(1) > score(0), "more occurrences score higher");
        assert!(score(1) < score(0) * (K1 + 1.0), "but saturate below (k1 + 1)×");
        assert!(score(0) > score(2), "a shorter document with the term scores higher");
    }

    #[test]
    fn the_score_matches_the_formula() {
        let d = docs(&["a b", "c"]);
        let r = rank(&d, "a");
        // N = 2, n = 1: idf = ln(1 + 1.5 / 1.5) = ln 2; |d| = 2, avgdl = 1.5.
        let norm = K1 * (1.0 - B + B * 2.0 / 1.5);
        let expected = 2f64.ln() * (K1 + 1.0) / (1.0 + norm);
        assert_eq!(r.len(), 1);
        assert!((r[0].1 - expected).abs() < 1e-12, "{} vs {expected}", r[0].1);
    }

    #[test]
    fn repeated_query_terms_count_once() {
        let d = docs(&["api build", "api"]);
        assert_eq!(rank(&d, "api api"), rank(&d, "api"));
    }
}
