//! The randomness getrandom asks for on `wasm32-unknown-unknown`, where there is no OS source
//! and we add no JS imports. Only tantivy's write paths (new segment ids) reach it, and the
//! browser never writes an index, so a fixed counter-based sequence is enough; it is not, and
//! must not become, a source of secrets.

use std::sync::atomic::{AtomicU64, Ordering};

static STATE: AtomicU64 = AtomicU64::new(0x9e37_79b9_7f4a_7c15);

/// getrandom 0.3's custom backend (selected with `--cfg getrandom_backend="custom"`).
///
/// # Safety
/// `dest` must be valid for writes of `len` bytes, as getrandom guarantees.
#[no_mangle]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    for i in 0..len {
        // splitmix64
        let mut z = STATE.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        // SAFETY: i < len and dest is valid for len bytes.
        unsafe { *dest.add(i) = (z ^ (z >> 31)) as u8 };
    }
    Ok(())
}
