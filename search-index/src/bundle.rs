//! The bundle: the whole index as one file, for the browser and the CLI.
//!
//! Layout (little-endian): the magic `ERRATAIX`, a format version (u32), a CRC-32 of everything
//! after it (u32), the file count (u32), then for each file its name length (u16), name (UTF-8),
//! data length (u64) and data. The files are tantivy's (`meta.json`, `.managed.json`, the
//! segment files) and `errata-docs.json`, the entries' metadata; a first-search shard also holds
//! `errata-first.json`. Reading checks the magic, the
//! version, the checksum and every length before anything reaches tantivy, so a truncated or
//! corrupted bundle is an error, never a panic or a hang.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Cues, Document};

pub const MAGIC: &[u8; 8] = b"ERRATAIX";
pub const VERSION: u32 = 1;
/// The entries' metadata inside the bundle.
pub const DOCS_FILE: &str = "errata-docs.json";
/// Present only in the first-search shard's bundle ([`Shard::First`]).
pub const FIRST_FILE: &str = "errata-first.json";

/// Which part of each document a bundle holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shard {
    /// Every field, and each entry's signatures to rank and show hits by: what the CLI uses and
    /// what a browser's answers end up with.
    Full,
    /// The signature index: signatures, titles and tags, and no signature text, so hits are
    /// ranked by BM25 alone (a partial answer). Per field, its scores are the full index's.
    First,
}

/// What the bundle keeps of each entry to present a hit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DocMeta {
    pub slug: String,
    pub title: String,
    pub url: String,
    pub category: String,
    pub severity: String,
    /// Empty in a first-search shard, which ranks without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<String>,
    /// What else in a log points at the entry; empty in a first-search shard.
    #[serde(default, skip_serializing_if = "Cues::is_empty")]
    pub cues: Cues,
}

impl DocMeta {
    pub fn of(d: &Document, shard: Shard) -> DocMeta {
        DocMeta {
            slug: d.slug.clone(),
            title: d.title.clone(),
            url: d.url.clone(),
            category: d.category.clone(),
            severity: d.severity.clone(),
            signatures: match shard {
                Shard::Full => d.signatures.clone(),
                Shard::First => Vec::new(),
            },
            cues: match shard {
                Shard::Full => d.cues.clone(),
                Shard::First => Cues::default(),
            },
        }
    }
}

const MAX_NAME: usize = 1024;
const MAX_FILES: u32 = 100_000;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BundleError {
    #[error("not an errata search bundle (bad magic)")]
    BadMagic,
    #[error(
        "search bundle format {found} is not supported (expected {VERSION}); rebuild the site"
    )]
    UnsupportedVersion { found: u32 },
    #[error("search bundle is truncated")]
    Truncated,
    #[error("search bundle is corrupted (checksum mismatch)")]
    Checksum,
    #[error("search bundle is corrupted: {reason}")]
    Corrupt { reason: String },
    #[error("search bundle has no {name}")]
    Missing { name: String },
    #[error("search index cannot be opened: {reason}")]
    Index { reason: String },
}

/// Packs named files into one bundle. Files are written in name order, so equal input gives
/// equal bytes.
pub fn pack<B: AsRef<[u8]>>(files: &BTreeMap<String, B>) -> Vec<u8> {
    pack_pieces(
        &files
            .iter()
            .map(|(name, data)| (name.as_str(), vec![data.as_ref()]))
            .collect(),
    )
}

/// [`pack`], each file given as pieces written one after the other (a file need not be made
/// whole first). The bundle is written in place (the checksum last), so each byte is copied
/// once.
pub fn pack_pieces(files: &BTreeMap<&str, Vec<&[u8]>>) -> Vec<u8> {
    let header = MAGIC.len() + 8;
    let length = |pieces: &[&[u8]]| pieces.iter().map(|p| p.len()).sum::<usize>();
    let size = header
        + 4
        + files
            .iter()
            .map(|(name, pieces)| 2 + name.len() + 8 + length(pieces))
            .sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    for (name, pieces) in files {
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(length(pieces) as u64).to_le_bytes());
        for piece in pieces {
            out.extend_from_slice(piece);
        }
    }
    let checksum = crc32fast::hash(&out[header..]);
    out[header - 4..header].copy_from_slice(&checksum.to_le_bytes());
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BundleError> {
        let end = self.at.checked_add(n).ok_or(BundleError::Truncated)?;
        let slice = self.bytes.get(self.at..end).ok_or(BundleError::Truncated)?;
        self.at = end;
        Ok(slice)
    }

    fn u16(&mut self) -> Result<u16, BundleError> {
        Ok(u16::from_le_bytes(
            self.take(2)?
                .try_into()
                .map_err(|_| BundleError::Truncated)?,
        ))
    }

    fn u32(&mut self) -> Result<u32, BundleError> {
        Ok(u32::from_le_bytes(
            self.take(4)?
                .try_into()
                .map_err(|_| BundleError::Truncated)?,
        ))
    }

    fn u64(&mut self) -> Result<u64, BundleError> {
        Ok(u64::from_le_bytes(
            self.take(8)?
                .try_into()
                .map_err(|_| BundleError::Truncated)?,
        ))
    }
}

/// Unpacks a bundle into its files, checking everything.
pub fn unpack(bytes: &[u8]) -> Result<BTreeMap<String, &[u8]>, BundleError> {
    if bytes.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(bytes) {
            BundleError::Truncated
        } else {
            BundleError::BadMagic
        });
    }
    let mut r = Reader { bytes, at: 0 };
    if r.take(8)? != MAGIC {
        return Err(BundleError::BadMagic);
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(BundleError::UnsupportedVersion { found: version });
    }
    let checksum = r.u32()?;
    let body = &bytes[r.at..];
    if crc32fast::hash(body) != checksum {
        return Err(if body.len() < 4 {
            BundleError::Truncated
        } else {
            BundleError::Checksum
        });
    }
    let count = r.u32()?;
    if count > MAX_FILES {
        return Err(BundleError::Corrupt {
            reason: format!("{count} files"),
        });
    }
    let mut files = BTreeMap::new();
    for _ in 0..count {
        let name_len = r.u16()? as usize;
        if name_len == 0 || name_len > MAX_NAME {
            return Err(BundleError::Corrupt {
                reason: "bad file name length".into(),
            });
        }
        let name = std::str::from_utf8(r.take(name_len)?).map_err(|_| BundleError::Corrupt {
            reason: "file name is not UTF-8".into(),
        })?;
        if name.contains(['/', '\\', '\0']) || name.starts_with("..") {
            return Err(BundleError::Corrupt {
                reason: format!("bad file name {name:?}"),
            });
        }
        let len = usize::try_from(r.u64()?).map_err(|_| BundleError::Truncated)?;
        let data = r.take(len)?;
        files.insert(name.to_owned(), data);
    }
    if r.at != bytes.len() {
        return Err(BundleError::Corrupt {
            reason: "trailing bytes".into(),
        });
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut files = BTreeMap::new();
        files.insert("meta.json".to_owned(), b"{}".to_vec());
        files.insert("a.idx".to_owned(), vec![1, 2, 3]);
        pack(&files)
    }

    #[test]
    fn round_trip() {
        let bytes = sample();
        let files = unpack(&bytes).unwrap();
        assert_eq!(files["a.idx"], [1, 2, 3]);
        assert_eq!(files.len(), 2);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample();
        for n in 0..bytes.len() {
            assert!(unpack(&bytes[..n]).is_err(), "prefix {n}");
        }
    }

    #[test]
    fn every_flipped_byte_is_an_error() {
        let bytes = sample();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            assert!(unpack(&b).is_err(), "byte {i}");
        }
    }

    #[test]
    fn junk_is_bad_magic() {
        assert_eq!(
            unpack(b"<!DOCTYPE html>").unwrap_err(),
            BundleError::BadMagic
        );
    }
}
