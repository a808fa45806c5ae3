//! BM25 over each signature on its own: an entry scores what its best signature scores.
//!
//! Takes every entry's signatures as terms ([`crate::searcher`] holds them); answers a query's
//! terms, each with its inverse document frequency (the searcher takes it from the index's
//! signatures field, as tantivy's BM25 does), with each entry's score on its best-matching
//! signature.
//!
//! Scored as one text, as tantivy scores a field, an entry's signatures sum a word over all of
//! them, and each is charged for the length of them all: an entry lost score on its own message
//! for every wording it gained (the OOM entry's `Dst tensor is not initialized.` came to rank
//! behind `dist is not initialized`), and one with many wordings outranked a smaller entry on a
//! word they share. Here a signature competes with signatures. It has no length normalisation
//! either: how much of a signature a line holds is the coverage the searcher weighs the score by,
//! and charging length again would pay a short signature twice for a line that shares two of its
//! words (`index out of range: Tried to access index` for any OOM's `Tried to allocate`).

use rustc_hash::FxHashMap;

/// BM25's term-frequency saturation, as tantivy's.
const K1: f32 = 1.2;

/// The signatures' terms, looked up by term.
pub(crate) struct SignatureScorer {
    /// For each term: each signature holding it (numbered across entries) with its occurrences
    /// there.
    postings: FxHashMap<String, Vec<(u32, u32)>>,
    /// For each signature, the entry it belongs to.
    owners: Vec<u32>,
    /// How many entries there are.
    entries: usize,
}

impl SignatureScorer {
    /// Indexes every entry's signatures, each given as its terms.
    pub(crate) fn new(signature_terms: &[Vec<Vec<String>>]) -> SignatureScorer {
        let mut postings: FxHashMap<String, Vec<(u32, u32)>> = FxHashMap::default();
        let mut owners = Vec::new();
        for (doc, signatures) in signature_terms.iter().enumerate() {
            for terms in signatures {
                let id = owners.len() as u32;
                owners.push(doc as u32);
                for (t, n) in counts(terms) {
                    match postings.get_mut(t) {
                        Some(list) => list.push((id, n)),
                        None => {
                            postings.insert(t.to_owned(), vec![(id, n)]);
                        }
                    }
                }
            }
        }
        SignatureScorer {
            postings,
            owners,
            entries: signature_terms.len(),
        }
    }

    /// Each entry's best signature's BM25 score for `query` terms (0 for an entry holding none
    /// of them), and the entries that hold any; `idf` gives a term's inverse document frequency.
    pub(crate) fn best(&self, query: &[String], idf: impl Fn(&str) -> f32) -> Best {
        let mut scores = vec![0f32; self.owners.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in query {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let idf = idf(term);
            for &(sig, tf) in list {
                let slot = &mut scores[sig as usize];
                if *slot == 0.0 {
                    touched.push(sig);
                }
                let tf = tf as f32;
                *slot += idf * tf * (K1 + 1.0) / (tf + K1);
            }
        }
        let mut best = Best {
            scores: vec![0.0; self.entries],
            entries: Vec::new(),
        };
        for sig in touched {
            let entry = self.owners[sig as usize] as usize;
            if best.scores[entry] == 0.0 {
                best.entries.push(entry);
            }
            best.scores[entry] = best.scores[entry].max(scores[sig as usize]);
        }
        best
    }
}

/// Each entry's score on its best signature.
pub(crate) struct Best {
    /// By entry; 0 for an entry no signature of which holds a query term.
    pub scores: Vec<f32>,
    /// The entries that hold a query term in a signature.
    pub entries: Vec<usize>,
}

impl Best {
    /// The `count` entries scoring best, best first (ties by entry).
    pub(crate) fn top(&self, count: usize) -> Vec<usize> {
        let mut entries = self.entries.clone();
        let order = |a: &usize, b: &usize| {
            let (x, y) = (self.scores[*a], self.scores[*b]);
            y.total_cmp(&x).then(a.cmp(b))
        };
        if entries.len() > count && count > 0 {
            entries.select_nth_unstable_by(count - 1, order);
            entries.truncate(count);
        }
        entries.sort_by(order);
        entries
    }
}

/// Each distinct term of a signature, with how many times it occurs there, in order.
fn counts(terms: &[String]) -> Vec<(&str, u32)> {
    let mut out: Vec<(&str, u32)> = Vec::new();
    for t in terms {
        match out.iter_mut().find(|(u, _)| u == t) {
            Some((_, n)) => *n += 1,
            None => out.push((t, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::terms;

    fn scorer(entries: &[&[&str]]) -> SignatureScorer {
        let terms: Vec<Vec<Vec<String>>> = entries
            .iter()
            .map(|sigs| sigs.iter().map(|s| terms(s)).collect())
            .collect();
        SignatureScorer::new(&terms)
    }

    /// Summed over its signatures, the first entry would score `alpha` three times.
    #[test]
    fn an_entry_is_scored_on_its_best_signature_not_the_sum() {
        let s = scorer(&[
            &["alpha beta", "alpha gamma", "alpha delta"],
            &["alpha beta"],
            &["omega"],
        ]);
        let best = s.best(&terms("alpha beta"), |_| 1.0);
        assert!(
            (best.scores[0] - best.scores[1]).abs() < 1e-6,
            "{:?}",
            best.scores
        );
        assert_eq!(best.scores[2], 0.0);
        assert_eq!(best.top(5), [0, 1]);
    }

    /// Scored as one text, a signature is charged for the length of its entry's others; here
    /// the score on its own message is the same however many wordings the entry gains.
    #[test]
    fn wordings_an_entry_gains_cost_its_other_signatures_nothing() {
        let few = scorer(&[
            &["Dst tensor is not initialized."],
            &["dist is not initialized"],
        ]);
        let many = scorer(&[
            &[
                "Dst tensor is not initialized.",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate",
                "HIP out of memory. Tried to allocate",
                "RESOURCE_EXHAUSTED: Out of memory while trying to allocate",
            ],
            &["dist is not initialized"],
        ]);
        let q = terms("Dst tensor is not initialized.");
        let (a, b) = (few.best(&q, |_| 1.0).scores, many.best(&q, |_| 1.0).scores);
        assert!(a[0] > a[1], "{a:?}");
        assert_eq!(a, b);
    }

    /// A term a signature repeats counts more, up to BM25's saturation; a term it lacks, nothing.
    #[test]
    fn repeated_terms_saturate_and_missing_ones_count_nothing() {
        let s = scorer(&[&["nccl nccl nccl"], &["nccl"]]);
        let best = s.best(&terms("nccl timeout"), |_| 1.0).scores;
        assert!(best[0] > best[1] && best[0] < 3.0 * best[1], "{best:?}");
        assert!((best[1] - 1.0).abs() < 1e-6, "{best:?}");
        assert_eq!(s.best(&terms("nccl timeout"), |_| 1.0).top(1), [0]);
    }
}
