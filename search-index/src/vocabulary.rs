//! Which words of the entries' signatures define a signature, and which tell little.
//!
//! Takes every entry's signatures as terms; yields the rare terms (in the signatures of at most
//! [`DEFINING_DOCS`] entries: a match without them is another message) and the common ones (in
//! the signatures of [`COMMON_DOCS`] entries or more). Python's own vocabulary of failure
//! ([`GENERIC_TERMS`]) is never rare, however few entries happen to use it.

use std::collections::{HashMap, HashSet};

/// A signature term found in the signatures of at most this many entries defines the
/// signature: a match without it is another message.
pub const DEFINING_DOCS: usize = 2;
/// A term in the signatures of this many entries or more tells little of which entry it is.
pub const COMMON_DOCS: usize = 8;
/// Terms that never define a signature however few entries have them: Python's built-in
/// exception classes and the words of Python's own messages for them (`No module named`,
/// `object has no attribute`, `cannot import name`, `unexpected keyword argument`, `No such file
/// or directory`). Any failure at all can raise them; what defines `No module named
/// 'flash_attn'` is `flash_attn`.
const GENERIC_TERMS: [&str; 48] = [
    "attributeerror",
    "keyerror",
    "valueerror",
    "typeerror",
    "indexerror",
    "importerror",
    "modulenotfounderror",
    "filenotfounderror",
    "fileexistserror",
    "permissionerror",
    "notimplementederror",
    "assertionerror",
    "oserror",
    "ioerror",
    "eoferror",
    "nameerror",
    "lookuperror",
    "stopiteration",
    "recursionerror",
    "unicodedecodeerror",
    "zerodivisionerror",
    "connectionerror",
    "timeouterror",
    "systemexit",
    "keyboardinterrupt",
    "exception",
    "module",
    "named",
    "object",
    "attribute",
    "cannot",
    "import",
    "name",
    "unexpected",
    "keyword",
    "argument",
    "arguments",
    "positional",
    "given",
    "such",
    "file",
    "directory",
    "defined",
    "index",
    "range",
    "key",
    "value",
    "found",
];

/// The rare terms and the common terms of the signatures (each entry's, each signature's terms).
pub fn rare_and_common(signature_terms: &[Vec<Vec<String>>]) -> (HashSet<String>, HashSet<String>) {
    let mut rare = terms_by_docs(signature_terms, |n| n <= DEFINING_DOCS);
    rare.retain(|t| !GENERIC_TERMS.contains(&t.as_str()));
    let common = terms_by_docs(signature_terms, |n| n >= COMMON_DOCS);
    (rare, common)
}

/// The terms found in the signatures of a number of entries that `keep` accepts.
fn terms_by_docs(
    signature_terms: &[Vec<Vec<String>>],
    keep: impl Fn(usize) -> bool,
) -> HashSet<String> {
    let mut docs_with: HashMap<&str, usize> = HashMap::new();
    for doc in signature_terms {
        let distinct: HashSet<&str> = doc.iter().flatten().map(String::as_str).collect();
        for t in distinct {
            *docs_with.entry(t).or_default() += 1;
        }
    }
    docs_with
        .into_iter()
        .filter(|&(_, n)| keep(n))
        .map(|(t, _)| t.to_owned())
        .collect()
}
