//! The raw exports the browser calls. Memory crosses the boundary as (pointer, length) pairs;
//! every call leaves its UTF-8 JSON answer in one result buffer, read with
//! `errata_result_ptr` / `errata_result_len` before the next call. Return value: 0 on success,
//! 1 when the answer is an error (`{"error": ...}`).

use std::cell::RefCell;

use crate::Engine;

thread_local! {
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::default());
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn finish(answer: Result<String, String>) -> i32 {
    let (code, text) = match answer {
        Ok(t) => (0, t),
        Err(t) => (1, t),
    };
    RESULT.with(|r| *r.borrow_mut() = text.into_bytes());
    code
}

/// # Safety
/// `ptr`/`len` must be a buffer this module gave out with `errata_alloc` and the caller filled.
unsafe fn input<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: the caller passes a live allocation of `len` bytes from `errata_alloc`.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

#[no_mangle]
pub extern "C" fn errata_alloc(len: usize) -> *mut u8 {
    let mut buf = Vec::<u8>::with_capacity(len.max(1));
    let ptr = buf.as_mut_ptr();
    std::mem::forget(buf);
    ptr
}

/// # Safety
/// `ptr` must come from `errata_alloc(len)` and not be freed twice.
#[no_mangle]
pub unsafe extern "C" fn errata_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: allocated by `errata_alloc` with this capacity.
        drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
    }
}

/// # Safety
/// See [`input`].
#[no_mangle]
pub unsafe extern "C" fn errata_load(ptr: *const u8, len: usize) -> i32 {
    let bytes = unsafe { input(ptr, len) };
    finish(ENGINE.with(|e| e.borrow_mut().load(bytes)))
}

/// # Safety
/// See [`input`].
#[no_mangle]
pub unsafe extern "C" fn errata_load_first(ptr: *const u8, len: usize) -> i32 {
    let bytes = unsafe { input(ptr, len) };
    finish(ENGINE.with(|e| e.borrow_mut().load_first(bytes)))
}

/// # Safety
/// See [`input`].
#[no_mangle]
pub unsafe extern "C" fn errata_first_add(
    kind: u32,
    chunk: u32,
    ptr: *const u8,
    len: usize,
) -> i32 {
    let bytes = unsafe { input(ptr, len) };
    finish(ENGINE.with(|e| e.borrow_mut().add_first(kind, chunk, bytes)))
}

/// # Safety
/// See [`input`].
#[no_mangle]
pub unsafe extern "C" fn errata_search(ptr: *const u8, len: usize, limit: u32) -> i32 {
    let query = String::from_utf8_lossy(unsafe { input(ptr, len) }).into_owned();
    finish(ENGINE.with(|e| e.borrow().search(&query, limit as usize)))
}

/// # Safety
/// See [`input`].
#[no_mangle]
pub unsafe extern "C" fn errata_diagnose(ptr: *const u8, len: usize) -> i32 {
    let log = String::from_utf8_lossy(unsafe { input(ptr, len) }).into_owned();
    finish(ENGINE.with(|e| e.borrow().diagnose(&log)))
}

#[no_mangle]
pub extern "C" fn errata_result_ptr() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[no_mangle]
pub extern "C" fn errata_result_len() -> usize {
    RESULT.with(|r| r.borrow().len())
}
