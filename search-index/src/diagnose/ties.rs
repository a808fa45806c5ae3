//! The order of entries the log points at equally: one of each cause before a second of one.
//!
//! Takes the ranked entries (best first) and what each entry declares it is decided by (its
//! `cues.findings`); reorders only entries of equal score. A message that several failures print
//! (an out-of-memory error: a batch too large, a long sequence, a fragmented cache) reaches
//! their entries alike, and the slugs' order would settle which of them a reader sees first.
//! Entries that declare a finding in common are told apart by the same facts: two faces of one
//! cause (attention's quadratic scores and a transient peak are both a tensor growing with the
//! sequence). Among equals, an entry that shares no declared finding with those above it comes
//! before one that does, so the first few candidates name different causes.

use std::collections::BTreeSet;

use super::DiagnosedEntry;

/// Scores within this share of each other are equal.
const TIE: f32 = 1e-4;

/// Reorders each run of equal scores in `entries` (sorted best first) so that an entry whose
/// declared findings (`declared`) share none with the entries above it goes first.
pub(super) fn spread_causes(
    entries: &mut [DiagnosedEntry],
    declared: &dyn Fn(&str) -> Vec<String>,
) {
    let mut findings: Vec<Vec<String>> = entries.iter().map(|e| declared(&e.slug)).collect();
    let mut above: BTreeSet<String> = BTreeSet::new();
    for k in 0..entries.len() {
        let end = k
            + (entries[k..].iter())
                .take_while(|e| tied(e.score, entries[k].score))
                .count();
        let apart = |j: usize| findings[j].iter().all(|f| !above.contains(f));
        let pick = (k..end).find(|&j| apart(j)).unwrap_or(k);
        entries[k..=pick].rotate_right(1);
        findings[k..=pick].rotate_right(1);
        above.extend(findings[k].iter().cloned());
    }
}

fn tied(a: f32, b: f32) -> bool {
    (a - b).abs() <= TIE * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(slug: &str, score: f32) -> DiagnosedEntry {
        DiagnosedEntry {
            slug: slug.into(),
            title: slug.into(),
            url: String::new(),
            category: String::new(),
            severity: String::new(),
            score,
            evidence: Vec::new(),
            cues: Vec::new(),
            reasons: Vec::new(),
            ruled_out: false,
            doubted: false,
        }
    }

    fn declared(slug: &str) -> Vec<String> {
        let f: &[&str] = match slug {
            "batch" => &["after-many-steps"],
            "attention" => &["attention", "long-input"],
            "peak" => &["logits", "long-input"],
            "pieces" => &["fragmentation"],
            _ => &[],
        };
        f.iter().map(|s| s.to_string()).collect()
    }

    fn order(entries: &[DiagnosedEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.slug.as_str()).collect()
    }

    #[test]
    fn a_second_face_of_one_cause_waits_behind_another_cause() {
        let mut e = vec![
            entry("batch", 10.0),
            entry("attention", 9.0),
            entry("peak", 9.0),
            entry("pieces", 9.0),
        ];
        spread_causes(&mut e, &declared);
        assert_eq!(order(&e), ["batch", "attention", "pieces", "peak"]);
    }

    #[test]
    fn scores_that_differ_keep_their_order() {
        let mut e = vec![
            entry("attention", 9.5),
            entry("peak", 9.0),
            entry("pieces", 8.0),
        ];
        spread_causes(&mut e, &declared);
        assert_eq!(order(&e), ["attention", "peak", "pieces"]);
    }

    #[test]
    fn entries_that_declare_nothing_keep_their_order() {
        let mut e = vec![entry("a", 5.0), entry("b", 5.0), entry("c", 5.0)];
        spread_causes(&mut e, &declared);
        assert_eq!(order(&e), ["a", "b", "c"]);
    }
}
