use super::*;
use crate::{build_shard, Document, SearchAnswer, Searcher, Shard};

const WORDS: [&str; 24] = [
    "cuda",
    "memory",
    "nccl",
    "timeout",
    "allocator",
    "rank",
    "watchdog",
    "collective",
    "flash_attn",
    "dtype",
    "backward",
    "kernel",
    "shard",
    "loss",
    "nan",
    "gradient",
    "torch.cuda.OutOfMemoryError",
    "ProcessGroupNCCL",
    "segment",
    "expandable_segments",
    "dataloader",
    "worker",
    "pickle",
    "shm",
];

/// `n` entries whose fields draw words from [`WORDS`] by a fixed rule, so some words are in
/// most entries' tags (the common-term rule) and lengths vary (the field norms).
fn documents(n: usize) -> Vec<Document> {
    let word = |i: usize, k: usize| WORDS[(i * 7 + k * k * 3 + i / 5) % WORDS.len()];
    (0..n)
        .map(|i| Document {
            slug: format!("entry-{i:04}"),
            title: format!("{} {} failure", word(i, 1), word(i, 2)),
            url: format!("c/entry-{i:04}/"),
            category: "c".into(),
            severity: "high".into(),
            tags: vec!["cuda-memory".into(), word(i, 3).replace('_', "-")],
            signatures: (0..1 + i % 3)
                .map(|k| {
                    (0..2 + (i + k) % 5)
                        .map(|j| word(i + k, j + 4))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
            body: "body words are not in the first index".into(),
            ..Default::default()
        })
        .collect()
}

/// A first-search index with every chunk added.
fn loaded(docs: &[Document]) -> FirstSearch {
    let files = files(docs).unwrap();
    let mut first = FirstSearch::open(&files[0].1).unwrap();
    for (path, bytes) in &files[1..] {
        let (kind, rest) = path.split_once('/').unwrap();
        let chunk: u32 = rest.split('.').next().unwrap().parse().unwrap();
        match kind {
            "t" => first.add_terms(chunk, bytes).unwrap(),
            _ => first.add_docs(chunk, bytes).unwrap(),
        }
    }
    first
}

fn ready(answer: FirstAnswer) -> SearchAnswer {
    match answer {
        FirstAnswer::Ready(a) => a,
        FirstAnswer::Needs { terms, docs } => panic!("needs terms {terms:?}, docs {docs:?}"),
    }
}

const QUERIES: [&str; 6] = [
    "CUDA out of memory",
    "Watchdog caught collective operation timeout rank 3",
    "flash_attn dtype backward kernel",
    "cuda memory",
    "torch.cuda.OutOfMemoryError: expandable_segments segment allocator",
    "nothing matches xyzzy",
];

/// The first-search answer is the tantivy signature index's: the same scores rank by rank,
/// and each hit's score is the one tantivy gives that entry (to float rounding: tantivy sums
/// a query's clauses in an order of its own, so entries whose scores tie may come in another
/// order), with and without the common-term rule (300 entries, then 40).
#[test]
fn answers_as_a_tantivy_index_of_the_same_fields() {
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    for n in [300, 40] {
        let docs = documents(n);
        let tantivy = Searcher::from_bundle(&build_shard(&docs, Shard::First).unwrap()).unwrap();
        let first = loaded(&docs);
        for query in QUERIES {
            let all: std::collections::HashMap<String, f32> = tantivy
                .answer(query, 1000)
                .unwrap()
                .hits
                .into_iter()
                .map(|h| (h.slug, h.score))
                .collect();
            for limit in [1, 8, 20] {
                let expected = tantivy.answer(query, limit).unwrap();
                let got = ready(first.answer(query, limit));
                assert!(got.partial);
                assert_eq!(
                    got.hits.len(),
                    expected.hits.len(),
                    "{n} entries, {query:?}, limit {limit}"
                );
                for (g, e) in got.hits.iter().zip(&expected.hits) {
                    assert!(
                        close(g.score, e.score),
                        "{query:?}: {} vs {}",
                        g.score,
                        e.score
                    );
                    assert!(close(g.score, all[&g.slug]), "{query:?}: {}", g.slug);
                    let meta = docs.iter().find(|d| d.slug == g.slug).unwrap();
                    assert_eq!((&g.title, &g.url), (&meta.title, &meta.url));
                }
            }
        }
        assert!(!ready(first.answer(QUERIES[0], 5)).hits.is_empty());
        assert!(ready(first.answer("nothing matches xyzzy", 5))
            .hits
            .is_empty());
    }
}

/// A query first names the terms chunks of its words, then the docs chunks of its hits, and
/// answers once they are added; nothing else is needed.
#[test]
fn a_query_names_the_chunks_it_needs() {
    let docs = documents(300);
    let files = files(&docs).unwrap();
    let get = |path: String| &files.iter().find(|(p, _)| *p == path).unwrap().1;
    let mut first = FirstSearch::open(&files[0].1).unwrap();
    assert!(first.meta.chunks > 1, "the postings span several chunks");
    let FirstAnswer::Needs { terms, docs: none } = first.answer("nccl watchdog timeout", 8) else {
        panic!("answered without postings")
    };
    assert!(none.is_empty() && !terms.is_empty() && terms.len() <= 3);
    for t in terms {
        first.add_terms(t, get(terms_path(t))).unwrap();
    }
    let FirstAnswer::Needs {
        terms: none,
        docs: needed,
    } = first.answer("nccl watchdog timeout", 8)
    else {
        panic!("answered without titles")
    };
    assert!(none.is_empty() && !needed.is_empty());
    for d in needed {
        first.add_docs(d, get(docs_path(d))).unwrap();
    }
    let answer = ready(first.answer("nccl watchdog timeout", 8));
    assert_eq!(answer.hits.len(), 8);
    assert_eq!(
        answer,
        ready(loaded(&docs).answer("nccl watchdog timeout", 8))
    );
}

#[test]
fn the_files_are_byte_stable() {
    assert_eq!(
        files(&documents(120)).unwrap(),
        files(&documents(120)).unwrap()
    );
}

/// A damaged chunk or meta file is an error naming the file, never a panic; the chunks added
/// before stay usable.
#[test]
fn damaged_files_are_errors() {
    let docs = documents(300);
    let files = files(&docs).unwrap();
    assert!(FirstSearch::open(b"{").is_err());
    assert!(matches!(
        FirstSearch::open(br#"{"format":9,"docs":1,"chunks":1,"docs_per_chunk":1,"fields":[]}"#),
        Err(FirstError::Format { found: 9 })
    ));
    let mut first = FirstSearch::open(&files[0].1).unwrap();
    let chunk = files
        .iter()
        .find(|(p, b)| p.starts_with("t/") && b.len() > 40)
        .unwrap();
    let id: u32 = chunk.0[2..].trim_end_matches(".bin").parse().unwrap();
    let bytes = &chunk.1;
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        let err = first.add_terms(id, &bytes[..cut]).unwrap_err();
        assert!(err.to_string().contains(&terms_path(id)), "{err}");
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(7) {
        flipped[i] ^= 0x5a;
        let _ = first.add_terms(id, &flipped);
    }
    assert!(first.add_terms(first.meta.chunks, bytes).is_err());
    assert!(first.add_docs(0, b"[]").is_err());
    assert!(first.add_docs(0, b"not json").is_err());
}

/// The documents `errata serve` keeps between edits give the files a build gives, after
/// documents are replaced too.
#[test]
fn kept_documents_give_a_builds_files_after_an_edit() {
    let mut docs = documents(100);
    let mut kept = FirstDocs::of(&docs).unwrap();
    assert_eq!(kept.files().unwrap(), files(&docs).unwrap());
    let mut edited = docs[40].clone();
    edited.title = "expandable_segments watchdog".into();
    edited.tags.push("pickle".into());
    docs[40] = edited.clone();
    docs[7].signatures.clear();
    kept.replace([(40, &edited), (7, &docs[7]), (500, &edited)])
        .unwrap();
    assert_eq!(kept.files().unwrap(), files(&docs).unwrap());
    assert_ne!(
        FirstDocs::of(&documents(100)).unwrap().files().unwrap(),
        kept.files().unwrap()
    );
}
