//! Opening a forged search bundle: every checksum recomputed, the bundle's and the CRC-32 in
//! each tantivy file's footer, so that the damage reaches tantivy's readers. No damage does
//! that by accident (`bundle` covers damage); this target shows what a bundle built to pass
//! both checks can do to tantivy.
#![no_main]

use std::collections::BTreeMap;

use errata_search::bundle::{self, MAGIC};
use errata_search::Searcher;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 16 || !data.starts_with(MAGIC) {
        return;
    }
    let mut bytes = data.to_vec();
    let crc = crc32fast::hash(&bytes[16..]);
    bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    if let Some(resealed) = reseal_footers(&bytes) {
        bytes = resealed;
    }
    if let Ok(searcher) = Searcher::from_bundle(&bytes) {
        let _ = searcher.search("CUDA out of memory", 5);
    }
});

/// The bundle with each footer's CRC-32 recomputed over its file's body (tantivy's footer:
/// body, JSON `{"version":…,"crc":…}`, the JSON's length as u32, the magic 1337 as u32).
fn reseal_footers(bytes: &[u8]) -> Option<Vec<u8>> {
    let files = bundle::unpack(bytes).ok()?;
    let mut out = BTreeMap::new();
    for (name, data) in files {
        out.insert(name, reseal(data).unwrap_or_else(|| data.to_vec()));
    }
    Some(bundle::pack(&out))
}

fn reseal(data: &[u8]) -> Option<Vec<u8>> {
    let n = data.len();
    let tail = data.get(n.checked_sub(8)?..)?;
    if tail[4..] != 1337u32.to_le_bytes() {
        return None;
    }
    let json_len = u32::from_le_bytes(tail[..4].try_into().ok()?) as usize;
    let body_len = n.checked_sub(8)?.checked_sub(json_len)?;
    let mut footer: serde_json::Value = serde_json::from_slice(&data[body_len..n - 8]).ok()?;
    let crc = crc32fast::hash(&data[..body_len]);
    footer.as_object_mut()?.insert("crc".into(), crc.into());
    let json = serde_json::to_vec(&footer).ok()?;
    let mut out = data[..body_len].to_vec();
    out.extend_from_slice(&json);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&1337u32.to_le_bytes());
    Some(out)
}
