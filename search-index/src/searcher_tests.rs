//! Tests of how the searcher matches a line against a signature: the message a line holds, and
//! when it shares more than common words.

use crate::test_documents::document;
use crate::writer::build_bundle;
use crate::{Document, Searcher};

fn searcher(signatures: &[&str]) -> Searcher {
    let docs: Vec<Document> = (signatures.iter().enumerate())
        .map(|(i, s)| Document {
            slug: format!("entry-{i}"),
            title: format!("entry {i}"),
            url: format!("c/entry-{i}/"),
            category: "c".into(),
            severity: "high".into(),
            signatures: vec![s.to_string()],
            ..Default::default()
        })
        .collect();
    Searcher::from_bundle(&build_bundle(&docs).unwrap()).unwrap()
}

/// The share of the best hit's signature message that `line` holds in order.
fn phrase(searcher: &Searcher, line: &str) -> f32 {
    let hits = searcher.search(line, 3).unwrap();
    let hit = (hits.iter().find(|h| h.slug == "entry-0")).expect("entry-0 is a hit");
    hit.phrase
}

/// The words of a line's exception name are not its message: `AssertionError: Expected
/// latents` shares no word of the message `Optimizer set error, should in state dict`,
/// though its name holds `error`; nor does a bare `AssertionError`. The message itself does.
#[test]
fn a_lines_exception_name_is_not_its_message() {
    let s = searcher(&[
        "AssertionError: Optimizer set error, should in state dict",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]);
    assert_eq!(
        phrase(&s, "AssertionError: Expected latents for training"),
        0.0
    );
    assert_eq!(phrase(&s, "AssertionError"), 0.0);
    let real = "AssertionError: Optimizer set error, conv2d_17.w_0 should in state dict";
    assert!(phrase(&s, real) > 0.0);
}

/// A line that holds every word of a signature shares all of it, in whatever order:
/// PyTorch's `Expected object of backend CUDA but got backend CPU for argument` is the
/// signature `... backend CPU but got backend CUDA ...` with the devices the other way
/// round, though each of its words is in many entries' signatures. One word fewer, and the
/// line shares only common words.
#[test]
fn a_line_with_every_word_of_a_signature_is_specific_in_any_order() {
    let mut signatures = vec!["Expected object of backend CPU but got backend CUDA for argument"];
    let common: Vec<String> = (0..8)
        .map(|i| {
            format!(
                "expected object of backend but got cpu cuda for argument {}",
                ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta"][i]
            )
        })
        .collect();
    signatures.extend(common.iter().map(String::as_str));
    let s = searcher(&signatures);
    let specific = |line: &str| {
        let hits = s.search(line, 20).unwrap();
        (hits.iter().find(|h| h.slug == "entry-0"))
            .expect("entry-0 is a hit")
            .specific
    };
    assert!(specific(
        "RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'mat2'"
    ));
    assert!(!specific(
        "RuntimeError: Expected object of backend CUDA but got backend CPU for #2 'mat2'"
    ));
}

/// One word of a message and Python's name for the exception are a coincidence, however rare
/// the word: `ValueError: num_samples should be a positive integer value` shares only
/// `integer` with FSDP's `ValueError: Integer parameters are unsupported` besides the name any
/// failure can raise. A second word of the message makes it more than that.
#[test]
fn one_word_and_the_exception_name_are_not_specific() {
    let s = searcher(&[
        "ValueError: Integer parameters are unsupported",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]);
    let specific = |line: &str| {
        let hits = s.search(line, 3).unwrap();
        (hits.iter().find(|h| h.slug == "entry-0")).is_some_and(|h| h.specific)
    };
    assert!(!specific(
        "ValueError: num_samples should be a positive integer value, but got num_samples=0"
    ));
    assert!(specific(
        "ValueError: integer parameters given to flat_param"
    ));
}

/// An entry's score on one of its signatures does not fall as it gains other wordings. Scored
/// as one text, the signatures field of an entry with twenty more wordings is fifty times
/// longer, and BM25 charged its every signature for that: the OOM entry's `Dst tensor is not
/// initialized.` once came to rank behind `dist is not initialized`.
#[test]
fn an_entry_keeps_its_score_on_a_signature_as_it_gains_others() {
    let few = vec![
        document("dst", "Dst tensor is not initialized."),
        document("dist", "dist is not initialized"),
    ];
    let mut many = few.clone();
    many[0].signatures.extend((0..20).map(|i| {
        format!("torch.OutOfMemoryError: CUDA out of memory while allocating block {i} of a pool")
    }));
    let score = |docs: &[Document]| {
        let s = Searcher::from_bundle(&build_bundle(docs).unwrap()).unwrap();
        let hits = s.search("Dst tensor is not initialized.", 2).unwrap();
        assert_eq!(hits[0].slug, "dst", "{hits:#?}");
        hits[0].score
    };
    let (a, b) = (score(&few), score(&many));
    assert!(
        (a - b).abs() <= 1e-3 * a,
        "{a} with one wording, {b} with 21"
    );
}
