//! Whether the best entry names the failure, and the sentence that says so.
//!
//! Takes the log's report, the ranked entries and the first failing line; yields the
//! [`Diagnosis`]: diagnosed when the best entry's best evidence covers enough of one of its
//! signatures (more when the log had no error line and only plain lines matched).

use super::{DiagnosedEntry, Diagnosis, LogRef};
use crate::log::{LineKind, LogReport};

/// The signature coverage below which a match is too weak to call a diagnosis.
const MIN_COVERAGE: f32 = 0.5;
/// The same, when the log has no error line and only its plain lines matched.
const MIN_CONTEXT_COVERAGE: f32 = 0.8;

pub(super) fn decide(
    report: &LogReport,
    mut entries: Vec<DiagnosedEntry>,
    first_failure: Option<LogRef>,
    collateral: Vec<LogRef>,
) -> Diagnosis {
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
    if only_context && !diagnosed {
        entries.clear();
    }
    let message = message(
        report,
        &entries,
        first_failure.as_ref(),
        diagnosed,
        only_context,
        error_lines,
    );
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

/// One sentence for people.
fn message(
    report: &LogReport,
    entries: &[DiagnosedEntry],
    first_failure: Option<&LogRef>,
    diagnosed: bool,
    only_context: bool,
    error_lines: usize,
) -> String {
    if only_context && !diagnosed {
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
        match first_failure {
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
    }
}
