//! `errata watch FILE`: follows a log another process writes and tells each failure it
//! recognises, once, while the job still runs.
//!
//! The log is read from its start, through the same reader as `errata diagnose`. When new
//! error lines have come and the log has paused (or they have waited [`MAX_WAIT`]), the log
//! read so far is diagnosed; a diagnosis naming an entry not told yet is told, as `errata run`
//! tells one. A NCCL watchdog's first line is an error line like any other, so a job hanging in
//! a collective is told as soon as its watchdog fires, not when the job ends. A truncated or
//! rotated log is a new run: it is read afresh, and its failures are told again.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use errata_search::diagnose::{Diagnosis, Outcome};
use errata_search::log::LogReader;
use errata_search::Searcher;

use super::follow::{Change, Follower, Piece};
use super::report::{self, Hooks, Origin};
use super::RunError;
use crate::index::{self, Index, Pages};
use crate::log_input::LineSplitter;

/// New error lines wait at most this long for the log to pause before they are diagnosed (a
/// traceback is written in one go; other ranks may go on logging).
pub const MAX_WAIT: Duration = Duration::from_secs(2);

/// What `errata watch` was asked.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub file: PathBuf,
    pub index: Index,
    pub hooks: Hooks,
    /// Exit 1 at the first failure told.
    pub exit_on_failure: bool,
    /// How often the file is looked at.
    pub interval: Duration,
}

/// Watches until interrupted (or the first failure, with `exit_on_failure`); yields 1 when a
/// failure was told, else 0.
pub fn watch(options: &WatchOptions) -> Result<u8, RunError> {
    let searcher = index::open(&options.index.root, options.index.bundle.as_deref())?;
    let pages = Pages::of(&options.index, options.hooks.site_url.as_deref());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Release));
    let mut follower = Follower::new(&options.file);
    let mut run = Run::new(&searcher);
    let mut told_any = false;
    while !stop.load(Ordering::Acquire) {
        let read = follower.poll(&mut |piece| match piece {
            Piece::Bytes(bytes) => run.push(bytes),
            Piece::Change(Change::Opened) => {}
            Piece::Change(change) => {
                eprintln!("errata: {}: {change}", options.file.display());
                run = Run::new(&searcher);
            }
        })?;
        if let Some(diagnosis) = run.diagnose_if_due(&searcher, read == 0)? {
            let heading = format!(
                "{} shows a failure{}",
                options.file.display(),
                diagnosis
                    .first_failure
                    .as_ref()
                    .map_or(String::new(), |f| format!(" at line {}", f.line))
            );
            let origin = Origin {
                command: None,
                status: None,
                log: Some(options.file.display().to_string()),
            };
            report::tell(&heading, &diagnosis, &origin, &pages, &options.hooks)?;
            told_any = true;
            if options.exit_on_failure {
                return Ok(1);
            }
        }
        std::thread::sleep(options.interval);
    }
    Ok(u8::from(told_any))
}

/// One run's log, as read so far.
struct Run<'s> {
    reader: LogReader<'s>,
    lines: LineSplitter,
    /// Error lines found when the log was last diagnosed.
    diagnosed_at: usize,
    /// When new bytes came after the last look.
    changed: Option<Instant>,
    /// Entries told for this run.
    told: HashSet<String>,
}

impl<'s> Run<'s> {
    fn new(searcher: &'s Searcher) -> Run<'s> {
        Run {
            reader: LogReader::watching(searcher.cues().0),
            lines: LineSplitter::default(),
            diagnosed_at: 0,
            changed: None,
            told: HashSet::new(),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let reader = &mut self.reader;
        self.lines.push(bytes, &mut |line| reader.line(line));
        self.changed.get_or_insert_with(Instant::now);
    }

    /// The diagnosis of the log so far, when new error lines are in it, the log has paused
    /// (`quiet`) or they waited long enough, and it names an entry not told yet.
    fn diagnose_if_due(
        &mut self,
        searcher: &Searcher,
        quiet: bool,
    ) -> Result<Option<Diagnosis>, RunError> {
        let Some(since) = self.changed else {
            return Ok(None);
        };
        if !quiet && since.elapsed() < MAX_WAIT {
            return Ok(None);
        }
        self.changed = None;
        // The line being written counts too: a last line without its newline yet.
        let mut probe = self.reader.clone();
        if let Some(partial) = self.lines.partial() {
            probe.line(&partial);
        }
        if probe.errors_found() <= self.diagnosed_at {
            return Ok(None);
        }
        self.diagnosed_at = probe.errors_found();
        let diagnosis = errata_search::diagnose_report(searcher, probe.finish())?;
        let new = diagnosis.outcome == Outcome::Diagnosis
            && diagnosis
                .entries
                .first()
                .is_some_and(|e| self.told.insert(e.slug.clone()));
        Ok(new.then_some(diagnosis))
    }
}
