//! Reading a log for `errata diagnose`, `run` and `watch`: a file, stdin or a stream of
//! chunks, one line at a time.
//!
//! Takes any reader; hands each line, decoded lossily as UTF-8, to a callback and yields
//! [`Read`] counts. Memory is bounded whatever the log's size: one line is held at a time,
//! and a line past [`MAX_LINE_BYTES`] keeps only its start (the log reader keeps the error
//! lines, never the whole text). A log that is not UTF-8 text (UTF-16, or a binary file) is
//! refused at its first bytes with a hint, and NUL bytes elsewhere are dropped, not echoed.

use std::io::{self, BufRead, BufReader, Read as _};

use errata_search::log::{paste_shape, LogReader, Skim, PASTE_SAMPLE_BYTES};

/// The longest line kept whole; the rest of a longer line is skipped unread into memory. A
/// log line (a command line, a JSON record) is rarely over a few kilobytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// What reading a log found besides its lines.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub lines: u64,
    pub bytes: u64,
    /// Lines longer than [`MAX_LINE_BYTES`], cut.
    pub cut_lines: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("the log looks UTF-16 encoded, not UTF-8; convert it first, e.g. `iconv -f UTF-16 -t UTF-8 LOG | errata diagnose -`")]
    Utf16,
    #[error("the log is not text: {nul} of its first {looked} bytes are NUL (a binary file or a device?)")]
    Binary { nul: usize, looked: usize },
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Reads `source` into `reader`, a line at a time, passing over the quiet runs of lines that
/// `skim` takes (see [`errata_search::log::skim`]).
///
/// How the log was pasted (hard-wrapped by a terminal, indented as a whole) is told by its
/// first [`PASTE_SAMPLE_BYTES`] (see [`errata_search::log::paste_shape`]).
pub fn read_into(
    mut source: impl io::Read,
    reader: &mut LogReader,
    skim: &mut Skim,
) -> Result<Read, InputError> {
    // One byte past the sample says whether the log goes on after it, as its length does for
    // a whole text.
    let mut start = Vec::new();
    (source.by_ref())
        .take(PASTE_SAMPLE_BYTES as u64 + 1)
        .read_to_end(&mut start)?;
    *reader = std::mem::take(reader).shaped(paste_shape(&String::from_utf8_lossy(&start)));
    let source = text_source(io::Cursor::new(start).chain(source))?;
    let lines = read_chunks(source, |lines, chunk| lines.push_into(chunk, reader, skim))?;
    Ok(lines.finish_into(reader, skim))
}

/// `source`, buffered, once its first bytes are checked to be text.
fn text_source<R: io::Read>(source: R) -> Result<BufReader<R>, InputError> {
    let mut source = BufReader::with_capacity(MAX_LINE_BYTES, source);
    check_text(source.fill_buf()?)?;
    Ok(source)
}

/// Offers `source`, checked to be text, to `push` a buffer at a time.
fn read_chunks<R: io::Read>(
    mut source: BufReader<R>,
    mut push: impl FnMut(&mut LineSplitter, &[u8]),
) -> Result<LineSplitter, InputError> {
    let mut lines = LineSplitter::default();
    loop {
        let chunk = source.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let consumed = chunk.len();
        push(&mut lines, chunk);
        source.consume(consumed);
    }
    Ok(lines)
}

/// Cuts a stream of bytes, given in chunks of any size, into lines: what [`read_into`] does
/// for a whole source, for output that arrives a piece at a time (`errata run`, `errata
/// watch`). Holds at most one line, of at most [`MAX_LINE_BYTES`].
#[derive(Debug, Default)]
pub struct LineSplitter {
    line: Vec<u8>,
    /// Room for a line begun in an earlier chunk and ended in this one.
    joined: Vec<u8>,
    cut: bool,
    read: Read,
}

impl LineSplitter {
    /// Hands each line that `chunk` completes to `each`; keeps the unfinished rest.
    pub fn push(&mut self, chunk: &[u8], each: &mut impl FnMut(&str)) {
        self.read.bytes += chunk.len() as u64;
        self.split(chunk, each);
    }

    /// Hands each line that `chunk` completes to `each`; keeps the unfinished rest.
    fn split(&mut self, mut chunk: &[u8], each: &mut impl FnMut(&str)) {
        while !chunk.is_empty() {
            let end = chunk.iter().position(|&b| b == b'\n');
            let piece = &chunk[..end.unwrap_or(chunk.len())];
            let room = MAX_LINE_BYTES.saturating_sub(self.line.len());
            self.line.extend_from_slice(&piece[..piece.len().min(room)]);
            self.cut |= piece.len() > room;
            match end {
                Some(i) => {
                    self.emit(each);
                    chunk = &chunk[i + 1..];
                }
                None => break,
            }
        }
    }

    /// As [`LineSplitter::push`], into `reader`: the runs of whole lines that `skim` takes
    /// are counted, not read, and the lines it held back are read before anything after them.
    pub fn push_into(&mut self, chunk: &[u8], reader: &mut LogReader, skim: &mut Skim) {
        self.read.bytes += chunk.len() as u64;
        let whole = memchr::memrchr(b'\n', chunk).map_or(0, |i| i + 1);
        let (mut run, rest) = chunk.split_at(whole);
        if !run.is_empty() && (!self.line.is_empty() || self.cut) {
            // A line begun in an earlier chunk ends in this one: it is offered alone, joined
            // in a buffer kept for the next time, and the rest of the run as it is, uncopied.
            let end = memchr::memchr(b'\n', run).map_or(run.len(), |i| i + 1);
            let first;
            (first, run) = run.split_at(end);
            if self.cut || self.line.len() + first.len() > MAX_LINE_BYTES {
                let each = &mut |line: &str| reader.line(line);
                release(skim, each);
                self.split(first, each);
            } else {
                let mut joined = std::mem::take(&mut self.joined);
                joined.clear();
                joined.extend_from_slice(&self.line);
                joined.extend_from_slice(first);
                self.line.clear();
                self.offer(&joined, reader, skim);
                self.joined = joined;
            }
        }
        if !run.is_empty() {
            self.offer(run, reader, skim);
        }
        self.split(rest, &mut |line: &str| reader.line(line));
    }

    /// Offers `run`, whole lines, to `skim`, or reads it if the skim does not take it.
    fn offer(&mut self, run: &[u8], reader: &mut LogReader, skim: &mut Skim) {
        match skim.take(reader, run) {
            Some(lines) => self.read.lines += lines as u64,
            None => {
                let each = &mut |line: &str| reader.line(line);
                release(skim, each);
                self.split(run, each);
            }
        }
    }

    /// As [`LineSplitter::finish`], into `reader`, after the lines `skim` held back.
    pub fn finish_into(self, reader: &mut LogReader, skim: &mut Skim) -> Read {
        let each = &mut |line: &str| reader.line(line);
        release(skim, each);
        self.finish(each)
    }

    /// The line begun and not finished yet, if any.
    pub fn partial(&self) -> Option<String> {
        (!self.line.is_empty()).then(|| String::from_utf8_lossy(&self.line).replace('\0', ""))
    }

    /// Hands the unfinished last line, if any, to `each`, and yields the counts.
    pub fn finish(mut self, each: &mut impl FnMut(&str)) -> Read {
        if !self.line.is_empty() || self.cut {
            self.emit(each);
        }
        self.read
    }

    /// Hands one line to `each` and starts the next.
    fn emit(&mut self, each: &mut impl FnMut(&str)) {
        self.line.retain(|&b| b != 0);
        each(&String::from_utf8_lossy(&self.line));
        self.read.lines += 1;
        self.read.cut_lines += u64::from(self.cut);
        self.line.clear();
        self.cut = false;
    }
}

/// Reads the whole lines `skim` held back (quiet ones: no NUL in them), each cut as
/// [`LineSplitter`] cuts a line.
fn release(skim: &mut Skim, each: &mut impl FnMut(&str)) {
    let held = skim.release();
    for line in held.split_inclusive(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        each(&String::from_utf8_lossy(
            &line[..line.len().min(MAX_LINE_BYTES)],
        ));
    }
}

/// Refuses a start that is not UTF-8 text: a UTF-16 byte-order mark, NULs in every other byte
/// (UTF-16 text without one), or mostly NULs (`/dev/zero`, a binary file).
fn check_text(start: &[u8]) -> Result<(), InputError> {
    if start.starts_with(&[0xFF, 0xFE]) || start.starts_with(&[0xFE, 0xFF]) {
        return Err(InputError::Utf16);
    }
    let looked = start.len().min(4096);
    let head = &start[..looked];
    let nul = head.iter().filter(|&&b| b == 0).count();
    if looked < 16 || nul * 10 < looked {
        return Ok(());
    }
    let odd_nul = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let even_nul = head.iter().step_by(2).filter(|&&b| b == 0).count();
    if (odd_nul * 10 > looked * 4 && even_nul * 10 < looked)
        || (even_nul * 10 > looked * 4 && odd_nul * 10 < looked)
    {
        return Err(InputError::Utf16);
    }
    if nul * 10 > looked * 3 {
        return Err(InputError::Binary { nul, looked });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `source` line by line into `each` (each line without its `\n`).
    fn read_lines(source: impl io::Read, mut each: impl FnMut(&str)) -> Result<Read, InputError> {
        let lines = read_chunks(text_source(source)?, |lines, chunk| {
            lines.push(chunk, &mut each)
        })?;
        Ok(lines.finish(&mut each))
    }

    fn lines(bytes: &[u8]) -> Result<(Vec<String>, Read), InputError> {
        let mut out = Vec::new();
        let read = read_lines(bytes, |l| out.push(l.to_owned()))?;
        Ok((out, read))
    }

    #[test]
    fn lines_as_split_would_give_them() {
        let (out, read) = lines(b"a\nb\r\n\nlast").unwrap();
        assert_eq!(out, ["a", "b\r", "", "last"]);
        assert_eq!((read.lines, read.bytes, read.cut_lines), (4, 10, 0));
        let (out, _) = lines(b"one\n").unwrap();
        assert_eq!(out, ["one"]);
        assert!(lines(b"").unwrap().0.is_empty());
    }

    #[test]
    fn a_long_line_keeps_its_start_and_the_next_line_is_whole() {
        let mut log = vec![b'x'; 3 * MAX_LINE_BYTES + 17];
        log.extend_from_slice(b"\nRuntimeError: after\n");
        let (out, read) = lines(&log).unwrap();
        assert_eq!(out[0].len(), MAX_LINE_BYTES);
        assert_eq!(out[1], "RuntimeError: after");
        assert_eq!(read.cut_lines, 1);
    }

    /// Chunks cut anywhere (inside a line, inside `\r\n`) give the lines the whole gives.
    #[test]
    fn chunks_give_the_lines_of_the_whole() {
        let log = b"first\r\nsecond line\n\nthird\rprogress\nno newline at the end";
        let (whole, _) = lines(log).unwrap();
        for size in 1..log.len() {
            let mut splitter = LineSplitter::default();
            let mut out = Vec::new();
            let mut each = |l: &str| out.push(l.to_owned());
            for chunk in log.chunks(size) {
                splitter.push(chunk, &mut each);
            }
            let read = splitter.finish(&mut each);
            assert_eq!(out, whole, "chunks of {size}");
            assert_eq!(read.bytes, log.len() as u64);
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_and_nul_dropped() {
        let (out, _) = lines(b"bad \xff byte\x00s\n").unwrap();
        assert_eq!(out, ["bad \u{fffd} bytes"]);
    }

    #[test]
    fn utf16_and_binary_are_refused() {
        let utf16: Vec<u8> = "RuntimeError: CUDA out of memory\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(matches!(lines(&utf16), Err(InputError::Utf16)));
        let mut bom = vec![0xFF, 0xFE];
        bom.extend_from_slice(&utf16);
        assert!(matches!(lines(&bom), Err(InputError::Utf16)));
        let zeros = vec![0u8; 100_000];
        assert!(matches!(lines(&zeros), Err(InputError::Binary { .. })));
    }

    /// An endless line (`/dev/zero` past its first bytes, say) is read in bounded memory.
    #[test]
    fn memory_stays_bounded_on_an_endless_line() {
        let endless = io::Read::take(io::repeat(b'y'), 50 * 1024 * 1024);
        let mut longest = 0;
        let read = read_lines(endless, |l| longest = longest.max(l.len())).unwrap();
        assert_eq!((read.lines, read.cut_lines), (1, 1));
        assert_eq!(longest, MAX_LINE_BYTES);
    }
}
