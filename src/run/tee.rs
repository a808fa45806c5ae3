//! Passing the child's output through while a copy is read.
//!
//! One thread per stream copies what the child writes to errata's own stream at once, chunk
//! by chunk, unchanged (partial lines, `\r` and colour codes included), and offers each chunk
//! to the reading thread on a bounded queue. The copy never waits for the reading: output that
//! finds the queue full waits in a bounded backlog whose oldest lines give way, so a child
//! that prints faster than errata reads is never slowed, memory stays bounded, and what is
//! left unread is the middle of a flood, never its end.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use errata_search::log::{LogReader, Skim};

use crate::log_input::LineSplitter;

/// Chunks waiting to be read, at most; a chunk is at most [`BACKLOG`] bytes, so the queue
/// holds at most 32 MB.
pub const QUEUE: usize = 32;
const CHUNK: usize = 64 * 1024;
/// How often a reader with nothing to read asks whether to give up.
const LOOK_AGAIN: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

/// Bytes of one stream, in the order they came.
#[derive(Debug)]
pub struct Chunk {
    stream: Stream,
    bytes: Vec<u8>,
    /// Chunks of this stream before this one were not read (the queue was full).
    after_gap: bool,
}

/// Copies `source` to `sink` until the source ends, offering each chunk on `queue`. A sink
/// that fails (a closed pipe, a terminal gone) is no longer written, but the source is still
/// drained, so the child never blocks on a full pipe. While the queue is full, the latest
/// bytes wait in a backlog of [`BACKLOG`] bytes (older ones are not read, and are added to
/// `skipped`); the backlog is offered again with the next chunk and handed over at the end,
/// so the last output before a crash, where its cause is, is always read.
pub fn copy(
    mut source: impl Read,
    mut sink: impl Write,
    stream: Stream,
    queue: SyncSender<Chunk>,
    flow: &Flow,
) {
    let mut buf = vec![0u8; CHUNK];
    let mut sink_open = true;
    let mut backlog = Backlog::default();
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        flow.read.fetch_add(n as u64, Ordering::Relaxed);
        // Offered before it is written: a sink that stalls does not keep it from the reader.
        backlog.add(&buf[..n], &flow.skipped);
        match queue.try_send(backlog.take(stream)) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(chunk)) => backlog.put_back(chunk),
        }
        if sink_open {
            flow.writing.fetch_add(1, Ordering::Relaxed);
            sink_open = sink
                .write_all(&buf[..n])
                .and_then(|()| sink.flush())
                .is_ok();
            flow.writing.fetch_sub(1, Ordering::Relaxed);
        }
    }
    if !backlog.bytes.is_empty() {
        let _ = queue.send(backlog.take(stream));
    }
    flow.open.fetch_sub(1, Ordering::Relaxed);
}

/// What the copying threads have done, for the reader to judge when to stop waiting.
#[derive(Debug, Default)]
pub struct Flow {
    /// Bytes passed through unread (the queue was full).
    pub skipped: AtomicU64,
    /// Bytes read from the child's streams.
    read: AtomicU64,
    /// Copying threads writing to errata's own streams just now.
    writing: AtomicUsize,
    /// Copying threads still reading their stream.
    open: AtomicUsize,
}

impl Flow {
    /// For `streams` copying threads.
    pub fn new(streams: usize) -> Flow {
        Flow {
            open: AtomicUsize::new(streams),
            ..Flow::default()
        }
    }
}

/// Output still coming after COMMAND and its group are gone is a process's that left the
/// group (a daemon): it is read until the streams have been quiet for [`DRAIN`], or for at
/// most [`DRAIN_MAX`] of the time no copy was waiting on a slow sink (`| less`): what the
/// pipes still held of COMMAND's own output is read in far less.
pub struct Drain<'f> {
    flow: &'f Flow,
    last: (u64, Instant),
    /// Time since COMMAND's end with no copy waiting on a sink, and when that was last added.
    free: (Duration, Option<Instant>),
}

const DRAIN: Duration = Duration::from_secs(2);
const DRAIN_MAX: Duration = Duration::from_secs(10);

impl<'f> Drain<'f> {
    pub fn new(flow: &'f Flow) -> Drain<'f> {
        Drain {
            flow,
            last: (0, Instant::now()),
            free: (Duration::ZERO, None),
        }
    }

    /// Whether to stop reading, COMMAND having ended at `ended` (if it has).
    pub fn over(&mut self, ended: Option<&Instant>) -> bool {
        let Some(&ended) = ended else {
            return false;
        };
        let now = Instant::now();
        let read = self.flow.read.load(Ordering::Relaxed);
        if read != self.last.0 {
            self.last = (read, now);
        }
        // Once every stream has ended, what is queued is COMMAND's and is all read.
        if self.flow.open.load(Ordering::Relaxed) == 0 {
            return false;
        }
        if self.flow.writing.load(Ordering::Relaxed) > 0 {
            self.free.1 = None;
            return false;
        }
        // From COMMAND's end the first time; from now after a wait on a sink.
        let since = self
            .free
            .1
            .unwrap_or(if self.free.0.is_zero() { ended } else { now });
        self.free = (
            self.free.0 + now.saturating_duration_since(since),
            Some(now),
        );
        self.last.1.elapsed() > DRAIN || self.free.0 > DRAIN_MAX
    }
}

/// The most recent bytes of a stream that the queue had no room for yet.
#[derive(Debug, Default)]
struct Backlog {
    bytes: Vec<u8>,
    /// Bytes before these were not read.
    after_gap: bool,
}

/// The most bytes a backlog keeps.
pub const BACKLOG: usize = 1024 * 1024;

impl Backlog {
    /// Adds `bytes`; past [`BACKLOG`], drops the oldest whole lines.
    fn add(&mut self, bytes: &[u8], skipped: &AtomicU64) {
        self.bytes.extend_from_slice(bytes);
        if self.bytes.len() > BACKLOG {
            let over = self.bytes.len() - BACKLOG;
            // Cut at a line's start, so that no line is read from its middle.
            let cut = self.bytes[over..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(self.bytes.len(), |i| over + i + 1);
            self.bytes.drain(..cut);
            skipped.fetch_add(cut as u64, Ordering::Relaxed);
            self.after_gap = true;
        }
    }

    fn take(&mut self, stream: Stream) -> Chunk {
        Chunk {
            stream,
            bytes: std::mem::take(&mut self.bytes),
            after_gap: std::mem::take(&mut self.after_gap),
        }
    }

    fn put_back(&mut self, chunk: Chunk) {
        self.bytes = chunk.bytes;
        self.after_gap = chunk.after_gap;
    }
}

/// What the reading thread read.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadCounts {
    pub lines: u64,
    pub cut_lines: u64,
}

/// Reads the chunks of both streams into `reader`, a line at a time per stream, until every
/// copying thread has ended or, while they wait, `give_up` says so.
pub fn read(
    queue: Receiver<Chunk>,
    reader: &mut LogReader,
    mut give_up: impl FnMut() -> bool,
) -> ReadCounts {
    let mut out = LineSplitter::default();
    let mut err = LineSplitter::default();
    let mut counts = ReadCounts::default();
    // One skim for both streams: the lines it holds came before whatever comes next on either.
    let mut skim = Skim::new(reader);
    loop {
        let chunk = match queue.recv_timeout(LOOK_AGAIN) {
            Ok(chunk) if !give_up() => chunk,
            Err(RecvTimeoutError::Timeout) if !give_up() => continue,
            _ => break,
        };
        let lines = match chunk.stream {
            Stream::Out => &mut out,
            Stream::Err => &mut err,
        };
        if chunk.after_gap {
            add(
                &mut counts,
                std::mem::take(lines).finish_into(reader, &mut skim),
            );
        }
        lines.push_into(&chunk.bytes, reader, &mut skim);
    }
    add(&mut counts, out.finish_into(reader, &mut skim));
    add(&mut counts, err.finish_into(reader, &mut skim));
    counts
}

fn add(counts: &mut ReadCounts, read: crate::log_input::Read) {
    counts.lines += read.lines;
    counts.cut_lines += read.cut_lines;
}
