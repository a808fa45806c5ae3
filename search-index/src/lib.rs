//! errata-search: everything about search, for the `errata` binary and the browser alike.
//!
//! The modules follow the data flow: [`schema`] names the fields and their weights, [`tokenizer`]
//! turns error text into terms, [`writer`] indexes [`Document`]s into one [`bundle`] file,
//! [`searcher`] opens a bundle and answers queries (with [`vocabulary`]: which words define a
//! signature; `prose`: tantivy's BM25 over the other fields; and `signature_score`: BM25 on each
//! signature apart), [`first`] splits the signature fields into small files a browser answers its
//! first query from, [`log`] reads a noisy training log into the lines that carry errors, and
//! [`diagnose`] queries with those lines and names the failure with its evidence. Input is plain
//! types, not the generator's structs, and the search path uses no threads, no mmap and no clock,
//! so the same code runs in WebAssembly.

pub mod bundle;
pub mod coverage;
pub mod diagnose;
pub mod first;
mod integrity;
pub mod log;
mod prose;
pub mod schema;
pub mod searcher;
#[cfg(test)]
mod searcher_tests;
mod signature_score;
#[cfg(test)]
mod test_documents;
pub mod tokenizer;
pub mod vocabulary;
pub mod writer;

use serde::{Deserialize, Serialize};

pub use bundle::{BundleError, DocMeta, Shard};
pub use diagnose::{diagnose, diagnose_report, Diagnosis};
pub use first::{FirstAnswer, FirstError, FirstSearch};
pub use searcher::{Hit, SearchAnswer, Searcher};
pub use writer::{build_bundle, build_shard, LiveIndex, WriteError};

/// One entry as the search engine sees it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Document {
    pub slug: String,
    pub title: String,
    pub url: String,
    pub category: String,
    pub severity: String,
    pub tags: Vec<String>,
    pub signatures: Vec<String>,
    pub symptoms: Vec<String>,
    pub summary: String,
    pub body: String,
    #[serde(default)]
    pub cues: Cues,
}

/// What else in a log points at an entry, besides its signatures: text found in traceback
/// frames (a library path, a function, the source line shown under a frame) and text found in
/// any other line (a warning printed before the crash).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cues {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// Names from [`diagnose::FINDINGS`]: facts read from a log's numbers that decide for or
    /// against the entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// The entry's signatures that other entries' failures print too (`also:` in its front
    /// matter): a line that matches one points at those entries as much.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<SharedSignature>,
    /// The Python functions the entry's signatures are raised in (their `raised_in`), each as
    /// the end of its file's path and its name, `folder/file.py:function`: an exception raised
    /// in one (the innermost frame of its traceback) points at the entry, whatever its words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raised_in: Vec<String>,
}

impl Cues {
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
            && self.lines.is_empty()
            && self.findings.is_empty()
            && self.shared.is_empty()
            && self.raised_in.is_empty()
    }
}

/// A signature of one entry that other entries' failures print too.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SharedSignature {
    pub signature: String,
    /// The other entries' slugs.
    pub with: Vec<String>,
}
