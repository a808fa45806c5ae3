//! The first-search files of a built site: what a browser answers its first query from.

use std::path::{Path, PathBuf};

use errata_search::Searcher;

use super::search::{built_site, repo};

/// The files under `search/first/` are those of the site's documents, and no others (the
/// documents are made again here, apart from the binary).
#[test]
fn the_first_search_files_are_the_documents_files() {
    let (_tmp, out) = built_site();
    let documents =
        errata::search::documents(&errata::pipeline::check(&repo(), false, None).unwrap().site);
    let folder = out.join(errata::search::FIRST_FOLDER);
    let files = errata_search::first::files(&documents).unwrap();
    for (path, bytes) in &files {
        assert_eq!(&std::fs::read(folder.join(path)).unwrap(), bytes, "{path}");
    }
    assert_eq!(files.len(), walk(&folder).len(), "stray first-search files");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

/// The first-search index of a built site, every file added, as a browser would after its
/// searches named them.
fn first_search(out: &Path) -> errata_search::FirstSearch {
    let folder = out.join(errata::search::FIRST_FOLDER);
    let mut first = errata_search::FirstSearch::open(
        &std::fs::read(folder.join(errata_search::first::META_FILE)).unwrap(),
    )
    .unwrap();
    for path in walk(&folder) {
        let chunk = |p: &Path| p.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let kind = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        match kind {
            "t" => first.add_terms(chunk(&path), &bytes).unwrap(),
            "d" => first.add_docs(chunk(&path), &bytes).unwrap(),
            _ => {}
        }
    }
    first
}

/// The browser's first answer comes from the first-search files, which rank without the
/// signature coverage boost. Pasting any entry's signature must still put the full index's
/// top entry among their first three (the full answer replaces it a moment later).
#[test]
fn the_first_search_finds_what_the_full_index_finds_for_each_signature() {
    let (_tmp, out) = built_site();
    let full =
        Searcher::from_bundle(&std::fs::read(out.join(errata::search::BUNDLE_PATH)).unwrap())
            .unwrap();
    let first = first_search(&out);
    assert!(!full.is_partial());
    let (mut checked, mut same_top) = (0, 0);
    let mut missed = Vec::new();
    for d in full.docs() {
        for sig in &d.signatures {
            let quick: Vec<String> = match first.answer(sig, 3) {
                errata_search::FirstAnswer::Ready(a) => {
                    a.hits.into_iter().map(|h| h.slug).collect()
                }
                needs => panic!("{sig:?}: {needs:?}"),
            };
            let best: Vec<String> = full
                .search(sig, 1)
                .unwrap()
                .into_iter()
                .map(|h| h.slug)
                .collect();
            checked += 1;
            same_top += usize::from(quick.first() == best.first());
            if !best.iter().all(|b| quick.contains(b)) {
                missed.push(format!("{sig:?}: {quick:?} vs {best:?}"));
            }
        }
    }
    assert!(checked > 50, "only {checked} signatures");
    assert!(
        missed.is_empty(),
        "{} of {checked}:\n{}",
        missed.len(),
        missed.join("\n")
    );
    eprintln!(
        "the first search's top entry is the full index's for {same_top} of {checked} signatures"
    );
}
