//! Combining the hits of every error line into ranked entries with their evidence.
//!
//! Takes the searcher and the log's error lines; queries with each line and adds the hits up
//! per entry: the strongest line counts fully, the others add a share, and each line weighs by
//! what it is (the final exception line of a traceback most, a warning least, a collateral error
//! little). The lines before an exception (where it was raised) add to entries the line itself
//! matched.

use std::collections::BTreeMap;

use super::{DiagnosedEntry, Evidence, Role};
use crate::bundle::BundleError;
use crate::log::{ErrorLine, LineKind};
use crate::searcher::{Hit, Searcher};

/// Entries reported.
pub const MAX_ENTRIES: usize = 5;
/// Evidence lines reported per entry.
const MAX_EVIDENCE: usize = 5;
/// Hits taken per error line.
const HITS_PER_LINE: usize = 5;
/// The share of its other lines' scores an entry adds to its best line's.
const SUPPORT_SHARE: f32 = 0.3;
/// How much the lines before an exception (where it was raised) weigh against the line itself.
const CONTEXT_WEIGHT: f32 = 0.25;

/// What one entry has gathered so far.
struct Acc {
    best: f32,
    rest: f32,
    context: f32,
    evidence: Vec<Evidence>,
    hit: Hit,
}

/// The entries the lines point at, best first, at most [`MAX_ENTRIES`]; `cause` is the place of
/// the first failing line.
pub(super) fn ranked_entries(
    searcher: &Searcher,
    lines: &[ErrorLine],
    cause: Option<usize>,
) -> Result<Vec<DiagnosedEntry>, BundleError> {
    let mut per_entry: BTreeMap<String, Acc> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let role = role(line, Some(i) == cause);
        let w = weight(line, role);
        for hit in searcher.search(&line.text, HITS_PER_LINE)? {
            add_hit(&mut per_entry, line, role, w, hit);
        }
        // Where it was raised tells apart entries that share the exception's wording; it only
        // adds to entries the line itself matched.
        if !line.context.is_empty() && !line.collateral {
            for hit in searcher.search(&line.context, HITS_PER_LINE)? {
                if let Some(acc) = per_entry.get_mut(&hit.slug) {
                    acc.context += CONTEXT_WEIGHT * w * hit.score;
                }
            }
        }
    }
    let mut entries: Vec<DiagnosedEntry> = per_entry.into_values().map(entry).collect();
    entries.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.slug.cmp(&b.slug))
    });
    entries.truncate(MAX_ENTRIES);
    Ok(entries)
}

fn add_hit(per_entry: &mut BTreeMap<String, Acc>, line: &ErrorLine, role: Role, w: f32, hit: Hit) {
    let score = w * hit.score;
    let acc = per_entry.entry(hit.slug.clone()).or_insert_with(|| Acc {
        best: 0.0,
        rest: 0.0,
        context: 0.0,
        evidence: Vec::new(),
        hit: hit.clone(),
    });
    if score > acc.best {
        acc.rest += acc.best;
        acc.best = score;
    } else {
        acc.rest += score;
    }
    acc.evidence.push(Evidence {
        line: line.line,
        text: line.text.clone(),
        ranks: line.ranks.clone(),
        count: line.count,
        signature: hit.matched_signature,
        coverage: hit.coverage,
        role,
        score,
    });
}

fn entry(mut acc: Acc) -> DiagnosedEntry {
    acc.evidence
        .sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)));
    acc.evidence.truncate(MAX_EVIDENCE);
    let Hit {
        slug,
        title,
        url,
        category,
        severity,
        ..
    } = acc.hit;
    DiagnosedEntry {
        slug,
        title,
        url,
        category,
        severity,
        score: acc.best + SUPPORT_SHARE * acc.rest + acc.context,
        evidence: acc.evidence,
    }
}

/// What a line is to the diagnosis.
fn role(line: &ErrorLine, is_cause: bool) -> Role {
    if is_cause {
        Role::Cause
    } else if line.collateral {
        Role::Collateral
    } else {
        match line.kind {
            LineKind::Warning => Role::Warning,
            LineKind::Context => Role::Context,
            LineKind::Exception | LineKind::Error => Role::Error,
        }
    }
}

fn weight(line: &ErrorLine, role: Role) -> f32 {
    let kind = match line.kind {
        LineKind::Exception => 1.0,
        LineKind::Error => 0.7,
        LineKind::Warning => 0.35,
        LineKind::Context => 0.3,
    };
    let role = if line.collateral {
        0.3
    } else if role == Role::Cause {
        1.3
    } else {
        1.0
    };
    kind * role
}
