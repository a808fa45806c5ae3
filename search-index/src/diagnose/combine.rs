//! Combining the hits of every error line into ranked entries with their evidence.
//!
//! Takes the searcher and the log's error lines; queries with each line and adds the hits up
//! per entry: the strongest line counts fully, the others add a share, and each line weighs by
//! what it is (the final exception line of a traceback most, a warning least, a collateral error
//! little). The lines before an exception (where it was raised) add to entries a line matched
//! on more than common words. Cues an entry declares add to it where they turn up (a frame cue
//! weighs more than a line cue, and one in the frames the first failing line was raised in more
//! still), even in a log whose error line is missing, and so does the place an entry's
//! signature is raised in (`raised_in:`) when the first failing exception was raised there; and
//! the findings ([`super::findings`]: an out-of-memory message's numbers and frames, one in
//! words no entry declares, a kill by a signal) raise or lower the entries that declare them.
//! When the log
//! ends in a traceback cut before its exception line, an entry only warnings match ranks below
//! the entry the traceback's frames point at.

use std::collections::BTreeMap;

use super::findings::{findings, Stance};
use super::oom;
use super::wording::{holds_the_wording, Wording};
use super::{precedence, ties, verdict};
use super::{CueEvidence, DiagnosedEntry, Evidence, Role};
use crate::bundle::{BundleError, DocMeta};
use crate::log::cues::CueKind;
use crate::log::memory::MemoryDump;
use crate::log::{ErrorLine, LineKind, LogReport};
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
/// What a frame cue and a line cue add, as a share of the best line's score in the log.
const FRAME_CUE_SHARE: f32 = 0.5;
const LINE_CUE_SHARE: f32 = 0.35;
/// What a frame cue adds when it is among the frames the first failing line was raised in, to
/// an entry that line matched: where it was raised tells apart the entries whose wording the
/// line matches alike. An entry the line did not match (a cue alone) gains nothing by it.
const RAISED_IN_CUE_SHARE: f32 = 0.8;
/// The signature coverage a line after an exception line needs to count as the rest of its
/// message ([`add_continuation`]).
const CONTINUATION_COVERAGE: f32 = 0.75;
/// What a line that shares only common words with a part of a signature weighs.
const COMMON_ONLY_WEIGHT: f32 = 0.1;
/// The most that cues alone give an entry, as a share of the best line's score.
pub(super) const CUE_ONLY_MAX: f32 = 0.9;
/// The score a cue's share is taken of when no line matched any entry.
const CUE_BASE: f32 = 10.0;
/// Cues counted per entry.
const MAX_CUES: usize = 3;
/// What a finding multiplies an entry's score by when it speaks for the entry, and against.
const FINDING_FOR: f32 = 1.5;
const FINDING_AGAINST: f32 = 0.25;
/// What a line weighs for an entry whose failure prints the signature it matched of another
/// entry (that entry's `also:`), against what it weighs for that entry.
const SHARED_SHARE: f32 = 0.9;

/// What one entry has gathered so far.
struct Acc {
    best: f32,
    /// Whether a line matched the entry on more than common words.
    specific: bool,
    rest: f32,
    context: f32,
    cue_score: f32,
    /// What findings multiply the score by.
    factor: f32,
    evidence: Vec<Evidence>,
    cues: Vec<CueEvidence>,
    reasons: Vec<String>,
    ruled_out: bool,
    doubted: bool,
    meta: DocMeta,
}

impl Acc {
    fn new(meta: DocMeta) -> Acc {
        Acc {
            best: 0.0,
            specific: false,
            rest: 0.0,
            context: 0.0,
            cue_score: 0.0,
            factor: 1.0,
            evidence: Vec::new(),
            cues: Vec::new(),
            reasons: Vec::new(),
            ruled_out: false,
            doubted: false,
            meta,
        }
    }
}

fn meta_of(hit: &Hit) -> DocMeta {
    DocMeta {
        slug: hit.slug.clone(),
        title: hit.title.clone(),
        url: hit.url.clone(),
        category: hit.category.clone(),
        severity: hit.severity.clone(),
        signatures: Vec::new(),
        cues: Default::default(),
    }
}

/// The entries the log points at, best first, at most [`MAX_ENTRIES`]; `cause` is the place of
/// the first failing line.
pub(super) fn ranked_entries(
    searcher: &Searcher,
    report: &LogReport,
    cause: Option<usize>,
) -> Result<Vec<DiagnosedEntry>, BundleError> {
    let mut per_entry: BTreeMap<String, Acc> = BTreeMap::new();
    // The first OOM message in words no entry declares, and whether a line that is not a
    // consequence of another error names an entry's failure: then the log is explained, and the
    // OOM is a consequence or a second failure.
    let (mut oom_in_other_words, mut explained) = (None, false);
    for (i, line) in report.error_lines.iter().enumerate() {
        let role = role(line, Some(i) == cause);
        let w = weight(line, role);
        let hits = searcher.search(&line.text, HITS_PER_LINE)?;
        let unknown_oom = !hits.iter().any(|h| h.specific);
        let named = (hits.iter()).any(|h| holds_wording(h, &line.text, verdict::MIN_COVERAGE));
        explained |= named && !line.collateral;
        if oom::in_other_words(line, &hits, named) {
            oom_in_other_words.get_or_insert(line.line);
        }
        for mut hit in hits {
            hit.specific = hit.specific || (unknown_oom && oom::same_kind(&line.text, &hit));
            // Words such as `error` and `runtime` are in most entries' signatures: a line that
            // shares nothing else with an entry's signature, and not the whole of it, hardly
            // points at the entry, and sets no scale for the cues.
            let w = if hit.specific {
                w
            } else {
                w * COMMON_ONLY_WEIGHT
            };
            add_shared(searcher, &mut per_entry, line, role, w, &hit);
            add_hit(&mut per_entry, line, role, w, hit);
        }
        // An exception's, or a line's that announces what follows ([`ErrorLine::continuation`]).
        if !line.collateral {
            add_continuation(searcher, &mut per_entry, line, role, w)?;
        }
        // Where it was raised tells apart entries that share the exception's wording; it only
        // adds to entries a line matched on more than common words.
        if !line.context.is_empty() && !line.collateral {
            for hit in searcher.search(&line.context, HITS_PER_LINE)? {
                if let Some(acc) = per_entry.get_mut(&hit.slug).filter(|a| a.specific) {
                    let w = if hit.specific {
                        w
                    } else {
                        w * COMMON_ONLY_WEIGHT
                    };
                    acc.context += CONTEXT_WEIGHT * w * hit.score;
                }
            }
        }
    }
    apply_findings(
        searcher,
        &report.error_lines,
        report.memory.as_ref(),
        oom_in_other_words.filter(|_| !explained),
        &mut per_entry,
    );
    let cause_line = cause.map(|i| &report.error_lines[i]);
    add_cues(searcher, report, cause_line, &mut per_entry);
    let entries = per_entry.into_values().map(entry).collect();
    Ok(ordered(searcher, report, entries))
}

/// The entries in the order they are reported, best first, at most [`MAX_ENTRIES`]: by score,
/// after what the log's lines, cues and findings say of each ([`precedence`]); among equals, one
/// of each cause first ([`ties`]).
fn ordered(
    searcher: &Searcher,
    report: &LogReport,
    mut entries: Vec<DiagnosedEntry>,
) -> Vec<DiagnosedEntry> {
    if report.cut_traceback {
        precedence::warnings_below_a_cut_crash(&report.error_lines, &mut entries);
    }
    precedence::cues_ahead_of_plain_lines(&report.error_lines, &mut entries);
    precedence::cues_ahead_of_loose_words(&mut entries);
    precedence::put_findings_first(&mut entries);
    precedence::doubted_behind_the_best(&mut entries);
    precedence::launchers_behind_the_workers(&mut entries);
    precedence::common_words_behind_the_pointed(&mut entries);
    entries.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.slug.cmp(&b.slug))
    });
    // The causes an entry is told apart by: the findings it declares that tell causes apart.
    let declared = |slug: &str| {
        (searcher.docs().iter())
            .find(|d| d.slug == slug)
            .map(|d| d.cues.findings.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|f| super::tells_causes_apart(f))
            .collect()
    };
    ties::spread_causes(&mut entries, &declared);
    entries.truncate(MAX_ENTRIES);
    entries
}

/// Adds what the lines right after an exception line (or a line that announces them, ending in a
/// colon) match, when one holds a signature's wording as a line that names the failure would: the
/// rest of a message printed over several lines (PaddlePaddle 1.x's `EnforceNotMet: Enforce failed.
/// Expected allocating <= available, ...` then `Insufficient GPU memory to allocation.`). Code,
/// file lists and other noise after an exception share a few words with signatures at most, and add
/// nothing.
fn add_continuation(
    searcher: &Searcher,
    per_entry: &mut BTreeMap<String, Acc>,
    line: &ErrorLine,
    role: Role,
    w: f32,
) -> Result<(), BundleError> {
    for (number, text) in &line.continuation {
        let piece = ErrorLine {
            line: *number,
            text: text.clone(),
            ..line.clone()
        };
        for hit in searcher.search(text, HITS_PER_LINE)? {
            if holds_wording(&hit, text, CONTINUATION_COVERAGE) {
                add_shared(searcher, per_entry, &piece, role, w, &hit);
                add_hit(per_entry, &piece, role, w, hit);
            }
        }
        // Only the piece's own evidence: an escaped traceback's pieces share one line number
        // with the exception they follow.
        let evidence = per_entry.values_mut().flat_map(|a| a.evidence.iter_mut());
        for e in evidence.filter(|e| e.line == *number && e.text == *text) {
            e.follows = Some(line.line);
        }
    }
    Ok(())
}

/// Whether the line `text` holds `hit`'s signature as a line that names the failure does
/// ([`holds_the_wording`]), with `coverage` of it at least, and more than common words of it.
fn holds_wording(hit: &Hit, text: &str, coverage: f32) -> bool {
    hit.specific && holds_the_wording(&Wording::of_hit(hit, text), coverage)
}

/// Adds each cue that turned up to its entry, as a share of the best line's score. The best
/// line's entry is one no finding speaks against: words an OOM's advice shares with the
/// fragmentation entry set no scale when its numbers doubt it.
fn add_cues(
    searcher: &Searcher,
    report: &LogReport,
    cause: Option<&ErrorLine>,
    per_entry: &mut BTreeMap<String, Acc>,
) {
    let best = (per_entry.values())
        .filter(|a| a.specific && !a.ruled_out && !a.doubted)
        .map(|a| a.best)
        .fold(0.0, f32::max);
    let scale = CueScale {
        base: if best > 0.0 { best } else { CUE_BASE },
        matched: best > 0.0,
    };
    let (cues, owners) = searcher.cues();
    let context = cause.map(|c| c.context.replace('\\', "/"));
    let raised = cause.zip(context.as_deref());
    for hit in &report.cue_hits {
        let Some(meta) = owners.get(hit.cue).and_then(|&d| searcher.docs().get(d)) else {
            continue;
        };
        let Some(acc) = with_room_for_a_cue(per_entry, meta) else {
            continue;
        };
        let kind = cues.kind(hit.cue);
        let share = match kind {
            CueKind::Frame if raised_in(raised, acc, cues.text(hit.cue)) => RAISED_IN_CUE_SHARE,
            CueKind::Frame | CueKind::RaisedIn => FRAME_CUE_SHARE,
            CueKind::Line => LINE_CUE_SHARE,
        };
        let evidence = CueEvidence {
            line: hit.line,
            text: hit.text.clone(),
            cue: cues.text(hit.cue).to_owned(),
            kind,
        };
        acc.add_cue(share, scale, evidence);
    }
    if let Some(cause) = cause {
        add_raised_in(searcher, cause, scale, per_entry);
    }
}

/// What a cue's share is taken of, and whether some line matched an entry on more than common
/// words.
#[derive(Clone, Copy)]
struct CueScale {
    base: f32,
    matched: bool,
}

impl Acc {
    /// Adds a cue's `share` of the scale's base.
    fn add_cue(&mut self, share: f32, scale: CueScale, evidence: CueEvidence) {
        self.cue_score += share * scale.base;
        // Cues alone (no line matched the entry on more than common words) are circumstantial:
        // they rank below the entry whose signature the log's best line matched.
        if !self.specific && scale.matched {
            self.cue_score = self.cue_score.min(CUE_ONLY_MAX * scale.base);
        }
        self.cues.push(evidence);
    }
}

/// The entry `meta`'s gatherings, when it has room for another cue ([`MAX_CUES`]).
fn with_room_for_a_cue<'a>(
    per_entry: &'a mut BTreeMap<String, Acc>,
    meta: &DocMeta,
) -> Option<&'a mut Acc> {
    let acc = per_entry
        .entry(meta.slug.clone())
        .or_insert_with(|| Acc::new(meta.clone()));
    (acc.cues.len() < MAX_CUES).then_some(acc)
}

/// Adds to the entry that declares a signature raised in the function the first failing line
/// (`cause`) was raised in (its innermost frame) what a frame cue in those frames adds: the
/// wording may differ by version or be cut, the place that raises it does not. A place that
/// several entries declare raises several failures' messages (a launcher's summary of whatever
/// its child died of), and tells none of them apart: it adds nothing; nor does it to an entry
/// whose own frame cue was found in that frame, which counted it already.
fn add_raised_in(
    searcher: &Searcher,
    cause: &ErrorLine,
    scale: CueScale,
    per_entry: &mut BTreeMap<String, Acc>,
) {
    let Some(frame) = crate::log::innermost_python_frame(&cause.context) else {
        return;
    };
    let declaring = |d: &&DocMeta| d.cues.raised_in.iter().find(|p| frame.is_in(p)).cloned();
    let mut owners = (searcher.docs().iter()).filter_map(|d| Some((d, declaring(&d)?)));
    let (Some((meta, place)), None) = (owners.next(), owners.next()) else {
        return;
    };
    let Some(acc) = with_room_for_a_cue(per_entry, meta) else {
        return;
    };
    let framed = |c: &CueEvidence| c.kind == CueKind::Frame && frame.line.contains(&c.cue);
    if acc.cues.iter().any(framed) {
        return;
    }
    let share = if acc.evidence.iter().any(|e| e.line == cause.line) {
        RAISED_IN_CUE_SHARE
    } else {
        FRAME_CUE_SHARE
    };
    let evidence = CueEvidence {
        line: cause.line,
        text: frame.line.to_owned(),
        cue: place,
        kind: CueKind::RaisedIn,
    };
    acc.add_cue(share, scale, evidence);
}

/// Whether `cue` is in the frames the first failing line (`cause`, with those frames as
/// `context`, a Windows path's backslashes read as slashes) was raised in, and that line
/// matched the entry `acc`.
fn raised_in(cause: Option<(&ErrorLine, &str)>, acc: &Acc, cue: &str) -> bool {
    cause.is_some_and(|(c, context)| {
        context.contains(cue) && acc.evidence.iter().any(|e| e.line == c.line)
    })
}

/// The findings read from the log's lines, for or against the entries that declare them;
/// `other_words` is the line of an out-of-memory message in words no entry declares, in a log
/// nothing else explains.
fn apply_findings(
    searcher: &Searcher,
    lines: &[ErrorLine],
    memory: Option<&MemoryDump>,
    other_words: Option<usize>,
    per_entry: &mut BTreeMap<String, Acc>,
) {
    for (name, verdict) in findings(lines, memory, other_words) {
        let Some((stance, why)) = verdict else {
            continue;
        };
        for d in searcher.docs() {
            if !d.cues.findings.iter().any(|f| f == name) {
                continue;
            }
            // A finding for an entry makes it a candidate even where no line matched it.
            if stance == Stance::For {
                per_entry
                    .entry(d.slug.clone())
                    .or_insert_with(|| Acc::new(d.clone()));
            }
            if let Some(acc) = per_entry.get_mut(&d.slug) {
                match stance {
                    Stance::For => acc.factor *= FINDING_FOR,
                    Stance::Doubt => acc.doubted = true,
                    Stance::Against => {
                        acc.factor *= FINDING_AGAINST;
                        acc.ruled_out = true;
                    }
                }
                acc.reasons.push(why.clone());
            }
        }
    }
}

/// The same match for each entry whose failure prints the signature `hit` matched too (its
/// entry's `also:`), a little lower: the message alone does not tell them apart.
fn add_shared(
    searcher: &Searcher,
    per_entry: &mut BTreeMap<String, Acc>,
    line: &ErrorLine,
    role: Role,
    w: f32,
    hit: &Hit,
) {
    let Some(signature) = hit.matched_signature.as_deref() else {
        return;
    };
    let docs = searcher.docs();
    let Some(owner) = docs.iter().find(|d| d.slug == hit.slug) else {
        return;
    };
    let shared = (owner.cues.shared.iter()).filter(|s| s.signature == signature);
    for slug in shared.flat_map(|s| &s.with) {
        let Some(meta) = docs.iter().find(|d| &d.slug == slug) else {
            continue;
        };
        let seen =
            (per_entry.get(slug)).is_some_and(|a| a.evidence.iter().any(|e| e.line == line.line));
        if !seen {
            let also = Hit {
                slug: meta.slug.clone(),
                title: meta.title.clone(),
                url: meta.url.clone(),
                category: meta.category.clone(),
                severity: meta.severity.clone(),
                score: hit.score * SHARED_SHARE,
                ..hit.clone()
            };
            add_hit(per_entry, line, role, w, also);
        }
    }
}

fn add_hit(per_entry: &mut BTreeMap<String, Acc>, line: &ErrorLine, role: Role, w: f32, hit: Hit) {
    let score = w * hit.score;
    let acc = per_entry
        .entry(hit.slug.clone())
        .or_insert_with(|| Acc::new(meta_of(&hit)));
    acc.specific |= hit.specific;
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
        defining: hit.defining,
        defined: hit.defined,
        specific: hit.specific,
        phrase: hit.phrase,
        run: hit.run,
        ends_otherwise: hit.ends_otherwise,
        partial: hit.coverage < verdict::MIN_COVERAGE || hit.phrase == 0.0 || hit.ends_otherwise,
        whole: hit.coverage >= super::WHOLE_COVERAGE,
        follows: None,
        role,
        score,
    });
}

fn entry(mut acc: Acc) -> DiagnosedEntry {
    acc.evidence
        .sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)));
    acc.evidence.truncate(MAX_EVIDENCE);
    let DocMeta {
        slug,
        title,
        url,
        category,
        severity,
        ..
    } = acc.meta;
    DiagnosedEntry {
        slug,
        title,
        url,
        category,
        severity,
        score: (acc.best + SUPPORT_SHARE * acc.rest + acc.context + acc.cue_score) * acc.factor,
        evidence: acc.evidence,
        cues: acc.cues,
        reasons: acc.reasons,
        ruled_out: acc.ruled_out,
        doubted: acc.doubted,
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
