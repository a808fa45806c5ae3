//! Watching a log for cues: pieces of text that point at an entry without being an error line.
//!
//! Takes the cues to watch for, each a frame cue (found in a traceback frame, its file path or
//! function, or the source line printed under it) or a line cue (found in any line); the
//! reader reports where each first turns up. One Aho-Corasick automaton finds all of them in
//! one pass over each line.

use std::borrow::Cow;

use aho_corasick::AhoCorasick;
use serde::Serialize;

/// Where a cue counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CueKind {
    /// In a traceback frame or the code shown in one.
    Frame,
    /// In any line.
    Line,
    /// The function the first failing exception was raised in (its traceback's innermost
    /// frame), where one of the entry's signatures is raised (`raised_in:`): never watched for,
    /// the diagnosis finds it.
    RaisedIn,
}

impl CueKind {
    /// Whether the cue is found in a traceback frame.
    pub fn in_frame(self) -> bool {
        matches!(self, CueKind::Frame | CueKind::RaisedIn)
    }
}

/// The cues a reader watches for.
#[derive(Debug, Clone)]
pub struct CueSet {
    texts: Vec<String>,
    kinds: Vec<CueKind>,
    automaton: Option<AhoCorasick>,
}

/// Where a cue first turned up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CueHit {
    /// The cue's place in the set.
    pub cue: usize,
    pub line: usize,
    pub text: String,
}

/// Cues are reported once each, and at most this many in all.
pub const MAX_CUE_HITS: usize = 200;

impl CueSet {
    pub fn new(cues: &[(String, CueKind)]) -> CueSet {
        let automaton = (!cues.is_empty())
            .then(|| AhoCorasick::new(cues.iter().map(|(text, _)| text.as_str())).ok())
            .flatten();
        CueSet {
            texts: cues.iter().map(|(text, _)| text.clone()).collect(),
            kinds: cues.iter().map(|(_, kind)| *kind).collect(),
            automaton,
        }
    }

    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.texts.iter().map(String::as_str)
    }

    pub fn text(&self, cue: usize) -> &str {
        &self.texts[cue]
    }

    pub fn kind(&self, cue: usize) -> CueKind {
        self.kinds[cue]
    }

    /// The cues found in `text`, where a frame cue counts only when `in_frame`. A Windows
    /// traceback writes its paths with backslashes, and path cues are written with `/`
    /// (`torch/utils/data/_utils/worker.py`): a frame's backslashes are read as slashes.
    pub fn find(&self, text: &str, in_frame: bool) -> Vec<usize> {
        let Some(automaton) = &self.automaton else {
            return Vec::new();
        };
        let text = match in_frame && text.contains('\\') {
            true => Cow::Owned(text.replace('\\', "/")),
            false => Cow::Borrowed(text),
        };
        (automaton.find_overlapping_iter(text.as_ref()))
            .map(|m| m.pattern().as_usize())
            .filter(|&i| in_frame || self.kinds[i] == CueKind::Line)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_windows_frame_matches_a_path_cue() {
        let set = CueSet::new(&[
            (
                "torch/multiprocessing/reductions.py".to_owned(),
                CueKind::Frame,
            ),
            ("Out Of Memory".to_owned(), CueKind::Line),
        ]);
        let frame = r#"File "C:\envs\sd\lib\site-packages\torch\multiprocessing\reductions.py", line 120, in reduce_storage"#;
        assert_eq!(set.find(frame, true), [0]);
        assert!(
            set.find(frame, false).is_empty(),
            "a frame cue outside a frame"
        );
        assert_eq!(
            set.find("srun: error: n1: task 0: Out Of Memory", false),
            [1]
        );
    }
}
