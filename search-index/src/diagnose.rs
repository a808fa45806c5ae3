//! Naming the failure in a whole log, with the evidence.
//!
//! Takes a [`Searcher`] and a log; reads it with [`crate::log::read_log`], queries with each
//! distinct error line, and combines the hits per entry: the strongest line counts fully, the
//! others add a share, and each line weighs by what it is (the final exception line of a
//! traceback most, a warning least, a collateral error little). The first non-collateral error
//! is reported as the likely cause, with its rank; the collateral ones are listed apart. A log
//! without a recognisable failure says so.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::log::{read_log, ErrorLine, LineKind};
use crate::searcher::Searcher;

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
/// The signature coverage below which a match is too weak to call a diagnosis.
const MIN_COVERAGE: f32 = 0.5;
/// The same, when the log has no error line and only its plain lines matched.
const MIN_CONTEXT_COVERAGE: f32 = 0.8;

/// A log line that matched an entry.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Evidence {
    pub line: usize,
    pub text: String,
    pub ranks: Vec<u32>,
    pub count: usize,
    /// The entry's signature this line matched best.
    pub signature: Option<String>,
    pub coverage: f32,
    /// `cause` (the first failing line), `error`, `warning` or `collateral`.
    pub role: &'static str,
    pub score: f32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiagnosedEntry {
    pub slug: String,
    pub title: String,
    pub url: String,
    pub category: String,
    pub severity: String,
    pub score: f32,
    pub evidence: Vec<Evidence>,
}

/// A line of the log with its rank.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogRef {
    pub line: usize,
    pub text: String,
    pub ranks: Vec<u32>,
    pub count: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diagnosis {
    /// True when an entry matches a signature well enough to name the failure.
    pub diagnosed: bool,
    /// One sentence for people.
    pub message: String,
    pub lines_read: usize,
    pub error_lines: usize,
    pub entries: Vec<DiagnosedEntry>,
    /// The earliest error that is not a consequence of another: the likely cause.
    pub first_failure: Option<LogRef>,
    /// Errors that follow from the first one (aborts, launcher summaries, other ranks).
    pub collateral: Vec<LogRef>,
}

fn weight(line: &ErrorLine, is_cause: bool) -> f32 {
    let kind = match line.kind {
        LineKind::Exception => 1.0,
        LineKind::Error => 0.7,
        LineKind::Warning => 0.35,
        LineKind::Context => 0.3,
    };
    let role = if line.collateral {
        0.3
    } else if is_cause {
        1.3
    } else {
        1.0
    };
    kind * role
}

fn log_ref(line: &ErrorLine) -> LogRef {
    LogRef {
        line: line.line,
        text: line.text.clone(),
        ranks: line.ranks.clone(),
        count: line.count,
    }
}

/// Diagnoses a whole log.
pub fn diagnose(searcher: &Searcher, log: &str) -> Diagnosis {
    let report = read_log(log);
    let cause_index = report
        .error_lines
        .iter()
        .position(|l| !l.collateral && matches!(l.kind, LineKind::Exception | LineKind::Error))
        .or_else(|| {
            report
                .error_lines
                .iter()
                .position(|l| !l.collateral && l.kind == LineKind::Warning)
        });
    let first_failure = cause_index.map(|i| log_ref(&report.error_lines[i]));
    let collateral: Vec<LogRef> = report
        .error_lines
        .iter()
        .filter(|l| l.collateral)
        .map(log_ref)
        .collect();

    struct Acc {
        best: f32,
        rest: f32,
        context: f32,
        evidence: Vec<Evidence>,
        meta: (String, String, String, String, String),
    }
    let mut per_entry: BTreeMap<String, Acc> = BTreeMap::new();
    for (i, line) in report.error_lines.iter().enumerate() {
        let is_cause = Some(i) == cause_index;
        let w = weight(line, is_cause);
        let role = if is_cause {
            "cause"
        } else if line.collateral {
            "collateral"
        } else if line.kind == LineKind::Warning {
            "warning"
        } else if line.kind == LineKind::Context {
            "context"
        } else {
            "error"
        };
        for hit in searcher.search(&line.text, HITS_PER_LINE) {
            let score = w * hit.score;
            let acc = per_entry.entry(hit.slug.clone()).or_insert_with(|| Acc {
                best: 0.0,
                rest: 0.0,
                context: 0.0,
                evidence: Vec::new(),
                meta: (
                    hit.slug.clone(),
                    hit.title.clone(),
                    hit.url.clone(),
                    hit.category.clone(),
                    hit.severity.clone(),
                ),
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
        // Where it was raised tells apart entries that share the exception's wording; it only
        // adds to entries the line itself matched.
        if !line.context.is_empty() && !line.collateral {
            for hit in searcher.search(&line.context, HITS_PER_LINE) {
                if let Some(acc) = per_entry.get_mut(&hit.slug) {
                    acc.context += CONTEXT_WEIGHT * w * hit.score;
                }
            }
        }
    }
    let mut entries: Vec<DiagnosedEntry> = per_entry
        .into_values()
        .map(|mut acc| {
            acc.evidence
                .sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)));
            acc.evidence.truncate(MAX_EVIDENCE);
            let (slug, title, url, category, severity) = acc.meta;
            DiagnosedEntry {
                slug,
                title,
                url,
                category,
                severity,
                score: acc.best + SUPPORT_SHARE * acc.rest + acc.context,
                evidence: acc.evidence,
            }
        })
        .collect();
    entries.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.slug.cmp(&b.slug))
    });
    entries.truncate(MAX_ENTRIES);

    let best_coverage = entries.first().map_or(0.0, |e| {
        e.evidence.iter().map(|v| v.coverage).fold(0.0, f32::max)
    });
    let only_context = report
        .error_lines
        .iter()
        .all(|l| l.kind == LineKind::Context);
    let threshold = if only_context {
        MIN_CONTEXT_COVERAGE
    } else {
        MIN_COVERAGE
    };
    let diagnosed = !entries.is_empty() && best_coverage >= threshold;
    let error_lines = if only_context {
        0
    } else {
        report.error_lines.len()
    };
    let message = if only_context && !diagnosed {
        entries.clear();
        format!(
            "No error lines found in {} lines of log: no recognisable failure.",
            report.lines_read
        )
    } else if only_context {
        format!("No error lines found; the text reads like {} (matched by its wording, not an error line).", entries[0].title)
    } else if entries.is_empty() {
        format!("Found {error_lines} error line(s), but no entry matches them: no recognisable failure.")
    } else if !diagnosed {
        format!("Found {error_lines} error line(s); no entry matches a known error signature closely. The closest entries are listed.")
    } else {
        let top = &entries[0];
        match &first_failure {
            Some(f) => {
                let rank = f
                    .ranks
                    .first()
                    .map(|r| format!(", rank {r}"))
                    .unwrap_or_default();
                format!(
                    "Likely {} (first failing line {}{rank}).",
                    top.title, f.line
                )
            }
            None => format!("Likely {}.", top.title),
        }
    };
    Diagnosis {
        diagnosed,
        message,
        lines_read: report.lines_read,
        error_lines,
        entries,
        first_failure,
        collateral,
    }
}
