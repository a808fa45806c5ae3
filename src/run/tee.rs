//! Passing the child's output through while a copy is read.
//!
//! One thread per stream copies what the child writes to errata's own stream at once, chunk
//! by chunk, unchanged (partial lines, `\r` and colour codes included), and appends each
//! chunk to a [`Queue`] that the reading thread empties when it looks, every few
//! milliseconds. The copy never waits for the reading and wakes nobody: output that comes
//! faster than errata reads makes the queue give up its oldest lines, so a child is never
//! slowed, memory stays bounded, and what is left unread is the middle of a flood, never its
//! end. The queue's two buffers take turns and keep their room, so a steady stream costs no
//! allocation.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use errata_search::log::{LogReader, Skim};

use crate::log_input::LineSplitter;

/// The most bytes the queue holds; past it, the oldest lines give way, down to half of it.
pub const QUEUE_BYTES: usize = 16 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;
/// How long a reader that found nothing to read waits before it looks again.
const LOOK_AGAIN: Duration = Duration::from_millis(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

impl Stream {
    fn index(self) -> usize {
        match self {
            Stream::Out => 0,
            Stream::Err => 1,
        }
    }
}

/// Output of both streams not read yet, in the order it came.
#[derive(Debug, Default)]
pub struct Queue {
    pending: Mutex<Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    runs: Vec<Run>,
    /// Per stream: the next run of it follows bytes that were not read.
    gap: [bool; 2],
}

/// Bytes `start..end` of the queue, all of one stream.
#[derive(Debug, Clone, Copy)]
struct Run {
    stream: Stream,
    start: usize,
    end: usize,
    /// Bytes of this stream before this run were not read.
    after_gap: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends `bytes` of `stream`; past [`QUEUE_BYTES`], the oldest lines give way (and are
    /// added to `skipped`).
    fn offer(&self, stream: Stream, bytes: &[u8], skipped: &AtomicU64) {
        let mut pending = self.lock();
        let at = pending.bytes.len();
        match pending.runs.last_mut() {
            Some(run) if run.stream == stream => run.end += bytes.len(),
            _ => {
                let after_gap = std::mem::take(&mut pending.gap[stream.index()]);
                pending.runs.push(Run {
                    stream,
                    start: at,
                    end: at + bytes.len(),
                    after_gap,
                });
            }
        }
        pending.bytes.extend_from_slice(bytes);
        if pending.bytes.len() > QUEUE_BYTES {
            let over = pending.bytes.len() - QUEUE_BYTES / 2;
            let shed = pending.shed(over);
            skipped.fetch_add(shed as u64, Ordering::Relaxed);
        }
    }

    /// Swaps what is pending with `into`, which must be empty (its buffers are reused); the
    /// gaps still to come stay with the queue.
    fn take(&self, into: &mut Pending) {
        let mut pending = self.lock();
        std::mem::swap(&mut pending.bytes, &mut into.bytes);
        std::mem::swap(&mut pending.runs, &mut into.runs);
    }
}

impl Pending {
    /// Drops at least `over` bytes from the front, up to a line's start; yields how many.
    fn shed(&mut self, over: usize) -> usize {
        let cut = match self.runs.iter().find(|r| r.end > over) {
            Some(run) => {
                memchr::memchr(b'\n', &self.bytes[over..run.end]).map_or(run.end, |j| over + j + 1)
            }
            None => self.bytes.len(),
        };
        // A run cut in its middle follows a gap; one dropped whole leaves its gap to the next
        // run of its stream, here or still to come.
        let mut gap = [false; 2];
        self.runs.retain_mut(|run| {
            run.after_gap |= run.start < cut;
            let kept = run.end > cut;
            gap[run.stream.index()] |= !kept;
            kept
        });
        for run in &mut self.runs {
            run.after_gap |= std::mem::take(&mut gap[run.stream.index()]);
            run.start = run.start.saturating_sub(cut);
            run.end -= cut;
        }
        for (pending, dropped) in self.gap.iter_mut().zip(gap) {
            *pending |= dropped;
        }
        self.bytes.drain(..cut);
        cut
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.runs.clear();
    }
}

/// Copies `source` to `sink` until the source ends, offering each chunk to `queue` before
/// it is written, so that a sink that stalls does not keep it from the reader. A sink that
/// fails (a closed pipe, a terminal gone) is no longer written, but the source is still
/// drained, so the child never blocks on a full pipe.
pub fn copy(
    mut source: impl Read,
    mut sink: impl Write,
    stream: Stream,
    queue: &Queue,
    flow: &Flow,
) {
    let mut buf = vec![0u8; CHUNK];
    let mut sink_open = true;
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        flow.read.fetch_add(n as u64, Ordering::Relaxed);
        queue.offer(stream, &buf[..n], &flow.skipped);
        if sink_open {
            flow.writing.fetch_add(1, Ordering::Relaxed);
            sink_open = sink
                .write_all(&buf[..n])
                .and_then(|()| sink.flush())
                .is_ok();
            flow.writing.fetch_sub(1, Ordering::Relaxed);
        }
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

/// What the reading thread read.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadCounts {
    pub lines: u64,
    pub cut_lines: u64,
}

/// Reads the output of both streams from `queue` into `reader`, a line at a time per
/// stream, until every copying thread has ended and all is read or, before, `give_up` says so.
pub fn read(
    queue: &Queue,
    flow: &Flow,
    reader: &mut LogReader,
    mut give_up: impl FnMut() -> bool,
) -> ReadCounts {
    let mut lines = [LineSplitter::default(), LineSplitter::default()];
    let mut counts = ReadCounts::default();
    // One skim for both streams: the lines it holds came before whatever comes next on either.
    let mut skim = Skim::new(reader);
    let mut taken = Pending::default();
    loop {
        // Looked at first: a stream that has ended has offered all it had.
        let ended = flow.open.load(Ordering::Relaxed) == 0;
        queue.take(&mut taken);
        if give_up() {
            break;
        }
        if taken.runs.is_empty() {
            if ended {
                break;
            }
            std::thread::sleep(LOOK_AGAIN);
            continue;
        }
        for run in &taken.runs {
            let splitter = &mut lines[run.stream.index()];
            if run.after_gap {
                add(
                    &mut counts,
                    std::mem::take(splitter).finish_into(reader, &mut skim),
                );
            }
            splitter.push_into(&taken.bytes[run.start..run.end], reader, &mut skim);
        }
        taken.clear();
    }
    for splitter in lines {
        add(&mut counts, splitter.finish_into(reader, &mut skim));
    }
    counts
}

fn add(counts: &mut ReadCounts, read: crate::log_input::Read) {
    counts.lines += read.lines;
    counts.cut_lines += read.cut_lines;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(queue: &Queue) -> Pending {
        let mut into = Pending::default();
        queue.take(&mut into);
        into
    }

    #[test]
    fn runs_keep_the_order_of_both_streams() {
        let (queue, skipped) = (Queue::default(), AtomicU64::new(0));
        queue.offer(Stream::Out, b"a\n", &skipped);
        queue.offer(Stream::Out, b"b\n", &skipped);
        queue.offer(Stream::Err, b"E\n", &skipped);
        queue.offer(Stream::Out, b"c", &skipped);
        let p = taken(&queue);
        let runs: Vec<_> = p
            .runs
            .iter()
            .map(|r| (r.stream, &p.bytes[r.start..r.end], r.after_gap))
            .collect();
        assert_eq!(
            runs,
            [
                (Stream::Out, &b"a\nb\n"[..], false),
                (Stream::Err, &b"E\n"[..], false),
                (Stream::Out, &b"c"[..], false)
            ]
        );
        assert!(taken(&queue).runs.is_empty());
    }

    #[test]
    fn a_full_queue_gives_up_its_oldest_whole_lines() {
        let (queue, skipped) = (Queue::default(), AtomicU64::new(0));
        let line = [b'x'; 99].iter().chain(b"\n").copied().collect::<Vec<u8>>();
        queue.offer(Stream::Err, b"first error\n", &skipped);
        for _ in 0..QUEUE_BYTES / line.len() + 10 {
            queue.offer(Stream::Out, &line, &skipped);
        }
        queue.offer(Stream::Out, b"last line\n", &skipped);
        let p = taken(&queue);
        let shed = skipped.load(Ordering::Relaxed) as usize;
        assert!(shed >= QUEUE_BYTES / 2 && p.bytes.len() <= QUEUE_BYTES);
        // Only stdout is left, from a line's start, after a gap, with its last line.
        assert_eq!(p.runs.len(), 1);
        let run = p.runs[0];
        assert!(run.stream == Stream::Out && run.after_gap);
        assert_eq!(&p.bytes[..line.len()], &line[..]);
        assert!(p.bytes.ends_with(b"last line\n"));
        // The stream whose only run was dropped whole starts its next run after a gap.
        queue.offer(Stream::Err, b"next\n", &skipped);
        assert!(taken(&queue).runs[0].after_gap);
    }
}
