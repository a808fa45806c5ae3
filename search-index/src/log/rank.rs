//! What the log reader keeps of one rank's output between its lines.
//!
//! Takes the rank's lines as the reader reads them; holds whether a traceback is open (and how
//! deep its header was, or that a paste cut it above its frames), the last lines (an
//! exception's context), the traceback's cues until its exception line, its last `raise` or
//! `assert` statement, and the exception line that awaits its message; tells whether a line
//! ends the traceback.

use std::collections::VecDeque;

use super::classify::{classify_at, exception_head};
use super::clean::CleanLine;
use super::cues::CueHit;
use super::frame::{is_file_frame, is_frame, is_name_char, is_path_frame, is_python_frame};
use super::{ErrorLine, LineKind};

/// What the reader keeps of one rank's output.
#[derive(Debug, Default, Clone)]
pub(super) struct RankState {
    pub(super) in_traceback: bool,
    /// The indentation of the traceback's header: its exception line is no deeper (a traceback
    /// relayed inside another program's output is indented as a whole).
    pub(super) traceback_indent: usize,
    /// The rank's last lines, the context of an exception that follows them.
    pub(super) recent: VecDeque<String>,
    /// An IPython traceback header naming an exception whose final line has not come (yet).
    pub(super) pending: Option<ErrorLine>,
    /// Cues found in the traceback being read, kept until its exception line.
    pub(super) cues: Vec<CueHit>,
    /// An exception line with nothing after its colon, whose message is on the next line
    /// (`RuntimeError:` then an indented paragraph), with its kind and line number.
    pub(super) awaiting: Option<(CleanLine, LineKind, usize)>,
    /// The exception line just read (its place among the folded lines) and how many of the
    /// plain lines that follow may still continue its message.
    pub(super) continuing: Option<(usize, usize)>,
    /// The last line was a traceback frame no deeper than the traceback's header: a relay that
    /// dropped the indentation (a container's or a launcher's logger), so the next line is the
    /// frame's source line unless it is an exception head. A frame printed without source
    /// (`<frozen ...>`) followed by an exception line whose class `exception_head` does not
    /// know is read as source there, and the traceback ends at the next line.
    pub(super) flat_frame: bool,
    /// The last line was a frame named by its file (`rich`'s, which wraps long ones): a next
    /// line that is one name is the rest of its function's name.
    pub(super) function_next: bool,
    /// The traceback being read began at a frame, its header cut off by the paste.
    pub(super) headerless: bool,
    /// The traceback's last line, when it is a frame's `raise` or `assert` statement (and
    /// its number).
    pub(super) cut_raise: Option<(CleanLine, usize)>,
}

impl RankState {
    /// Opens a traceback at its header, indented by `indent`.
    pub(super) fn open_at_header(&mut self, indent: usize) {
        self.open(indent);
        self.headerless = false;
        self.recent.clear();
    }

    /// Opens a traceback at `line` when it is a Python frame outside any (and no exception
    /// awaits its message): a paste cut above it. Its header would have been two columns left
    /// of the frame.
    pub(super) fn open_at_frame(&mut self, line: &CleanLine) {
        if self.in_traceback || self.awaiting.is_some() || !is_python_frame(&line.text) {
            return;
        }
        self.open(line.indent.saturating_sub(2));
        self.headerless = true;
    }

    fn open(&mut self, indent: usize) {
        self.in_traceback = true;
        self.continuing = None;
        self.flat_frame = false;
        self.traceback_indent = indent;
        self.cut_raise = None;
    }

    /// Whether `line` ends the traceback being read, at what is read as its exception line
    /// (after a header, any line that ends it: the caller tells the chaining lines apart).
    /// Frames whose header a paste cut that end at a line reading as no exception close
    /// without one: their cues are handed back with `false`, and the line is read as any
    /// other.
    pub(super) fn ends_at(&mut self, line: &CleanLine) -> (bool, Vec<CueHit>) {
        let ends = self.ends_traceback(line);
        if !(self.in_traceback && ends) {
            return (false, Vec::new());
        }
        self.cut_raise = None;
        if std::mem::take(&mut self.headerless) && !exception_head(&line.text) {
            self.in_traceback = false;
            return (false, std::mem::take(&mut self.cues));
        }
        (true, Vec::new())
    }

    /// Notes `line`, a line inside the traceback: the traceback's last line so far is a
    /// frame's `raise` or `assert` statement, or it is not. (Python's `^^^` markers under a
    /// statement are no line by then: cleaning drops them.)
    pub(super) fn note_raise(&mut self, line: &CleanLine, number: usize) {
        let raises = ["raise ", "assert "]
            .iter()
            .any(|s| line.text.starts_with(s));
        let raises = raises && !is_frame(&line.text);
        self.cut_raise = raises.then(|| (line.clone(), number));
    }

    /// The statement a traceback the log ends in stops at, when it is its last frame's
    /// `raise` or `assert`: an error line, all the log shows of the exception, with its kind.
    pub(super) fn cut_error(&mut self) -> Option<(CleanLine, LineKind, usize)> {
        let kind = self.cut_kind()?;
        let (line, number) = self.cut_raise.take()?;
        Some((line, kind, number))
    }

    /// Whether the traceback would give [`RankState::cut_error`] if the log ended here.
    pub(super) fn has_cut_error(&self) -> bool {
        self.cut_kind().is_some()
    }

    fn cut_kind(&self) -> Option<LineKind> {
        let (line, _) = self.cut_raise.as_ref().filter(|_| self.in_traceback)?;
        // Read as any line: a raise of a class no marker names (`ProcessRaisedException`,
        // whose child's error is elsewhere) says too little.
        classify_at(&line.text, line.level, true)
    }

    /// Whether `line` ends the traceback being read (if one is): a line no deeper than its
    /// header that is neither a frame nor the source line of a frame whose indentation a relay
    /// dropped; or, deeper, an exception with its message, which no source line is (TensorFlow
    /// prints the error a traced function raised indented under its frames).
    fn ends_traceback(&mut self, line: &CleanLine) -> bool {
        if self.in_traceback && line.indent > self.traceback_indent && nested_exception(&line.text)
        {
            self.flat_frame = false;
            return true;
        }
        let function = std::mem::take(&mut self.function_next)
            && !line.text.is_empty()
            && line.text.chars().all(is_name_char);
        let frame = function || is_frame(&line.text);
        self.function_next = frame && is_path_frame(&line.text);
        let source_of_flat_frame =
            self.in_traceback && self.flat_frame && !frame && !exception_head(&line.text);
        self.flat_frame = self.in_traceback
            && frame
            && is_file_frame(&line.text)
            && line.indent <= self.traceback_indent;
        line.indent <= self.traceback_indent && !frame && !source_of_flat_frame
    }
}

/// An exception line with a message (`ValueError: No loss found. ...`), as a line indented
/// inside a traceback may be, where a source line never is.
fn nested_exception(text: &str) -> bool {
    exception_head(text)
        && text
            .split_once(": ")
            .is_some_and(|(_, message)| !message.trim().is_empty())
}
