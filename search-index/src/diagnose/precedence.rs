//! The order of the ranked entries where word overlap is not the last word: findings first,
//! doubted entries behind the best undoubted one, warnings behind a cut crash's frames, cues
//! ahead of loose words, a launcher's summary behind a worker's own line, common words behind
//! anything that points.
//!
//! Takes the scored entries (and the log's lines); caps or raises scores, never reorders by
//! itself: the caller sorts.

use super::combine::CUE_ONLY_MAX;
use super::verdict::{points_at, MIN_COVERAGE};
use super::wording::MIN_DEFINING;
use super::{DiagnosedEntry, Role};
use crate::log::{is_launcher_summary, ErrorLine, LineKind};

/// How far ahead of the others an entry a finding speaks for is put.
const FINDING_LEAD: f32 = 1.1;
/// Where an entry a finding doubts is put, as a share of the best undoubted entry's score.
const DOUBT_CAP: f32 = 0.95;

/// A log whose crash is a traceback cut before its exception line has only the traceback's
/// frames to say what failed. Warnings printed before it (routine ones: a loss scaler's
/// overflow, a deprecation) did not crash the run: an entry that only warnings match ranks
/// below the entry the crash's frames point at.
pub(super) fn warnings_below_a_cut_crash(lines: &[ErrorLine], entries: &mut [DiagnosedEntry]) {
    if lines.iter().any(|l| l.kind == LineKind::Exception) {
        return;
    }
    let framed = |e: &DiagnosedEntry| e.cues.iter().any(|c| c.kind.in_frame());
    let crash = (entries.iter().filter(|e| framed(e)))
        .map(|e| e.score)
        .fold(0.0, f32::max);
    if crash <= 0.0 {
        return;
    }
    let is_warning = |line: usize| {
        lines
            .iter()
            .any(|l| l.line == line && l.kind == LineKind::Warning)
    };
    for e in entries.iter_mut().filter(|e| !framed(e)) {
        if !e.evidence.is_empty() && e.evidence.iter().all(|ev| is_warning(ev.line)) {
            e.score = e.score.min(crash * CUE_ONLY_MAX);
        }
    }
}

/// A log with no error line has only its plain lines, read as stand-ins, to match signatures
/// with, and a command line or a progress line shares words with many: a cue, a line the entry
/// declares as pointing at it (PaddlePaddle's `Cannot malloc ... MB GPU memory. Please shrink
/// FLAGS_fraction_of_gpu_memory_to_use` warning), says more. An entry a cue points at goes
/// ahead of every entry that only plain lines match.
pub(super) fn cues_ahead_of_plain_lines(lines: &[ErrorLine], entries: &mut [DiagnosedEntry]) {
    if lines.iter().any(|l| l.kind != LineKind::Context) {
        return;
    }
    ahead_of_the_rest(
        entries,
        |e| !e.cues.is_empty() && !e.against(),
        |e| e.cues.is_empty(),
    );
}

/// Frames and lines an entry declares, two or more of them, say more than a line that shares
/// some words with another entry's signature without holding it: an entry such cues point at
/// goes ahead of every entry no cue points at and no line matches closely. (An entry's cues
/// are distinct: the log reader keeps each cue's first hit only, and an entry lists a cue once.)
pub(super) fn cues_ahead_of_loose_words(entries: &mut [DiagnosedEntry]) {
    let close = |e: &DiagnosedEntry| {
        (e.evidence.iter()).any(|v| v.coverage >= MIN_COVERAGE && v.defining >= MIN_DEFINING)
    };
    ahead_of_the_rest(
        entries,
        |e| e.cues.len() >= 2 && !e.against(),
        |e| e.cues.is_empty() && !close(e),
    );
}

/// A finding is a fact read from the log's numbers or exit codes, which word overlap cannot
/// outweigh: an entry a finding speaks for goes ahead of every entry none speaks for.
pub(super) fn put_findings_first(entries: &mut [DiagnosedEntry]) {
    ahead_of_the_rest(entries, DiagnosedEntry::found, |e| !e.found());
}

/// Puts every entry `ahead` holds for at least [`FINDING_LEAD`] times the best score of the
/// entries `rest` holds for.
fn ahead_of_the_rest(
    entries: &mut [DiagnosedEntry],
    ahead: impl Fn(&DiagnosedEntry) -> bool,
    rest: impl Fn(&DiagnosedEntry) -> bool,
) {
    let best_other = (entries.iter())
        .filter(|e| rest(e))
        .map(|e| e.score)
        .fold(0.0, f32::max);
    for e in entries.iter_mut().filter(|e| ahead(e)) {
        e.score = e.score.max(best_other * FINDING_LEAD);
    }
}

/// A finding that doubts an entry without ruling it out keeps it a candidate but never lets it
/// lead: the words a message shares with its signature (an OOM's advice to avoid fragmentation)
/// cannot outweigh numbers that speak against it.
/// With no undoubted candidate, the doubted ones keep their order and scores.
pub(super) fn doubted_behind_the_best(entries: &mut [DiagnosedEntry]) {
    behind_the_best(entries, |e| !e.doubted, |e| e.doubted);
}

/// Caps the score of every entry `behind` holds for just behind the best entry `leads` holds
/// for; with no such leader, nothing moves.
fn behind_the_best(
    entries: &mut [DiagnosedEntry],
    leads: impl Fn(&DiagnosedEntry) -> bool,
    behind: impl Fn(&DiagnosedEntry) -> bool,
) {
    let best = (entries.iter())
        .filter(|e| leads(e))
        .map(|e| e.score)
        .fold(0.0, f32::max);
    if best <= 0.0 {
        return;
    }
    for e in entries.iter_mut().filter(|e| behind(e)) {
        e.score = e.score.min(best * DOUBT_CAP);
    }
}

/// A launcher's summary (torchrun's `ChildFailedError`, `failed (exitcode: 1)`, DeepSpeed's
/// `exits with return code`) is a consequence of a worker's failure: an entry that only such
/// lines match ranks behind an entry a worker's own line matches, a signature's defining words
/// and all, even a plain line left of a message whose head the paste cut off.
pub(super) fn launchers_behind_the_workers(entries: &mut [DiagnosedEntry]) {
    let launcher_only = |e: &DiagnosedEntry| {
        !e.found()
            && !e.evidence.is_empty()
            && e.evidence.iter().all(|ev| is_launcher_summary(&ev.text))
    };
    let from_a_worker = |e: &DiagnosedEntry| {
        !e.against()
            && e.evidence.iter().any(|ev| {
                ev.role != Role::Collateral
                    && !is_launcher_summary(&ev.text)
                    && ev.coverage >= MIN_COVERAGE
                    && ev.defining >= MIN_DEFINING
            })
    };
    behind_the_best(entries, from_a_worker, launcher_only);
}

/// A line that shares only common words with an entry's signatures (`out of` and the `Error`
/// of `EOFError: Ran out of input` with `CUDA error: out of memory`), or too little of one, does
/// not point at the entry ([`points_at`]): such an entry ranks behind every entry something
/// points at (a cue, a finding, a line sharing enough of a signature).
pub(super) fn common_words_behind_the_pointed(entries: &mut [DiagnosedEntry]) {
    behind_the_best(entries, points_at, |e| !points_at(e) && !e.against());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::Evidence;
    use crate::log::cues::CueKind;

    fn entry(slug: &str, score: f32, doubted: bool) -> DiagnosedEntry {
        DiagnosedEntry {
            slug: slug.into(),
            title: slug.into(),
            url: format!("{slug}/"),
            category: "memory".into(),
            severity: "high".into(),
            score,
            evidence: Vec::new(),
            cues: Vec::new(),
            reasons: Vec::new(),
            ruled_out: false,
            doubted,
        }
    }

    fn evidence(text: &str, role: Role, coverage: f32, defining: f32) -> Evidence {
        Evidence {
            line: 1,
            text: text.into(),
            ranks: Vec::new(),
            count: 1,
            signature: None,
            coverage,
            defining,
            defined: true,
            specific: true,
            phrase: 1.0,
            run: 3,
            ends_otherwise: false,
            partial: coverage < MIN_COVERAGE,
            whole: coverage >= crate::diagnose::WHOLE_COVERAGE,
            follows: None,
            role,
            score: 1.0,
        }
    }

    #[test]
    fn an_entry_only_a_launchers_summary_matches_goes_behind_a_workers_line() {
        let launcher = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:";
        let worker = "Parameters which did not receive grad for rank 3: fc.bias, fc.weight";
        let mut summary = entry("child-failed", 9.0, false);
        summary.evidence = vec![evidence(launcher, Role::Cause, 1.0, 1.0)];
        let mut reducer = entry("unused-parameters", 2.0, false);
        reducer.evidence = vec![evidence(worker, Role::Context, 0.9, 1.0)];
        let mut entries = vec![summary.clone(), reducer.clone()];
        launchers_behind_the_workers(&mut entries);
        assert_eq!(entries[0].score, 2.0 * DOUBT_CAP);
        assert_eq!(entries[1].score, 2.0);
        // A worker's line that misses the signature's defining words moves nothing.
        reducer.evidence = vec![evidence(worker, Role::Context, 0.9, 0.5)];
        let mut entries = vec![summary.clone(), reducer];
        launchers_behind_the_workers(&mut entries);
        assert_eq!(entries[0].score, 9.0);
        // Nor does it move an entry that a worker's line matches too.
        summary
            .evidence
            .push(evidence(worker, Role::Error, 0.6, 1.0));
        let mut other = entry("unused-parameters", 2.0, false);
        other.evidence = vec![evidence(worker, Role::Context, 0.9, 1.0)];
        let mut entries = vec![summary, other];
        launchers_behind_the_workers(&mut entries);
        assert_eq!(entries[0].score, 9.0);
    }

    #[test]
    fn a_doubted_entry_goes_just_behind_the_best_undoubted_one() {
        let mut entries = vec![entry("frag", 9.0, true), entry("batch", 6.0, false)];
        doubted_behind_the_best(&mut entries);
        assert_eq!(entries[0].score, 6.0 * DOUBT_CAP);
        assert_eq!(entries[1].score, 6.0);
        // A doubted entry already behind keeps its score.
        let mut entries = vec![entry("frag", 2.0, true), entry("batch", 6.0, false)];
        doubted_behind_the_best(&mut entries);
        assert_eq!(entries[0].score, 2.0);
        // With nothing undoubted, nothing moves.
        let mut entries = vec![entry("frag", 9.0, true)];
        doubted_behind_the_best(&mut entries);
        assert_eq!(entries[0].score, 9.0);
    }

    #[test]
    fn an_entry_only_common_words_match_goes_behind_one_a_cue_points_at() {
        let line = "EOFError: Ran out of input";
        let mut common = entry("cuda-oom", 12.5, false);
        common.evidence = vec![evidence(line, Role::Cause, 0.5, 1.0)];
        common.evidence[0].specific = false;
        let mut cued = entry("pickle", 10.0, false);
        cued.cues = vec![crate::diagnose::CueEvidence {
            line: 2,
            text: "ForkingPickler(file, protocol).dump(obj)".into(),
            cue: "ForkingPickler".into(),
            kind: CueKind::Frame,
        }];
        let mut entries = vec![common.clone(), cued];
        common_words_behind_the_pointed(&mut entries);
        assert_eq!(entries[0].score, 10.0 * DOUBT_CAP);
        assert_eq!(entries[1].score, 10.0);
        // Nor does a line sharing a rare word but a quarter of the signature (`Trying to resize
        // storage that is not resizable` against `You are trying to save a non contiguous
        // tensor`).
        let mut little = entry("shared-tensors", 12.5, false);
        little.evidence = vec![evidence(
            "RuntimeError: Trying to resize storage",
            Role::Cause,
            0.25,
            1.0,
        )];
        let mut entries = vec![little, entries[1].clone()];
        common_words_behind_the_pointed(&mut entries);
        assert_eq!(entries[0].score, 10.0 * DOUBT_CAP);
        // With nothing that points, nothing moves.
        let mut entries = vec![common];
        common_words_behind_the_pointed(&mut entries);
        assert_eq!(entries[0].score, 12.5);
    }

    fn cue(cue: &str) -> crate::diagnose::CueEvidence {
        crate::diagnose::CueEvidence {
            line: 2,
            text: format!("    {cue}()"),
            cue: cue.into(),
            kind: CueKind::Frame,
        }
    }

    #[test]
    fn two_cues_go_ahead_of_loose_words() {
        let line = "ValueError: Attempting to unscale FP16 gradients.";
        let mut loose = entry("exploding", 9.0, false);
        loose.evidence = vec![evidence(line, Role::Cause, 0.4, 0.5)];
        let mut cued = entry("grad-scaler", 5.0, false);
        cued.cues = vec![cue("_unscale_grads_"), cue("unscale_")];
        let mut entries = vec![loose.clone(), cued.clone()];
        cues_ahead_of_loose_words(&mut entries);
        assert_eq!(entries[1].score, 9.0 * FINDING_LEAD);
        // One cue is not enough.
        cued.cues = vec![cue("unscale_")];
        let mut entries = vec![loose.clone(), cued.clone()];
        cues_ahead_of_loose_words(&mut entries);
        assert_eq!(entries[1].score, 5.0);
        // Nor do cues pass a line that holds a signature, defining words and all.
        cued.cues = vec![cue("_unscale_grads_"), cue("unscale_")];
        loose.evidence = vec![evidence(line, Role::Cause, 0.6, 1.0)];
        let mut entries = vec![loose, cued];
        cues_ahead_of_loose_words(&mut entries);
        assert_eq!(entries[1].score, 5.0);
    }
}
