//! The first-search index: what a browser answers its first query from, in small files it
//! fetches as the query needs them.
//!
//! The full index is one bundle, fetched whole. A first query needs far less: the postings of
//! its own terms in the fields that rank without signatures (signatures, titles and tags), and
//! the titles of the entries it ranks first. So [`write::files`] splits those postings by a
//! hash of the term into chunks of a few kilobytes, and the entries' metadata into runs of
//! [`DOCS_PER_CHUNK`]; a `meta.json` names the counts and each field's statistics. [`read`]'s
//! [`FirstSearch`] answers a query from the chunks it has, or names the chunks it still needs.
//!
//! The scores are tantivy's BM25 over those fields (the same field norms, term and document
//! counts, and boosts as the full index), so a first answer ranks as a tantivy index of the
//! three fields would; it only lacks the full index's coverage boost and prose fields, and is
//! marked partial.

mod read;
mod write;

pub use read::{FirstAnswer, FirstSearch};
pub use write::{files, FirstDocs};

use serde::{Deserialize, Serialize};

/// The folder of the first-search files, under the site's `search/`.
pub const FOLDER: &str = "first";
/// The statistics file in [`FOLDER`].
pub const META_FILE: &str = "meta.json";
/// Entries' metadata per docs chunk.
pub const DOCS_PER_CHUNK: usize = 32;
/// The postings a terms chunk aims at holding, in bytes.
const CHUNK_BYTES: usize = 6 * 1024;
/// The format written in `meta.json`; a reader refuses any other.
const FORMAT: u32 = 1;

/// The path of a terms chunk, relative to [`FOLDER`].
pub fn terms_path(chunk: u32) -> String {
    format!("t/{chunk}.bin")
}

/// The path of a docs chunk, relative to [`FOLDER`].
pub fn docs_path(chunk: u32) -> String {
    format!("d/{chunk}.json")
}

/// The chunk a term's postings live in.
fn chunk_of(term: &str, chunks: u32) -> u32 {
    crc32fast::hash(term.as_bytes()) % chunks.max(1)
}

/// `meta.json`: what a query needs before any chunk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    pub format: u32,
    /// Entries in the index.
    pub docs: u32,
    /// How many terms chunks the postings are split into.
    pub chunks: u32,
    /// Entries per docs chunk.
    pub docs_per_chunk: u32,
    /// The indexed fields, in the order the postings name them by.
    pub fields: Vec<FieldStats>,
}

/// One field's weight and statistics.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FieldStats {
    pub name: String,
    pub boost: f32,
    /// Tokens in the field over every entry (for the average field length).
    pub tokens: u64,
}

/// A first-search file that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FirstError {
    #[error("the first-search index is damaged ({file}: {reason}); rebuild the site")]
    Corrupt { file: String, reason: String },
    #[error("first-search format {found} is not supported (expected {FORMAT}); rebuild the site")]
    Format { found: u32 },
}

fn corrupt(file: impl Into<String>, reason: impl Into<String>) -> FirstError {
    FirstError::Corrupt {
        file: file.into(),
        reason: reason.into(),
    }
}

/// Appends `n` as a LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads a varint at `*at`, moving past it; `None` when the bytes end or it is too long.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests;
