//! The full index of a build, made chunk by chunk: each chunk indexed from its entries, or
//! taken from the folder where a cached build keeps the last build's chunks.
//!
//! Takes a linked [`Site`], its documents' [`heads`](super::heads) and, for a cached build,
//! a [`ChunkFolder`]; yields the full index's bundle. A chunk's key hashes everything its
//! index is made from: the errata that indexes it, the place of its first entry, and each of
//! its entries' document without the body and Markdown body. So a one-entry edit indexes one
//! chunk again, and the bundle is byte for byte a clean build's
//! ([`errata_search::writer::pack_chunks`]). The folder keeps only the chunks of the last
//! build: a damaged or missing chunk is indexed again, never an error.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use errata_search::writer::{chunk_ranges, pack_chunks, Chunk};
use errata_search::{Document, Shard, WriteError};

use rayon::prelude::*;

use super::with_bodies;
use crate::link::Site;

/// The folder of chunk files a cached build keeps, one file per chunk, named by its key.
pub struct ChunkFolder {
    dir: PathBuf,
    /// What else a chunk's index depends on: the errata that made it.
    salt: String,
    /// The keys this build used, so that [`ChunkFolder::keep_only_used`] can drop the rest.
    used: Mutex<Vec<String>>,
}

const EXTENSION: &str = "chunk";

impl ChunkFolder {
    /// The chunks in `dir` (made when the first one is written), for the errata named by
    /// `salt` (its version and program).
    pub fn new(dir: &Path, salt: String) -> ChunkFolder {
        ChunkFolder {
            dir: dir.to_owned(),
            salt,
            used: Mutex::new(Vec::new()),
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.{EXTENSION}"))
    }

    /// The chunk kept under `key`, if there is one and it reads back whole.
    fn get(&self, key: &str) -> Option<Chunk> {
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(key.to_owned());
        let bytes = std::fs::read(self.path(key)).ok()?;
        Chunk::from_bytes(&bytes).ok()
    }

    /// Keeps `chunk` under `key`, written whole or not at all. Best effort: a chunk that cannot
    /// be kept is indexed again by the next build.
    fn put(&self, key: &str, chunk: &Chunk) {
        let path = self.path(key);
        let temp = self.dir.join(format!(".{key}.tmp-{}", std::process::id()));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&temp, chunk.to_bytes()))
            .and_then(|()| std::fs::rename(&temp, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }

    /// Removes the chunk files this build did not use (an edited chunk's old version, chunks
    /// of an older errata), so the folder does not grow from build to build.
    pub fn keep_only_used(&self) -> std::io::Result<()> {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let path = entry?.path();
            let kept = path.extension().is_some_and(|x| x == EXTENSION)
                && path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|stem| used.iter().any(|k| k == stem));
            if !kept {
                std::fs::remove_file(&path)?;
            }
        }
        Ok(())
    }

    /// The key of the chunk of the entries in `range`.
    fn key(&self, site: &Site, heads: &[Document], range: std::ops::Range<usize>) -> String {
        let mut hash = xxhash_rust::xxh3::Xxh3::new();
        let mut field = |bytes: &[u8]| {
            hash.update(&(bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        field(self.salt.as_bytes());
        field(&(range.start as u64).to_le_bytes());
        for i in range {
            // A document serializes infallibly: plain strings and lists.
            field(&serde_json::to_vec(&heads[i]).unwrap_or_default());
            field(site.entries[i].body.as_bytes());
        }
        format!("{:032x}", hash.digest128())
    }
}

/// The full index's bundle of `site`, whose documents without their bodies are `heads`:
/// chunks from `folder` where it has them, the others indexed and, with a folder, kept in it.
/// With `every_core`, the chunks are read or indexed on every core (for a build whose render
/// is small; beside a whole render it would only take the cores from the pages).
pub fn full_bundle(
    site: &Site,
    heads: &[Document],
    folder: Option<&ChunkFolder>,
    every_core: bool,
) -> Result<Vec<u8>, WriteError> {
    let chunk = |range: std::ops::Range<usize>| {
        let key = folder.map(|f| (f, f.key(site, heads, range.clone())));
        if let Some(chunk) = key.as_ref().and_then(|(f, key)| f.get(key)) {
            return Ok(chunk);
        }
        let documents = with_bodies(site, heads, range.clone(), every_core);
        let chunk = Chunk::index(&documents, range.start, Shard::Full)?;
        if let Some((f, key)) = &key {
            f.put(key, &chunk);
        }
        Ok(chunk)
    };
    let ranges: Vec<_> = chunk_ranges(heads.len()).collect();
    let chunks = if every_core {
        ranges
            .into_par_iter()
            .map(chunk)
            .collect::<Result<Vec<_>, WriteError>>()
    } else {
        ranges.into_iter().map(chunk).collect()
    }?;
    pack_chunks(&chunks, heads, Shard::Full)
}
