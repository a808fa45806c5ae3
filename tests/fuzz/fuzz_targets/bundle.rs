//! Opening a damaged search bundle. The first byte picks the mode: as given (so the checksum
//! usually rejects it), or with the bundle's checksum recomputed, so that the damage reaches
//! the file table and the CRC-32 in each tantivy file's footer. Either way: an error, never a
//! panic. (`bundle_forged` also recomputes the footers' CRCs.)
#![no_main]

use errata_search::bundle::MAGIC;
use errata_search::Searcher;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= 16 && bytes.starts_with(MAGIC) {
        let crc = crc32fast::hash(&bytes[16..]);
        bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    if let Ok(searcher) = Searcher::from_bundle(&bytes) {
        let _ = searcher.search("CUDA out of memory", 5);
    }
});
