//! Human-readable output of `errata search` and `errata diagnose`.
//!
//! Takes the engine's hits and diagnoses; yields plain text for a terminal (and the JSON
//! wrapper for `search --json`). No colour codes, so it pipes cleanly.

use std::fmt::Write;

use errata_search::diagnose::{Diagnosis, LogRef, Outcome};
use errata_search::log::cues::CueKind;
use errata_search::Hit;

pub fn hits(hits: &[Hit]) -> String {
    let mut out = String::new();
    if hits.is_empty() {
        out.push_str("no entry matches\n");
        return out;
    }
    for (i, hit) in hits.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {}  [{}]  score {:.2}",
            i + 1,
            hit.title,
            hit.slug,
            hit.score
        );
        if let Some(sig) = &hit.matched_signature {
            let _ = writeln!(out, "   matched: {sig}");
        }
        let _ = writeln!(out, "   {}", hit.url);
    }
    out
}

fn ranks(r: &LogRef) -> String {
    match r.ranks.as_slice() {
        [] => String::new(),
        [one] => format!(" (rank {one})"),
        many => format!(
            " (ranks {})",
            many.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

pub fn diagnosis(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", d.message);
    let _ = writeln!(
        out,
        "read {} lines, {} distinct error lines",
        d.lines_read, d.error_lines
    );
    if let Some(first) = &d.first_failure {
        let _ = writeln!(
            out,
            "\nfirst failing line {}{}: {}",
            first.line,
            ranks(first),
            shorten(&first.text, 160)
        );
    }
    for (i, e) in d.entries.iter().enumerate() {
        entry(&mut out, d, i, e);
    }
    if !d.collateral.is_empty() {
        let _ = writeln!(out, "\ncollateral (follows from the first failure):");
        for c in d.collateral.iter().take(10) {
            let _ = writeln!(
                out,
                "   line {}{}: {}",
                c.line,
                ranks(c),
                shorten(&c.text, 140)
            );
        }
        if d.collateral.len() > 10 {
            let _ = writeln!(out, "   … and {} more", d.collateral.len() - 10);
        }
    }
    out
}

/// One ranked entry with its evidence, cues and the reasoning from numbers; no raw scores.
fn entry(out: &mut String, d: &Diagnosis, i: usize, e: &errata_search::diagnose::DiagnosedEntry) {
    let label = match (i, d.outcome) {
        (0, Outcome::Diagnosis) => "diagnosis",
        (_, Outcome::Possible) => "possibly",
        _ => "candidate",
    };
    let _ = writeln!(out, "\n{}. {label}: {}  [{}]", i + 1, e.title, e.slug);
    let _ = writeln!(out, "   {}", e.url);
    // The browser labels a reason against the entry the same way.
    let stance = if e.ruled_out {
        "ruled out"
    } else if e.doubted {
        "unlikely"
    } else {
        "reasoning"
    };
    for why in &e.reasons {
        let _ = writeln!(out, "   {stance}: {why}");
    }
    for ev in e.evidence.iter().take(if i == 0 { 5 } else { 2 }) {
        let repeat = if ev.count > 1 {
            format!(" ×{}", ev.count)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "   line {} [{}]{repeat}: {}",
            ev.line,
            ev.role,
            shorten(&ev.text, 140)
        );
        if let Some(sig) = &ev.signature {
            let how = if ev.partial {
                "shares words with signature"
            } else if ev.whole {
                "matches signature"
            } else {
                "matches part of signature"
            };
            let _ = writeln!(out, "      {how}: {}", shorten(sig, 120));
        }
    }
    for cue in e.cues.iter().take(3) {
        let (line, place, text) = (cue.line, &cue.cue, shorten(&cue.text, 120));
        let _ = match cue.kind {
            CueKind::Frame => writeln!(out, "   line {line}: `{place}` in a traceback frame: {text}"),
            CueKind::Line => writeln!(out, "   line {line}: `{place}` in the log: {text}"),
            CueKind::RaisedIn => writeln!(
                out,
                "   line {line} was raised in `{place}`, which raises this entry's signature: {text}"
            ),
        };
    }
}
