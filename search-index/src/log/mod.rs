//! Reading a noisy training log into the lines that carry errors.
//!
//! Takes the log, whole ([`read_log`]) or a line at a time ([`LogReader`]); yields
//! [`LogReport`]: how many lines were read and the distinct error lines, each with its first
//! line number, ranks, repeat count, kind, and whether it is collateral (an abort, a launcher
//! summary or another rank's timeout after the first error). Each physical line is cleaned
//! first ([`clean`]), then classified ([`classify`]); the last exception line of every
//! traceback is found, and repeats (the same error from 64 ranks) fold into one line. Work is
//! linear in the size of the log and memory is bounded by [`MAX_ERROR_LINES`]. A memory
//! summary or snapshot printed in the log is read for its numbers ([`memory`]). A paste a
//! terminal hard-wrapped has its lines joined again, and a paste indented as a whole loses the
//! indentation ([`paste_shape`]).

pub mod classify;
pub mod clean;
pub mod cues;
mod escaped;
mod frame;
mod innermost;
mod kept;
pub mod lengths;
pub mod memory;
#[cfg(test)]
mod message_tests;
mod paste;
pub mod progress;
mod rank;
mod reader;
mod relay;
pub mod skim;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod traceback_tests;
mod turned;
mod unwrap;
mod words;

use serde::Serialize;

pub use classify::{classify, is_collateral, is_launcher_summary};
pub use clean::{clean_line, strip_ansi, CleanLine};
pub use innermost::{innermost_python_frame, PythonFrame};
pub use paste::{paste_shape, PasteShape, PASTE_SAMPLE_BYTES};
pub use reader::{LogReader, MAX_ERROR_LINES};
pub use skim::Skim;

/// What an error line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineKind {
    /// The final exception line of a traceback (`RuntimeError: ...`).
    Exception,
    /// Another line carrying an error: `Error:`, NCCL and CUDA errors, `Killed`, NaN losses.
    Error,
    /// A warning, weaker evidence.
    Warning,
    /// A plain line of a log with no error line at all (a pasted message without the usual
    /// markers); the weakest evidence.
    Context,
}

/// One distinct error line of a log.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorLine {
    /// 1-based number of its first occurrence.
    pub line: usize,
    pub text: String,
    pub kind: LineKind,
    /// The ranks it was seen on, sorted, when the log names ranks.
    pub ranks: Vec<u32>,
    pub count: usize,
    /// An abort, a launcher summary or a consequence of an earlier error.
    pub collateral: bool,
    /// For an exception line: the lines just before it (frames, code, the caller's summary),
    /// which say where it was raised.
    #[serde(skip)]
    pub context: String,
    /// For an exception line: the plain lines right after it, at most
    /// [`reader::CONTINUED_LINES`], which are the rest of its message when a paste wrapped it
    /// (`Tried to allocate 7.31 GiB` then `(GPU 0; 11.92 GiB total capacity; ...)`).
    #[serde(skip)]
    pub continued: String,
    /// The same lines, each with its number: a message printed over several lines goes on in
    /// them, and they are matched on their own ([`crate::diagnose`]).
    #[serde(skip)]
    pub continuation: Vec<(usize, String)>,
    /// The most steps a progress line before it said the run had done, with that line's
    /// number ([`progress`]).
    #[serde(skip)]
    pub steps_before: Option<(u64, usize)>,
    /// The longest input a line before it said the run was given ([`lengths`]).
    #[serde(skip)]
    pub input_before: Option<lengths::InputLength>,
}

impl ErrorLine {
    /// The line with the lines that may continue its message, for reading numbers from.
    pub fn with_continuation(&self) -> std::borrow::Cow<'_, str> {
        if self.continued.is_empty() {
            std::borrow::Cow::Borrowed(&self.text)
        } else {
            std::borrow::Cow::Owned(format!("{} {}", self.text, self.continued))
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogReport {
    pub lines_read: usize,
    pub error_lines: Vec<ErrorLine>,
    /// Where each cue watched for first turned up (see [`LogReader::watching`]).
    pub cue_hits: Vec<cues::CueHit>,
    /// The numbers of a memory summary or snapshot printed in the log.
    #[serde(skip)]
    pub memory: Option<memory::MemoryDump>,
    /// The log ends inside a traceback: cut before its exception line.
    #[serde(skip)]
    pub cut_traceback: bool,
}

/// Reads a whole log.
pub fn read_log(text: &str) -> LogReport {
    read_log_with(text, LogReader::default())
}

/// How much of a whole log [`read_log_with`] offers [`Skim`] at a time.
const RUN_BYTES: usize = 64 * 1024;

/// Reads a whole log with `reader` (one watching for cues, say), skimming quiet runs; the way
/// it was pasted is told from its start ([`paste_shape`]), and a log a terminal hard-wrapped
/// is read whole.
pub fn read_log_with(text: &str, mut reader: LogReader) -> LogReport {
    reader = reader.shaped(paste_shape(text));
    let mut skim = Skim::new(&reader);
    let mut rest = text;
    while !rest.is_empty() {
        // A run of whole lines, cut after the last newline within RUN_BYTES (or the next
        // newline, for a longer line); the last line of the log may have none.
        let mut end = rest.len().min(RUN_BYTES);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let cut = memchr::memrchr(b'\n', &rest.as_bytes()[..end])
            .or_else(|| memchr::memchr(b'\n', rest.as_bytes()))
            .map_or(rest.len(), |i| i + 1);
        let (run, after) = rest.split_at(cut);
        rest = after;
        if run.ends_with('\n') && skim.take(&mut reader, run.as_bytes()).is_some() {
            continue;
        }
        read_run(&mut reader, &String::from_utf8_lossy(&skim.release()));
        read_run(&mut reader, run);
    }
    read_run(&mut reader, &String::from_utf8_lossy(&skim.release()));
    reader.finish()
}

/// Reads whole lines; a last line without its newline too (`lines()` semantics: a final
/// newline ends the last line rather than starting another).
fn read_run(reader: &mut LogReader, run: &str) {
    if run.is_empty() {
        return;
    }
    for physical in run.strip_suffix('\n').unwrap_or(run).split('\n') {
        reader.line(physical);
    }
}
