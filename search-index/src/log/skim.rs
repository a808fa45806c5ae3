//! Skimming: passing over the stretches of a log that cannot change what the reader reports.
//!
//! Takes runs of whole lines as they come. When the reader is settled (no traceback open, no
//! exception waiting for its message, no memory block half read, its stand-in lines chosen)
//! and no line of a run holds a word that could make it more than a plain line (the markers
//! [`classify`](super::classify) looks for, the level words of a logger's prefix, the labels
//! of a memory dump, the cues watched for), the run is counted and not read; only its last
//! [`HELD_LINES`] lines are held, and read before whatever comes next unless another quiet
//! run follows, so an error still has the lines just before it as its context. A training
//! job's step lines are such runs: skimming is what lets `errata run` keep up with a job that
//! prints 50 MB/s, and `errata diagnose` read a gigabyte in seconds.
//!
//! The words are looked for all at once, by short pieces of them and SIMD ([`Words`]), and
//! they are a superset: a run that holds one is read line by line, as if there were no
//! skimming. What skimming can change is only the context of a rank that printed nothing in
//! the last [`HELD_LINES`] lines before its error, and a word split by a colour code
//! (`Err\x1b[0mor`, or `\x1b[31mE1203` for a level), which the reader would join.

use super::classify::{ERROR_MARKERS, EXCEPTION_ENDINGS};
use super::reader::LogReader;
use super::words::Words;

/// The lines of a skimmed run kept to be read if an error follows.
pub const HELD_LINES: usize = 256;

/// Words that can make a line more than a plain one, besides the markers of `classify` and
/// the endings of an exception's name.
const WORDS: [&str; 11] = [
    "traceback",
    "warning",
    "critical",
    "fatal",
    "non-finite",
    "exception raised from",
    // A memory dump's summary rows and snapshot blocks.
    "reserved memory",
    "allocated memory",
    "non-releasable memory",
    "size': ",
    "'state': ",
];

/// Words that count only as whole words (`loss=nan`, not `nano`; `inf`, not `info`).
const WHOLE_WORDS: [&str; 2] = ["nan", "inf"];

/// The level letters of a logger's prefix (`E1203`, `[E ...]`: capitals, as the reader reads
/// them), which count only between these bytes.
const LEVEL_LETTERS: [u8; 2] = [b'E', b'F'];
const BEFORE_LEVEL: &[u8] = b"\n\r \t\x0b\x0c[]:|-";
const AFTER_LEVEL: &[u8] = b"\n\r \t\x0b\x0c[]:|-0123456789";

/// Watches runs of whole lines for the words that make them worth reading.
#[derive(Debug, Clone)]
pub struct Skim {
    words: Words,
    held: Vec<u8>,
    held_lines: usize,
}

impl Skim {
    /// A skim for `reader`, which watches for its cues too.
    pub fn new(reader: &LogReader) -> Skim {
        let mut plain: Vec<String> = ERROR_MARKERS
            .iter()
            .chain(EXCEPTION_ENDINGS.iter())
            .chain(WORDS.iter())
            .map(|w| w.to_string())
            .chain(reader.cue_texts().map(str::to_owned))
            .collect();
        // The reader collapses every run of whitespace (a tab, two spaces, a no-break space)
        // into one space: a phrase is looked for by its longest word, which it keeps.
        for w in &mut plain {
            if w.contains(char::is_whitespace) {
                *w = w
                    .split(char::is_whitespace)
                    .max_by_key(|piece| piece.len())
                    .unwrap_or_default()
                    .to_owned();
            }
        }
        let words = Words::new(plain.iter().map(String::as_str), WHOLE_WORDS);
        Skim {
            words,
            held: Vec::new(),
            held_lines: 0,
        }
    }

    /// Takes `run` (whole lines, each ending in `\n`) if it can be passed over, counting its
    /// lines in `reader`, and yields how many it had; `None` means the caller reads it, after
    /// [`Skim::release`].
    pub fn take(&mut self, reader: &mut LogReader, run: &[u8]) -> Option<usize> {
        if !reader.settled() || !self.quiet(run) {
            return None;
        }
        let lines = memchr::memchr_iter(b'\n', run).count();
        // The last HELD_LINES lines of all that was taken, whatever the runs' sizes (a job
        // that prints a line per write gives runs of one line).
        let tail = tail_start(run, HELD_LINES);
        if tail > 0 {
            reader.skip(self.held_lines);
            self.held.clear();
            self.held_lines = 0;
        }
        self.held.extend_from_slice(&run[tail..]);
        self.held_lines += lines.min(HELD_LINES);
        if self.held_lines > HELD_LINES {
            let over = self.held_lines - HELD_LINES;
            let cut = tail_start(&self.held, HELD_LINES);
            self.held.drain(..cut);
            self.held_lines = HELD_LINES;
            reader.skip(over);
        }
        reader.skip(lines - lines.min(HELD_LINES));
        Some(lines)
    }

    /// The lines held back from the last run taken (whole lines, each ending in `\n`), to be
    /// read now, before anything that came after them.
    pub fn release(&mut self) -> Vec<u8> {
        self.held_lines = 0;
        std::mem::take(&mut self.held)
    }

    /// Whether no line of `run` holds a word that could make it more than a plain line. A
    /// NUL counts as one: the line reader drops it, joining what was on either side.
    fn quiet(&mut self, run: &[u8]) -> bool {
        !has_level_letter(run) && memchr::memchr(0, run).is_none() && !self.words.found_in(run)
    }

    /// How many grams the words are looked for by, and whether with Teddy (see
    /// [`Words`]); for tests and benchmarks.
    pub fn grams(&self) -> (usize, bool) {
        self.words.grams()
    }
}

/// `E1203`, `[E `, ` F:` ...: a level letter between the bytes a prefix separates words with
/// (or at a line's start).
fn has_level_letter(run: &[u8]) -> bool {
    memchr::memchr2_iter(LEVEL_LETTERS[0], LEVEL_LETTERS[1], run).any(|i| {
        let before = i.checked_sub(1).map(|j| run[j]);
        before.is_none_or(|b| BEFORE_LEVEL.contains(&b))
            && run.get(i + 1).is_none_or(|a| AFTER_LEVEL.contains(a))
    })
}

/// Where the last `lines` lines of `run` (whole lines) begin.
fn tail_start(run: &[u8], lines: usize) -> usize {
    // The run ends in `\n`: the (lines + 1)-th newline from the end precedes the tail.
    memchr::memrchr_iter(b'\n', run)
        .nth(lines)
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skim() -> Skim {
        Skim::new(&LogReader::default())
    }

    #[test]
    fn step_lines_are_quiet_and_errors_are_not() {
        let mut s = skim();
        assert!(s.quiet(b"[rank3]: step 120 loss 1.2345 lr 3e-4 grad_norm 0.91\n"));
        assert!(s.quiet(b"2024-05-01 10:00:00 INFO trainer: epoch 2, information kept\n"));
        for line in [
            &b"step 5 loss nan\n"[..],
            b"RuntimeError: boom\n",
            b"E1203 12:00:00.000 123 nccl.cc:10] x\n",
            b"ok\n[E ProcessGroupNCCL.cpp:475] x\n",
            b"| Allocated memory | 10 GiB |\n",
            b"a\0b\n",
            b"KeyboardInterrupt\n",
            b"grad_norm: inf\n",
        ] {
            assert!(!s.quiet(line), "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn runs_of_one_line_hold_the_last_lines_of_them_all() {
        let mut reader = LogReader::default();
        reader.line("RuntimeError: boom");
        // The lines that may continue its message are read before the reader settles.
        for _ in 0..3 {
            reader.line("after");
        }
        let mut s = skim();
        for i in 0..1000 {
            assert_eq!(
                s.take(&mut reader, format!("step {i}\n").as_bytes()),
                Some(1)
            );
        }
        let held = String::from_utf8(s.release()).unwrap();
        assert_eq!(held.lines().count(), HELD_LINES);
        assert!(
            held.starts_with(&format!("step {}\n", 1000 - HELD_LINES)),
            "{held:.40}"
        );
        for line in held.lines() {
            reader.line(line);
        }
        assert_eq!(reader.finish().lines_read, 1004);
    }

    #[test]
    fn whole_words_next_to_other_characters_are_found() {
        let mut s = skim();
        for line in [
            "loss：nan\n",
            "loss=nan…\n",
            "E4001: bad config\n",
            "a\x0bE x\n",
        ] {
            assert!(!s.quiet(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn a_log_that_repeats_itself_settles_long_before_its_stand_ins_are_all_looked_at() {
        let mut reader = LogReader::default();
        let mut s = skim();
        let step = |i: usize| {
            format!(
                "[rank{}]: step {i} loss 1.2345 grad_norm 0.9 tokens/s 12\n",
                i % 8
            )
        };
        reader.line("training starts with eight ranks and a warm cache");
        let mut read = 0;
        while s.take(&mut reader, step(read).as_bytes()).is_none() {
            reader.line(step(read).trim_end());
            read += 1;
            assert!(read < 10_000, "still reading every line");
        }
        // The first step line is a new stand-in; the 2,000 after it repeat it.
        assert_eq!(read, 2_001);
        // The stand-ins chosen are the two kinds of line the log has.
        let report = reader.finish();
        assert_eq!(report.error_lines.len(), 2, "{:?}", report.error_lines);
    }

    #[test]
    fn the_tail_is_the_last_lines() {
        let run = b"a\nb\nc\n";
        assert_eq!(tail_start(run, 2), 2);
        assert_eq!(tail_start(run, 3), 0);
        assert_eq!(tail_start(run, 9), 0);
    }
}
