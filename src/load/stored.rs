//! What `errata build --cache` keeps of the files it loaded: each checked entry, so that a file
//! a push did not change is not parsed and checked again.
//!
//! Takes the cache folder and a salt naming the errata that builds; yields [`StoredEntries`],
//! which the load stage asks for each file it reads, and which writes back the entries of that
//! load. An entry is keyed by a hash of the salt, the file's place in `content/` and its bytes,
//! so a checkout's new modification times do not matter and another errata finds nothing. A
//! file that had problems is never kept: they are found again on each load. A missing or
//! damaged store is an empty one; a damaged record is a file read again.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::entry::{Body, Entry};
use super::front_matter::{Spans, Split};

/// The store's file, inside the cache folder.
pub const STORE_FILE: &str = "loaded-entries";

/// The first bytes of the store's file: its layout. Records follow, each a 16-byte key, a
/// 4-byte length, an 8-byte hash of the entry's bytes and the entry in postcard (numbers
/// little-endian).
const MAGIC: &[u8] = b"errata loaded entries 2\n";

/// The bytes before a record's entry.
const HEAD: usize = 28;

/// The entries a cached build loaded last time, and those this load keeps.
#[derive(Debug, Default)]
pub struct StoredEntries {
    salt: String,
    /// The store's file as read.
    bytes: Vec<u8>,
    /// Where each key's entry lies in `bytes`, and the hash of its bytes.
    found: FxHashMap<u128, (Range<usize>, u64)>,
    /// How many files took their entry from the store.
    hits: AtomicUsize,
    /// What this load keeps: each entry it loaded without problems.
    kept: Mutex<Vec<(u128, Kept)>>,
}

/// An entry this load keeps: a record of the store as read, or one encoded now.
#[derive(Debug)]
enum Kept {
    Read(Range<usize>),
    New(Vec<u8>),
}

impl StoredEntries {
    /// The store of the cache folder `dir` for the errata named by `salt`; empty when there
    /// is none or it cannot be read.
    pub fn read(dir: &Path, salt: String) -> StoredEntries {
        let bytes = std::fs::read(dir.join(STORE_FILE)).unwrap_or_default();
        let found = index(&bytes).unwrap_or_default();
        StoredEntries {
            salt,
            bytes,
            found,
            hits: AtomicUsize::new(0),
            kept: Mutex::default(),
        }
    }

    /// How many files took their entry from the store.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// The key of the file at `content_path` (relative to `content/`) with these bytes.
    pub(super) fn key(&self, content_path: &str, bytes: &[u8]) -> u128 {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for part in [self.salt.as_bytes(), content_path.as_bytes(), bytes] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h.digest128()
    }

    /// The stored entry of `key`, completed with what the file gives (its paths, body and
    /// spans), and kept for the next build; `None` when there is none or it cannot be read.
    pub(super) fn entry(
        &self,
        key: u128,
        display: &Path,
        content_path: &str,
        split: &Split,
    ) -> Option<Entry> {
        let (range, check) = self.found.get(&key)?;
        let record = self.bytes.get(range.clone())?;
        if xxhash_rust::xxh3::xxh3_64(record) != *check {
            return None;
        }
        let mut entry: Entry = postcard::from_bytes(record).ok()?;
        entry.file = display.to_owned();
        entry.content_path = content_path.to_owned();
        entry.body = Body::new(split.text.clone(), split.body.clone());
        entry.body_line = split.body_line;
        entry.spans = Spans::of(split);
        self.push(key, Kept::Read(range.clone()));
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(entry)
    }

    /// Keeps `entry`, loaded from the file of `key` without problems, for the next build.
    pub(super) fn keep(&self, key: u128, entry: &Entry) {
        if let Ok(record) = postcard::to_allocvec(entry) {
            self.push(key, Kept::New(record));
        }
    }

    fn push(&self, key: u128, record: Kept) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.push((key, record));
    }

    /// Writes what this load kept into the cache folder `dir`, in place of what was there
    /// (through a temporary file of this process, renamed over it).
    pub fn write(self, dir: &Path) -> std::io::Result<()> {
        let mut kept = self.kept.into_inner().unwrap_or_else(|e| e.into_inner());
        kept.sort_unstable_by_key(|(key, _)| *key);
        kept.dedup_by_key(|(key, _)| *key);
        std::fs::create_dir_all(dir)?;
        let temporary = dir.join(format!("{STORE_FILE}.{}.new", std::process::id()));
        let written = write_records(&temporary, &self.bytes, &kept)
            .and_then(|()| std::fs::rename(&temporary, dir.join(STORE_FILE)));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }
}

/// Writes the store's file at `path`: the layout, then each kept record.
fn write_records(path: &Path, read: &[u8], kept: &[(u128, Kept)]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    out.write_all(MAGIC)?;
    for (key, record) in kept {
        let record = match record {
            Kept::Read(range) => &read[range.clone()],
            Kept::New(bytes) => bytes.as_slice(),
        };
        let Ok(len) = u32::try_from(record.len()) else {
            continue;
        };
        out.write_all(&key.to_le_bytes())?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&xxhash_rust::xxh3::xxh3_64(record).to_le_bytes())?;
        out.write_all(record)?;
    }
    out.flush()
}

/// Where each entry of a store's bytes lies, with its hash; `None` when they are not a
/// whole store.
fn index(bytes: &[u8]) -> Option<FxHashMap<u128, (Range<usize>, u64)>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut at = MAGIC.len();
    let mut found = FxHashMap::default();
    while !rest.is_empty() {
        let key = u128::from_le_bytes(rest.get(..16)?.try_into().ok()?);
        let len = u32::from_le_bytes(rest.get(16..20)?.try_into().ok()?) as usize;
        let check = u64::from_le_bytes(rest.get(20..HEAD)?.try_into().ok()?);
        rest.get(HEAD..HEAD + len)?;
        found.insert(key, (at + HEAD..at + HEAD + len, check));
        at += HEAD + len;
        rest = &rest[HEAD + len..];
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> StoredEntries {
        StoredEntries::read(dir, "errata 1 program".into())
    }

    #[test]
    fn a_store_reads_back_what_was_kept_and_only_that() {
        let dir = tempfile::tempdir().unwrap();
        let first = store(dir.path());
        first.push(1, Kept::New(b"one".to_vec()));
        first.push(2, Kept::New(b"two".to_vec()));
        first.write(dir.path()).unwrap();
        let second = store(dir.path());
        assert_eq!(second.found.len(), 2);
        assert_eq!(&second.bytes[second.found[&2].0.clone()], b"two");
        second.push(2, Kept::Read(second.found[&2].0.clone()));
        second.write(dir.path()).unwrap();
        let third = store(dir.path());
        assert_eq!(third.found.keys().collect::<Vec<_>>(), vec![&2]);
    }

    #[test]
    fn a_cut_or_foreign_store_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let first = store(dir.path());
        first.push(7, Kept::New(vec![1; 100]));
        first.write(dir.path()).unwrap();
        let path = dir.path().join(STORE_FILE);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(store(dir.path()).found.is_empty());
        std::fs::write(&path, b"something else").unwrap();
        assert!(store(dir.path()).found.is_empty());
    }

    /// The project's own site, loaded once with `stored`; the store comes back to be written.
    fn load_project(stored: StoredEntries) -> (Vec<std::sync::Arc<Entry>>, StoredEntries) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut cache = super::super::LoadCache::with_stored(stored);
        let options = super::super::LoadOptions { drafts: true };
        let loaded = super::super::load_site_cached(root, options, &mut cache).unwrap();
        (loaded.entries, cache.take_stored().unwrap())
    }

    /// Each entry equal in every field (their Debug forms), named when not.
    fn assert_same(a: &[std::sync::Arc<Entry>], b: &[std::sync::Arc<Entry>]) {
        assert_eq!(a.len(), b.len());
        for (a, b) in a.iter().zip(b) {
            assert!(
                format!("{a:?}") == format!("{b:?}"),
                "the entry of {} differs",
                b.file.display()
            );
        }
    }

    #[test]
    fn a_stored_entry_is_the_entry_its_file_gives() {
        let dir = tempfile::tempdir().unwrap();
        let (parsed, first) = load_project(store(dir.path()));
        assert!(parsed.len() > 30, "the project has its entries");
        assert_eq!(first.hits(), 0);
        first.write(dir.path()).unwrap();
        let (again, second) = load_project(store(dir.path()));
        assert_eq!(
            second.hits(),
            parsed.len(),
            "every entry came from the store"
        );
        // Every field, the body, spans and paths the store leaves out included.
        assert_same(&again, &parsed);
        // A damaged entry's file is read again.
        second.write(dir.path()).unwrap();
        let path = dir.path().join(STORE_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 5;
        bytes[last] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
        let (mended, third) = load_project(store(dir.path()));
        assert_eq!(third.hits(), parsed.len() - 1);
        assert_same(&mended, &parsed);
    }

    #[test]
    fn the_key_tells_salt_place_and_bytes_apart() {
        let dir = tempfile::tempdir().unwrap();
        let a = store(dir.path());
        let b = StoredEntries::read(dir.path(), "errata 2 program".into());
        let key = a.key("memory/x.md", b"---\n");
        assert_eq!(key, a.key("memory/x.md", b"---\n"));
        assert_ne!(key, b.key("memory/x.md", b"---\n"));
        assert_ne!(key, a.key("memory/y.md", b"---\n"));
        assert_ne!(key, a.key("memory/x.md", b"--- \n"));
        // The parts are length-prefixed: moving a byte from the place to the text is another key.
        assert_ne!(a.key("memory/x.m", b"d---\n"), key);
    }
}
