//! The error-string tokenizer: every token of any text is non-empty and the same text gives
//! the same tokens.
#![no_main]

use errata_search::tokenizer::terms;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let first = terms(text);
    assert!(first.iter().all(|t| !t.is_empty()), "empty term from {text:?}");
    assert_eq!(first, terms(text));
});
