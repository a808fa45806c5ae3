//! Checking a bundle's index files before tantivy reads them, and containing what slips by.
//!
//! Takes the files of an opened bundle (or a closure that opens it); yields an error for a file
//! whose tantivy footer does not match its bytes, for segment counts that do not fit the
//! entries, and for a panic inside tantivy on a forged file, instead of a crash.

use std::path::Path;

use serde::Deserialize;
use tantivy::directory::RamDirectory;
use tantivy::Directory;

use crate::bundle::{BundleError, DOCS_FILE, FIRST_FILE};

/// Runs the opening of a bundle that passed every check but may still be damaged inside: a
/// bundle can be forged with all its checksums recomputed, and tantivy panics on some such
/// files (the fuzz targets found one in its sstable reader). Natively the panic becomes an error,
/// without the panic message; in WebAssembly (panic = abort) it is a trap, which the worker
/// reports as an error and recovers from by loading the engine again.
pub(crate) fn guarded<T>(open: impl FnOnce() -> Result<T, BundleError>) -> Result<T, BundleError> {
    catch_silently(open).unwrap_or_else(|what| {
        Err(BundleError::Corrupt {
            reason: format!("its index files are damaged ({what})"),
        })
    })
}

/// Runs `f`, turning a panic into its message, without printing it (natively; in WebAssembly
/// a panic aborts).
fn catch_silently<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    result.map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown fault".into())
    })
}

/// Files in a bundle that tantivy writes without its checksummed footer.
const UNFOOTED: [&str; 4] = ["meta.json", ".managed.json", DOCS_FILE, FIRST_FILE];

/// Checks every segment file against the CRC-32 in its tantivy footer, before tantivy reads
/// any of it. tantivy trusts the lengths inside its files, so a damaged one can make it panic
/// or size an allocation from garbage (the bundle fuzz target found both, in bundles whose own
/// checksum had been recomputed); with this check a damaged file is an error first.
pub(crate) fn check_footers(
    directory: &RamDirectory,
    files: &std::collections::BTreeMap<String, &[u8]>,
) -> Result<(), BundleError> {
    use tantivy::directory::footer::Footer;
    let damaged = |name: &str, why: String| BundleError::Corrupt {
        reason: format!("its index files are damaged ({name}: {why})"),
    };
    for name in files.keys().filter(|n| !UNFOOTED.contains(&n.as_str())) {
        let slice = directory
            .open_read(Path::new(name))
            .map_err(|e| damaged(name, e.to_string()))?;
        let (footer, body) =
            Footer::extract_footer(slice).map_err(|_| damaged(name, "no valid footer".into()))?;
        let body = body
            .read_bytes()
            .map_err(|e| damaged(name, e.to_string()))?;
        if crc32fast::hash(body.as_slice()) != footer.crc {
            return Err(damaged(name, "checksum mismatch".into()));
        }
    }
    Ok(())
}

/// Checks that the segments in `meta.json` hold exactly one live document per entry, before
/// tantivy sizes anything from those counts. A bundle from `errata serve`'s live index may
/// still count replaced documents as deleted ones, a few times the entries at most.
pub(crate) fn check_doc_count(meta: &[u8], entries: usize) -> Result<(), BundleError> {
    #[derive(Deserialize)]
    struct Meta {
        segments: Vec<Segment>,
    }
    #[derive(Deserialize)]
    struct Segment {
        max_doc: u64,
        deletes: Option<Deletes>,
    }
    #[derive(Deserialize)]
    struct Deletes {
        num_deleted_docs: u64,
    }
    let meta: Meta = serde_json::from_slice(meta).map_err(|e| BundleError::Corrupt {
        reason: format!("meta.json: {e}"),
    })?;
    let (mut stored, mut live) = (0u64, 0u64);
    for s in &meta.segments {
        let deleted = s.deletes.as_ref().map_or(0, |d| d.num_deleted_docs);
        stored = stored.saturating_add(s.max_doc);
        live = live.saturating_add(s.max_doc.saturating_sub(deleted));
        if deleted > s.max_doc {
            live = u64::MAX;
        }
    }
    let entries = entries as u64;
    if live != entries || stored > entries.saturating_mul(16).saturating_add(1024) {
        return Err(BundleError::Corrupt {
            reason: format!(
                "meta.json lists {live} live of {stored} documents in {} segments for {entries} entries",
                meta.segments.len()
            ),
        });
    }
    Ok(())
}
