//! The log reader: physical lines in, one at a time, a [`LogReport`] out.
//!
//! Holds what reading needs between lines and nothing more: for each rank, whether it is inside
//! a traceback, the last few lines it printed (an exception's context) and an IPython header
//! whose exception line has not come yet; the distinct error lines so far; and, until an error
//! line turns up, a few plain lines to stand in for one; and the numbers of a memory dump.
//! Memory is bounded whatever the length
//! of the log. Per-rank state is kept in rank order, so the report never depends on hash order.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::classify::{
    announces_what_follows, classify, classify_at, exception_head, exception_kind, is_collateral,
    is_launcher_summary, is_relay_of_what_follows, message_below,
};
use super::clean::{clean_line, is_level, CleanLine};
use super::cues::{CueHit, CueSet, MAX_CUE_HITS};
use super::escaped::escaped_lines;
use super::frame::is_frame;
use super::kept::KeptLines;
use super::memory::MemoryReader;
use super::paste::{line_number, PasteShape};
use super::rank::RankState;
use super::turned::turns_non_finite;
use super::unwrap::Unwrap;
use super::{lengths, progress};
use super::{ErrorLine, LineKind, LogReport};
use crate::tokenizer::terms;

/// Distinct error lines kept; a log with more keeps the first ones (the cause comes first).
pub const MAX_ERROR_LINES: usize = 400;
/// Plain lines kept in case the log has no error line at all.
const MAX_CONTEXT_LINES: usize = 100;
/// Plain lines looked at for those: a log with no error line in its first 100,000 lines has
/// its stand-ins from them (tokenizing every line of a long clean run was most of the time).
const MAX_CONTEXT_LOOKED: usize = 100_000;
/// Plain lines looked at in a row that gave no new stand-in, after which the log is taken to
/// repeat itself (a job's step lines) and looking ends: the stand-ins will not change.
const MAX_CONTEXT_REPEATS: usize = 2_000;
/// Ranks whose state is kept apart; the lines of further ranks are read as unranked ones.
pub const MAX_RANKS: usize = 16_384;
/// Lines before an exception kept as its context.
const CONTEXT_BEFORE: usize = 8;
/// Plain lines after an exception kept as the possible rest of its message.
pub const CONTINUED_LINES: usize = 3;

/// Reads a log a physical line at a time.
#[derive(Debug, Default, Clone)]
pub struct LogReader<'c> {
    /// The cues to watch for, if any.
    cues: Option<&'c CueSet>,
    /// Where the cues turned up, outside tracebacks and in finished ones, each cue once.
    cue_hits: Vec<CueHit>,
    cue_seen: HashSet<usize>,
    lines_read: usize,
    folded: Vec<ErrorLine>,
    /// Each folded line's place, by its fold key.
    by_key: HashMap<String, usize>,
    ranks: BTreeMap<Option<u32>, RankState>,
    first_error_seen: bool,
    /// Plain lines, kept while no error line has been found.
    context: Vec<ErrorLine>,
    context_keys: HashSet<String>,
    context_looked: usize,
    /// Plain lines looked at since the last new stand-in.
    context_repeats: usize,
    /// IPython headers whose traceback was followed by another before its exception line.
    headers: Vec<ErrorLine>,
    /// The memory summary or snapshot the log prints, if any.
    memory: MemoryReader,
    /// How the log was pasted: wrapped by a terminal, indented as a whole (see
    /// [`super::paste_shape`]).
    shape: PasteShape,
    /// The pieces of a wrapped paste, joined again.
    unwrap: Unwrap,
    /// The last lines that may say how many steps the run did.
    progress: KeptLines<progress::Progress>,
    /// The last lines that may say how long an input was.
    lengths: KeptLines<lengths::Lengths>,
}

/// What starts a Python traceback.
const TRACEBACK: &str = "Traceback (most recent call last)";

impl<'c> LogReader<'c> {
    /// A reader that also reports where each of `cues` first turns up.
    pub fn watching(cues: &'c CueSet) -> LogReader<'c> {
        LogReader {
            cues: Some(cues),
            ..LogReader::default()
        }
    }

    /// A reader of a log pasted in `shape`: a line a terminal cut at its width, or an editor
    /// broke at a space before its width, goes on in the next one and is read joined to it
    /// ([`super::unwrap`]); the indentation every line has is taken off.
    pub fn shaped(self, shape: PasteShape) -> LogReader<'c> {
        LogReader {
            shape,
            unwrap: Unwrap::new(shape),
            ..self
        }
    }

    /// Reads the next physical line, without its newline; a `\r` inside it starts a new
    /// segment, as a terminal would overwrite the line.
    pub fn line(&mut self, physical: &str) {
        self.lines_read += 1;
        if let Some((line, first)) = self.unwrap.push(physical, self.lines_read) {
            self.read_line(&line, first);
        }
    }

    /// Reads one line, whole again if a terminal wrapped it, as line `number`.
    fn read_line(&mut self, physical: &str, number: usize) {
        let physical = match self.shape.numbered {
            true => line_number(physical).map_or(physical, |(_, rest)| rest),
            false => physical,
        };
        let indent = physical.len() - physical.trim_start_matches(' ').len();
        let physical = &physical[indent.min(self.shape.indent)..];
        for segment in physical.split('\r') {
            match escaped_lines(segment) {
                Some(lines) => lines.iter().for_each(|l| self.read_segment(l, number)),
                None => self.read_segment(segment, number),
            }
        }
    }

    /// Reads one segment of line `number` (a terminal's `\r` or an escaped `\n` ends one).
    fn read_segment(&mut self, segment: &str, number: usize) {
        let cleaned = clean_line(segment);
        // A progress bar's count is read before cleaning, which drops the bar.
        self.offer_kept(segment, cleaned.as_ref().and_then(|l| l.rank), number);
        if let Some(mut line) = cleaned {
            // Each rank's state is small, but a log could name any number of ranks.
            if line.rank.is_some_and(|r| {
                self.ranks.len() >= MAX_RANKS && !self.ranks.contains_key(&Some(r))
            }) {
                line.rank = None;
            }
            self.segment(line, number);
        }
    }

    /// Notes the cues `line` holds: kept with the traceback being read, or counted at once.
    fn find_cues(&mut self, line: &CleanLine, number: usize) {
        let state = self.ranks.entry(line.rank).or_default();
        if let Some(cues) = self.cues {
            // A traceback's exception line is its message, not a frame: `(while checking
            // arguments for cudnn_convolution)` names a function without being raised in it.
            let in_frame = (state.in_traceback && !exception_head(&line.text))
                || line.indented()
                || is_frame(&line.text);
            for cue in cues.find(&line.text, in_frame) {
                let hit = CueHit {
                    cue,
                    line: number,
                    text: line.text.clone(),
                };
                // A traceback's cues count once its exception line shows it is not a
                // consequence of another error (a launcher's summary, say).
                if state.in_traceback {
                    if state.cues.len() < MAX_CUE_HITS {
                        state.cues.push(hit);
                    }
                } else if !(self.first_error_seen && is_collateral(&line.text))
                    && self.cue_seen.insert(cue)
                {
                    self.cue_hits.push(hit);
                }
            }
        }
    }

    fn segment(&mut self, line: CleanLine, number: usize) {
        // Before the cues: a traceback's cues wait for its exception line.
        self.ranks
            .entry(line.rank)
            .or_default()
            .open_at_frame(&line);
        self.find_cues(&line, number);
        self.memory.line(&line.text, number);
        let Some(line) = self.message_of_awaiting(line) else {
            return;
        };
        if let Some(at) = line.text.find(TRACEBACK) {
            let header = ipython_header(&line, at, number);
            if header.is_none() {
                self.lead_in(&line, at, number);
                if self.flattened(&line, at, number) {
                    return;
                }
            }
            let state = self.ranks.entry(line.rank).or_default();
            if let Some(unfinished) = std::mem::replace(&mut state.pending, header) {
                // Of several headers naming one exception, the earliest is kept.
                if self.headers.len() < MAX_ERROR_LINES
                    && !self.headers.iter().any(|h| h.text == unfinished.text)
                {
                    self.headers.push(unfinished);
                }
            }
            state.open_at_header(line.indent);
            return;
        }
        let state = self.ranks.entry(line.rank).or_default();
        let (ends_traceback, cut_cues) = state.ends_at(&line);
        for hit in cut_cues {
            if self.cue_seen.insert(hit.cue) {
                self.cue_hits.push(hit);
            }
        }
        let kind = if ends_traceback {
            if line
                .text
                .starts_with("During handling of the above exception")
                || line
                    .text
                    .starts_with("The above exception was the direct cause")
            {
                return;
            }
            state.in_traceback = false;
            state.pending = None;
            let cues = std::mem::take(&mut state.cues);
            if !(self.first_error_seen && is_collateral(&line.text)) {
                for hit in cues {
                    if self.cue_seen.insert(hit.cue) {
                        self.cue_hits.push(hit);
                    }
                }
            }
            let kind = exception_kind(&line.text);
            if line.text.ends_with(':') && exception_head(&line.text) {
                state.awaiting = Some((line, kind, number));
                return;
            }
            Some(kind)
        } else if state.in_traceback {
            state.note_raise(&line, number);
            None
        } else if let Some(text) = message_below(&line.text) {
            let kind = exception_kind(&text);
            state.awaiting = Some((CleanLine { text, ..line }, kind, number));
            return;
        } else {
            classify_at(&line.text, line.level, line.indented())
        };
        match kind {
            None => self.plain(line, number),
            Some(kind) => self.error(line, kind, number),
        }
    }

    /// Offers a segment of a line outside a traceback (of `rank`) as one that may say how many
    /// steps the run has done or how long an input was.
    fn offer_kept(&mut self, segment: &str, rank: Option<u32>, number: usize) {
        if self.ranks.get(&rank).is_some_and(|r| r.in_traceback) {
            return;
        }
        self.progress.offer(segment, number);
        self.lengths.offer(segment, number);
    }

    /// The next line after an exception line that awaits its message: the message, joined to
    /// it (`None`: nothing left to read of `line`), or the line itself, the exception line
    /// kept alone.
    fn message_of_awaiting(&mut self, line: CleanLine) -> Option<CleanLine> {
        let state = self.ranks.entry(line.rank).or_default();
        let Some((mut head, kind, number)) = state.awaiting.take() else {
            return Some(line);
        };
        let is_message = !line.text.contains(TRACEBACK)
            && classify(&line.text).is_none()
            && !is_frame(&line.text);
        if is_message {
            head.text.push(' ');
            head.text.push_str(&line.text);
        }
        self.error(head, kind, number);
        (!is_message).then_some(line)
    }

    /// A logger's message that ends in the traceback it prints (`Exception in worker ...:
    /// <message>, Traceback (most recent call last):`): the message is a line of its own.
    fn lead_in(&mut self, line: &CleanLine, at: usize, number: usize) {
        let text = line.text[..at].trim_end_matches([',', ':', ' ']);
        if text.is_empty() || is_record_head(text) {
            return;
        }
        let lead = CleanLine {
            text: text.to_owned(),
            ..line.clone()
        };
        // A message that carries no error mark of its own (a tool's result printed as a dict,
        // `{'status': 'error', 'message': '...', 'traceback': 'Traceback (most recent call
        // last):\n...'}`) is still a line the log shows: a plain one, a stand-in when the log
        // has no error line. So is a structured record's head before its escaped traceback
        // (`{"level": "ERROR", "msg": "training failed", "exc_info": "`): its level is a field,
        // and the traceback says what failed.
        let record_head = text.starts_with('{') && !text.ends_with('}');
        match classify_at(text, line.level, false) {
            Some(kind) if !record_head => self.error(lead, kind, number),
            _ => self.plain(lead, number),
        }
    }

    /// A whole traceback on one line, as a paste that lost its newlines gives it (`Traceback
    /// (most recent call last): File "x.py", line 3, in <module> ... RuntimeError: ...`): its
    /// last exception head starts the exception line, and what comes before is its context.
    fn flattened(&mut self, line: &CleanLine, at: usize, number: usize) -> bool {
        let rest = line.text[at + TRACEBACK.len()..].trim_start_matches([')', ':', ' ']);
        let Some(head) = (rest.char_indices())
            .filter(|&(i, _)| i == 0 || rest[..i].ends_with(' '))
            .map(|(i, _)| i)
            .filter(|&i| exception_head(&rest[i..]))
            .last()
        else {
            return false;
        };
        let state = self.ranks.entry(line.rank).or_default();
        state.recent.clear();
        state.recent.push_back(rest[..head].trim().to_owned());
        let exception = CleanLine {
            text: rest[head..].to_owned(),
            ..line.clone()
        };
        let kind = exception_kind(&exception.text);
        self.error(exception, kind, number);
        true
    }

    /// A line that carries no error: the context of what follows, and a stand-in while the
    /// log has shown no error line.
    fn plain(&mut self, line: CleanLine, number: usize) {
        // A progress line whose numbers turned NaN or Inf, printed like the one before it.
        let before = (self.ranks.get(&line.rank)).and_then(|s| s.recent.back());
        if before.is_some_and(|b| turns_non_finite(b, &line.text)) {
            self.error(line, LineKind::Warning, number);
            return;
        }
        let state = self.ranks.entry(line.rank).or_default();
        if let Some((at, left)) = state.continuing.take() {
            let continued = &mut self.folded[at].continued;
            if !continued.is_empty() {
                continued.push(' ');
            }
            continued.push_str(&line.text);
            // A logger's record or a launcher's report is a line of its own, not the rest of
            // the message.
            if line.level.is_none() && !is_launcher_summary(&line.text) {
                (self.folded[at].continuation).push((number, line.text.clone()));
            }
            state.continuing = (left > 1).then_some((at, left - 1));
        }
        let before = &mut state.recent;
        if before.len() == CONTEXT_BEFORE {
            before.pop_front();
        }
        before.push_back(line.text.clone());
        if self.stand_ins_chosen() || line.indented() || is_frame(&line.text) {
            return;
        }
        self.context_looked += 1;
        let key = fold_key(&line.text);
        self.context_repeats += 1;
        if key.split(' ').count() >= 4 && self.context_keys.insert(key) {
            self.context_repeats = 0;
            self.context.push(ErrorLine {
                line: number,
                text: line.text,
                kind: LineKind::Context,
                ranks: line.rank.into_iter().collect(),
                count: 1,
                collateral: false,
                context: String::new(),
                continued: String::new(),
                continuation: Vec::new(),
                steps_before: None,
                input_before: None,
            });
        }
    }

    /// A line that carries an error: folded into an earlier one with the same terms, or kept.
    fn error(&mut self, line: CleanLine, kind: LineKind, number: usize) {
        self.ranks.entry(line.rank).or_default().continuing = None;
        // A re-raise that announces a worker's exception is collateral to it, though printed
        // first.
        let relay = is_relay_of_what_follows(&line.text);
        let collateral = relay || (self.first_error_seen && is_collateral(&line.text));
        let key = fold_key(&line.text);
        if key.is_empty() {
            return;
        }
        if let Some(&at) = self.by_key.get(&key) {
            let e = &mut self.folded[at];
            e.count += 1;
            if let Some(rank) = line.rank {
                if !e.ranks.contains(&rank) {
                    e.ranks.push(rank);
                    e.ranks.sort_unstable();
                }
            }
            if kind < e.kind {
                e.kind = kind;
            }
            return;
        }
        if self.folded.len() >= MAX_ERROR_LINES {
            return;
        }
        self.by_key.insert(key, self.folded.len());
        let state = self.ranks.entry(line.rank).or_default();
        if kind == LineKind::Exception || announces_what_follows(&line.text) {
            state.continuing = Some((self.folded.len(), CONTINUED_LINES));
        }
        let before = &mut state.recent;
        let context = if kind == LineKind::Exception {
            before
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            String::new()
        };
        before.clear();
        // The first error line is what later launcher summaries and aborts follow from,
        // whatever its own wording (a rank's watchdog timeout may be the first thing printed).
        if kind != LineKind::Warning && !relay {
            self.first_error_seen = true;
        }
        self.folded.push(ErrorLine {
            line: number,
            text: line.text,
            kind,
            ranks: line.rank.into_iter().collect(),
            count: 1,
            collateral,
            context,
            continued: String::new(),
            continuation: Vec::new(),
            steps_before: progress::most_steps(&self.progress),
            input_before: lengths::longest(&self.lengths),
        });
    }

    /// Whether plain lines read next would change nothing but the context of what follows:
    /// no traceback is open, no exception waits for its message, no memory block is half
    /// read, and the stand-ins for a log without errors are chosen. [`Skim`](super::Skim)
    /// passes over quiet runs only then.
    pub fn settled(&self) -> bool {
        self.unwrap.is_plain()
            && self.stand_ins_chosen()
            && self.memory.settled()
            && self.ranks.values().all(|r| {
                !r.in_traceback
                    && r.awaiting.is_none()
                    && r.pending.is_none()
                    && r.continuing.is_none()
            })
    }

    /// Whether plain lines are no longer looked at as stand-ins: the log has shown an error,
    /// or enough of them are chosen, or enough lines were looked at.
    fn stand_ins_chosen(&self) -> bool {
        !self.folded.is_empty()
            || self.context.len() >= MAX_CONTEXT_LINES
            || self.context_looked >= MAX_CONTEXT_LOOKED
            || self.context_repeats >= MAX_CONTEXT_REPEATS
    }

    /// Counts `lines` plain lines passed over unread.
    pub fn skip(&mut self, lines: usize) {
        self.lines_read += lines;
    }

    /// The texts of the cues watched for.
    pub fn cue_texts(&self) -> impl Iterator<Item = &str> {
        self.cues.into_iter().flat_map(CueSet::texts)
    }

    /// Error lines found so far (distinct ones, IPython headers still waiting for their
    /// exception, and the `raise` a traceback stops at so far): a count that grows when the
    /// log shows a new error.
    pub fn errors_found(&self) -> usize {
        let waiting = |r: &&RankState| r.pending.is_some() || r.has_cut_error();
        self.folded.len() + self.headers.len() + self.ranks.values().filter(waiting).count()
    }

    /// The report of everything read so far, reading on afterwards (`errata watch`): what
    /// [`LogReader::finish`] would give if the log ended here.
    pub fn snapshot(&self) -> LogReport {
        self.clone().finish()
    }

    /// The report of everything read.
    pub fn finish(mut self) -> LogReport {
        if let Some((joined, first)) = self.unwrap.finish() {
            self.read_line(&joined, first);
        }
        let awaiting: Vec<_> = (self.ranks.values_mut())
            .filter_map(|state| state.awaiting.take())
            .collect();
        for (line, kind, number) in awaiting {
            self.error(line, kind, number);
        }
        let raised: Vec<_> = (self.ranks.values_mut())
            .filter_map(RankState::cut_error)
            .collect();
        for (line, kind, number) in raised {
            self.error(line, kind, number);
        }
        let mut pending = Vec::new();
        let mut cut_traceback = false;
        for state in self.ranks.into_values() {
            cut_traceback |= state.in_traceback;
            // A traceback cut before its exception line: its frames are all there is.
            self.cue_hits.extend(state.cues);
            pending.extend(state.pending);
        }
        self.headers.extend(pending);
        // Each cue once, where it first turned up.
        self.cue_hits.sort_by_key(|h| h.line);
        let mut seen = HashSet::new();
        self.cue_hits.retain(|h| seen.insert(h.cue));
        // Of several headers naming one exception, the earliest is kept.
        self.headers.sort_by_key(|h| h.line);
        for header in self.headers {
            if self.folded.len() < MAX_ERROR_LINES
                && !self.folded.iter().any(|e| e.text == header.text)
            {
                self.folded.push(header);
            }
        }
        self.folded.sort_by_key(|e| e.line);
        // A launcher's report that a child failed says nothing of why: when it is all the log
        // calls an error, the plain lines before it (the child's message, its head cut off)
        // are read too.
        let launcher_only =
            !self.folded.is_empty() && (self.folded.iter()).all(|e| is_launcher_summary(&e.text));
        if launcher_only {
            let mut folded = std::mem::take(&mut self.context);
            folded.retain(|c| c.line < self.folded[0].line);
            folded.append(&mut self.folded);
            self.folded = folded;
        }
        LogReport {
            cut_traceback,
            memory: self.memory.finish(),
            lines_read: self.lines_read,
            cue_hits: self.cue_hits,
            error_lines: if self.folded.is_empty() {
                self.context
            } else {
                self.folded
            },
        }
    }
}

/// A logger's record head with no message: its level and at most its logger's name, as
/// `logging.error(traceback.format_exc())` puts before a traceback (`ERROR:root:`, Hydra's
/// `[__main__][ERROR] - `).
fn is_record_head(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| matches!(c, ':' | ' ' | '[' | ']' | '-' | '|'))
        .filter(|w| !w.is_empty())
        .collect();
    let levels = words.iter().filter(|w| is_level(w)).count();
    levels == 1 && words.len() <= 2
}

/// IPython names the exception in its traceback header (`RuntimeError    Traceback (most
/// recent call last)`): kept in case the traceback is cut before its last line.
fn ipython_header(line: &CleanLine, at: usize, number: usize) -> Option<ErrorLine> {
    let class = line.text[..at].trim();
    (!class.is_empty() && exception_head(class)).then(|| ErrorLine {
        line: number,
        text: class.to_owned(),
        kind: LineKind::Error,
        ranks: line.rank.into_iter().collect(),
        count: 1,
        collateral: false,
        context: String::new(),
        continued: String::new(),
        continuation: Vec::new(),
        steps_before: None,
        input_before: None,
    })
}

fn fold_key(text: &str) -> String {
    terms(text).join(" ")
}
