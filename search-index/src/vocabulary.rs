//! Which words of the entries' signatures define a signature, and which tell little.
//!
//! Takes every entry's signatures as terms; yields the rare terms (in the signatures of at most
//! [`DEFINING_DOCS`] entries: a match without them is another message) and the common ones (in
//! the signatures of [`COMMON_DOCS`] entries or more). Python's own vocabulary of failure and
//! that of C++ check macros ([`GENERIC_TERMS`]) are never rare, however few entries happen to
//! use them, and always common: a line that shares only those words with a signature does not
//! point at its entry.

use std::collections::{HashMap, HashSet};

/// A signature term found in the signatures of at most this many entries defines the
/// signature: a match without it is another message.
pub const DEFINING_DOCS: usize = 2;
/// A term in the signatures of this many entries or more tells little of which entry it is.
pub const COMMON_DOCS: usize = 8;
/// Terms that never define a signature however few entries have them: Python's built-in
/// exception classes and the words of Python's own messages for them (`No module named`,
/// `object has no attribute`, `cannot import name`, `unexpected keyword argument`, `No such file
/// or directory`, an OSError's `[Errno 2]`, a UnicodeDecodeError's `'utf-8' codec can't
/// decode`), and the words of C++ check macros. Any failure at all can raise them; what defines
/// `No module named 'flash_attn'` is `flash_attn`.
const GENERIC_TERMS: [&str; 57] = [
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
    // `[Errno 2]`: how Python prints every OSError's number.
    "errno",
    "eoferror",
    "nameerror",
    "lookuperror",
    "stopiteration",
    "recursionerror",
    "unicodedecodeerror",
    // A UnicodeDecodeError's own words: `'utf-8' codec can't decode byte 0x92`.
    "utf-8",
    "utf",
    "codec",
    "decode",
    "encode",
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
    // The words of C++ check macros, which any failed check in any library prints: glog's
    // `Check failed: e == cudaSuccess` and c10's `[enforce fail at alloc_cpu.cpp:75]`, and the
    // status such a check wants (`cudaSuccess`, `CUBLAS_STATUS_SUCCESS`): the status it got says
    // what failed.
    "check",
    "enforce",
    "success",
];

/// Whether a signature names one of Python's own exception classes before its message
/// (`AssertionError: Invalid device id`, `OSError: [Errno 98] Address already in use`): any
/// failure can raise them, so a line sharing only that name shares nothing of what failed.
pub fn names_a_generic_exception(signature: &str) -> bool {
    let Some((head, _)) = signature.split_once(':') else {
        return false;
    };
    let name = head.rsplit('.').next().unwrap_or(head).to_ascii_lowercase();
    name.ends_with("error") && is_generic(&name)
}

/// Whether `term` is one of Python's or a C++ check macro's own words ([`GENERIC_TERMS`]): the
/// wrapping of a failure (`ValueError`, `check`), not a word of what failed.
pub fn is_generic(term: &str) -> bool {
    GENERIC_TERMS.contains(&term)
}

/// The rare terms and the common terms of the signatures (each entry's, each signature's terms).
pub fn rare_and_common(signature_terms: &[Vec<Vec<String>>]) -> (HashSet<String>, HashSet<String>) {
    let mut rare = terms_by_docs(signature_terms, |n| n <= DEFINING_DOCS);
    rare.retain(|t| !is_generic(t));
    let mut common = terms_by_docs(signature_terms, |n| n >= COMMON_DOCS);
    common.extend(GENERIC_TERMS.iter().map(|t| t.to_string()));
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

/// Every distinct term of the signatures, sorted: for finding the words a cut one begins.
pub fn sorted_terms(signature_terms: &[Vec<Vec<String>>]) -> Vec<String> {
    let mut all: Vec<String> = (signature_terms.iter().flatten().flatten())
        .cloned()
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The shortest start of a word that is taken for a cut one.
const MIN_CUT: usize = 3;
/// The most words a cut one is taken for.
const MAX_COMPLETIONS: usize = 4;

/// The signature terms that the last word of `text` may be the start of, when a paste cut the
/// text in the middle of a word (`CUDNN_STATUS_N`, `collective operati`): terms of `sorted`
/// (see [`sorted_terms`]) that begin with that word and are longer, at most a few. None when the
/// text ends in anything but a letter, a digit or `_`, or the word is short or is itself a
/// signature term.
pub fn completions<'a>(text: &str, sorted: &'a [String]) -> Vec<&'a str> {
    let text = text.trim_end_matches(' ');
    if !text.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
        return Vec::new();
    }
    let start = text
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let word = text[start..].to_lowercase();
    if word.chars().count() < MIN_CUT {
        return Vec::new();
    }
    let from = sorted.partition_point(|t| t.as_str() < word.as_str());
    if sorted.get(from).is_some_and(|t| *t == word) {
        return Vec::new();
    }
    sorted[from..]
        .iter()
        .take_while(|t| t.starts_with(word.as_str()))
        .filter(|t| t.len() > word.len())
        .take(MAX_COMPLETIONS)
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pythons_own_exceptions_are_generic_heads_and_a_librarys_are_not() {
        assert!(names_a_generic_exception(
            "AssertionError: Invalid device id"
        ));
        assert!(names_a_generic_exception(
            "builtins.OSError: [Errno 98] Address already in use"
        ));
        assert!(!names_a_generic_exception(
            "torch.OutOfMemoryError: CUDA out of memory."
        ));
        assert!(!names_a_generic_exception(
            "SafetensorError: Error while deserializing header"
        ));
        assert!(!names_a_generic_exception("CUDA error: out of memory"));
    }
    use crate::tokenizer::terms;

    #[test]
    fn the_words_of_pythons_own_messages_are_never_rare() {
        // One entry whose signature names a header that is not UTF-8, and one other.
        let signatures = [
            vec![terms(
                "Error while deserializing header: invalid UTF-8 in header",
            )],
            vec![terms("No module named 'flash_attn'")],
        ];
        let (rare, common) = rare_and_common(&signatures);
        for word in ["deserializing", "header", "flash_attn"] {
            assert!(rare.contains(word), "{word}");
        }
        // What any UnicodeDecodeError or ModuleNotFoundError prints.
        for word in ["utf-8", "utf", "module", "named"] {
            assert!(!rare.contains(word) && common.contains(word), "{word}");
        }
    }

    #[test]
    fn a_cut_last_word_is_completed_from_the_signatures() {
        let sorted = sorted_terms(&[vec![vec![
            "cudnn_status_not_supported".into(),
            "collective".into(),
            "operation".into(),
            "operations".into(),
        ]]]);
        assert_eq!(
            completions("RuntimeError: CUDNN_STATUS_N", &sorted),
            ["cudnn_status_not_supported"]
        );
        assert_eq!(
            completions("Watchdog caught collective operati", &sorted),
            ["operation", "operations"]
        );
        // A whole word, a short one, or a line that ends in punctuation is not cut.
        assert!(completions("collective operation", &sorted).is_empty());
        assert!(completions("RuntimeError: op", &sorted).is_empty());
        assert!(completions("collective operati.", &sorted).is_empty());
    }
}
