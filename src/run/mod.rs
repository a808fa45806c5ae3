//! `errata run -- COMMAND` and `errata watch FILE`: the diagnosis at the moment a run fails.
//!
//! `run` starts COMMAND ([`child`]), passes its output through as it comes while a copy goes
//! through the same log reader as `errata diagnose` ([`tee`]), and, when COMMAND fails, tells
//! the diagnosis ([`report`]) and exits with COMMAND's own status. `watch` ([`watch`]) follows
//! a log file another process writes and tells each failure it recognises once.

#[cfg(unix)]
#[path = "unix.rs"]
mod child;
#[cfg(not(unix))]
#[path = "other.rs"]
mod child;
mod follow;
#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod parent;
#[cfg(not(target_os = "linux"))]
#[path = "linux_other.rs"]
mod parent;
pub mod report;
mod tee;
pub mod watch;

use std::ffi::OsString;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use errata_search::log::LogReader;
use errata_search::Searcher;

use crate::index::{self, Index, Pages, SearchError};
use report::{Hooks, Origin};

/// COMMAND, started, with the streams to read its output from.
pub struct Running {
    pub process: std::process::Child,
    pub stdout: Box<dyn io::Read + Send>,
    pub stderr: Box<dyn io::Read + Send>,
    pub group: child::Group,
}

/// What `errata run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// COMMAND and its arguments.
    pub command: Vec<OsString>,
    pub index: Index,
    pub hooks: Hooks,
    /// How long the child has to end after a signal is passed on, before SIGKILL.
    pub kill_after: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Index(#[from] SearchError),
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("the search bundle: {0}")]
    Bundle(#[from] errata_search::BundleError),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Runs COMMAND to its end; yields the exit status errata should end with (COMMAND's own).
pub fn run(options: &RunOptions) -> Result<u8, RunError> {
    let searcher = index::open(&options.index.root, options.index.bundle.as_deref())?;
    let pages = Pages::of(&options.index, options.hooks.site_url.as_deref());
    let program = || {
        options
            .command
            .first()
            .map_or(String::new(), |p| p.to_string_lossy().into_owned())
    };
    let mut running = child::spawn(&options.command).map_err(|source| RunError::Spawn {
        program: program(),
        source,
    })?;
    let forwarder = child::forward_signals(running.group, options.kill_after)?;
    let (status, mut reader, skipped) = pass_through(&searcher, &mut running);
    let forwarded = forwarder.stop();
    let status = status?;
    if status.success() {
        // FILE exists exactly when the last run failed: no stale diagnosis is left behind.
        if let Some(path) = options.hooks.json.as_deref().filter(|p| p.is_file()) {
            std::fs::remove_file(path)?;
        }
        return Ok(0);
    }
    // The log a person would paste ends with the shell's word for the signal; so does this
    // one, unless the signal came from errata passing one on (then it is no evidence).
    if let Some(line) = child::shell_report(status).filter(|_| forwarded.is_none()) {
        reader.line(&line);
    }
    let diagnosis = errata_search::diagnose_report(&searcher, reader.finish())?;
    let mut heading = format!("`{}` {}", shown(&options.command), child::describe(status));
    if let Some(signal) = forwarded {
        heading.push_str(&format!(" (errata passed on signal {signal})"));
    }
    if skipped > 0 {
        heading.push_str(&format!(
            "; {} KB of its output came faster than errata reads and were passed through unread",
            skipped / 1024
        ));
    }
    let code = child::exit_code(status);
    let origin = Origin {
        command: Some(
            options
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
        ),
        status: Some(i32::from(code)),
        log: None,
    };
    report::tell(&heading, &diagnosis, &origin, &pages, &options.hooks)?;
    Ok(code)
}

/// Copies both streams through and reads them until the child and everything it left are
/// gone; yields its status, the reader and the bytes not read. A process that left COMMAND's
/// group (`setsid`, a daemon) may hold the streams open for good: reading stops as
/// [`tee::Drain`] says, and the copying threads, detached, end with errata.
fn pass_through<'s>(
    searcher: &'s Searcher,
    running: &mut Running,
) -> (io::Result<std::process::ExitStatus>, LogReader<'s>, u64) {
    let flow = Arc::new(tee::Flow::new(2));
    let ended = OnceLock::new();
    let mut reader = LogReader::watching(searcher.cues().0);
    let stdout = std::mem::replace(&mut running.stdout, Box::new(io::empty()));
    let stderr = std::mem::replace(&mut running.stderr, Box::new(io::empty()));
    let queue = Arc::new(tee::Queue::default());
    let (out_flow, err_flow) = (Arc::clone(&flow), Arc::clone(&flow));
    let (out_queue, err_queue) = (Arc::clone(&queue), Arc::clone(&queue));
    std::thread::spawn(move || {
        tee::copy(
            stdout,
            io::stdout(),
            tee::Stream::Out,
            &out_queue,
            &out_flow,
        )
    });
    std::thread::spawn(move || {
        tee::copy(
            stderr,
            io::stderr(),
            tee::Stream::Err,
            &err_queue,
            &err_flow,
        )
    });
    let status = std::thread::scope(|s| {
        let reader = &mut reader;
        let (ended, flow, queue) = (&ended, &*flow, &*queue);
        s.spawn(move || {
            child::yield_to_the_job();
            let mut drain = tee::Drain::new(flow);
            tee::read(queue, flow, reader, || drain.over(ended.get()))
        });
        let status = child::wait(&mut running.process, running.group);
        let _ = ended.set(Instant::now());
        status
    });
    (status, reader, flow.skipped.load(Ordering::Relaxed))
}

/// COMMAND as a person would type it (for the heading; not for a shell).
fn shown(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
