//! The cache file: what one build of an output folder leaves for the next, as JSON.
//!
//! Holds the key the build was made under, each entry's place and text hash, the related
//! lists and list pages the pages were rendered from, and each output file's length,
//! modification time and hash as written. Read and written whole; written to a temporary file
//! and renamed, so a cache is either the last build's or absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::CacheError;

/// The cache file's name inside the cache folder.
pub const FILE: &str = "errata-build-cache.json";
/// The layout of [`FILE`]; another layout is a miss, not an error.
const FORMAT: u32 = 1;

/// What makes every output of a build what it is, besides the entries: a build under another
/// key renders everything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    /// errata's version.
    pub version: String,
    /// The running program's length and modification time, so a rebuilt errata of the same
    /// version misses.
    pub program: String,
    /// A hash of every template and static file of the theme.
    pub theme: String,
    /// A hash of the config as loaded (the reports it reads included) and the build options.
    pub config: String,
    /// The output folder, absolute.
    pub output: PathBuf,
}

/// An entry as the last build placed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryState {
    pub slug: String,
    pub category: String,
    pub file: PathBuf,
    /// A hash of the entry's file.
    pub text: String,
}

/// A list page as the last build rendered it, by its URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageState {
    pub pages: usize,
    pub total: usize,
    pub entries: Vec<usize>,
}

/// An output file as the last build left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub len: u64,
    /// Seconds since the epoch: what an archive of the folder (a CI cache) keeps.
    pub modified: i64,
    pub hash: String,
}

/// The whole cache file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub format: u32,
    pub key: Key,
    pub entries: Vec<EntryState>,
    pub related: Vec<Vec<usize>>,
    pub tags: Vec<String>,
    pub lists: BTreeMap<String, PageState>,
    pub files: BTreeMap<String, FileState>,
}

impl State {
    pub fn new(key: Key) -> State {
        State {
            format: FORMAT,
            key,
            entries: Vec::new(),
            related: Vec::new(),
            tags: Vec::new(),
            lists: BTreeMap::new(),
            files: BTreeMap::new(),
        }
    }

    /// The cache in `dir`; `Ok(None)` when there is none or it has another layout.
    pub fn read(dir: &Path) -> Result<Option<State>, CacheError> {
        let path = dir.join(FILE);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(CacheError::Io { path, source }),
        };
        match serde_json::from_slice::<State>(&text) {
            Ok(state) if state.format == FORMAT => Ok(Some(state)),
            Ok(_) => Ok(None),
            Err(source) => Err(CacheError::Corrupt { path, source }),
        }
    }

    /// Writes the cache into `dir` (created if needed), replacing the last one whole.
    pub fn write(&self, dir: &Path) -> Result<(), CacheError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| CacheError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(FILE);
        let temp = dir.join(format!(".{FILE}.tmp-{}", std::process::id()));
        let bytes = serde_json::to_vec(self).map_err(|source| CacheError::Corrupt {
            path: path.clone(),
            source,
        })?;
        std::fs::write(&temp, bytes).map_err(io(&temp))?;
        std::fs::rename(&temp, &path).map_err(io(&path))
    }

    /// Removes the cache in `dir`, before the output it describes is changed in place: a
    /// build stopped halfway leaves no cache, and the next build renders everything.
    pub fn forget(dir: &Path) -> Result<(), CacheError> {
        let path = dir.join(FILE);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(CacheError::Io { path, source: e })
            }
            _ => Ok(()),
        }
    }
}
