//! A bundle's index made in chunks: consecutive documents indexed apart, then merged into the
//! one segment a bundle ships.
//!
//! Takes the documents in the site's order, [`CHUNK_DOCS`] at a time; yields a [`Chunk`] for
//! each (a small tantivy index, with [`Chunk::to_bytes`] for a build cache to keep) and, from
//! all of them, the bundle ([`pack_chunks`]). A chunk depends only on its documents and the
//! place of its first one, and the merge orders the segments by the documents' places, so a
//! build that kept the last build's chunks indexes again only the chunks an edit touched and
//! still packs the bytes a clean build packs.

use std::collections::BTreeMap;
use std::ops::Range;

use tantivy::directory::{OwnedBytes, RamDirectory};
use tantivy::index::{Segment, SegmentReader};
use tantivy::Index;

use super::{create_index, index_files, pack_index, write_file, Indexed, WriteError};
use crate::bundle::{self, BundleError, DocMeta, Shard};
use crate::Document;

/// Documents in a chunk: a one-entry edit indexes this many again, where a site of 10,000
/// entries takes about a second for all of them.
pub const CHUNK_DOCS: usize = 1000;

/// The places of each chunk's documents, in order, for `documents` documents.
pub fn chunk_ranges(documents: usize) -> impl Iterator<Item = Range<usize>> {
    (0..documents)
        .step_by(CHUNK_DOCS)
        .map(move |start| start..(start + CHUNK_DOCS).min(documents))
}

/// Consecutive documents indexed on their own: a committed tantivy index's files.
#[derive(Debug, Clone)]
pub struct Chunk {
    files: BTreeMap<String, OwnedBytes>,
}

impl Chunk {
    /// Indexes the part of `documents` that `shard` holds; `first` is the place of the first
    /// one in the site.
    pub fn index(documents: &[Document], first: usize, shard: Shard) -> Result<Chunk, WriteError> {
        let Indexed {
            index,
            directory,
            writer,
            ..
        } = Indexed::new(documents, first, shard)?;
        writer.wait_merging_threads()?;
        Ok(Chunk {
            files: index_files(&index, &directory)?,
        })
    }

    /// The chunk as one file (the bundle format).
    pub fn to_bytes(&self) -> Vec<u8> {
        let pieces: BTreeMap<&str, Vec<&[u8]>> = self
            .files
            .iter()
            .map(|(name, bytes)| (name.as_str(), vec![bytes.as_slice()]))
            .collect();
        bundle::pack_pieces(&pieces)
    }

    /// A chunk from [`Chunk::to_bytes`]' bytes, checked as a bundle is.
    pub fn from_bytes(bytes: &[u8]) -> Result<Chunk, BundleError> {
        let files = bundle::unpack(bytes)?
            .into_iter()
            .map(|(name, data)| (name, OwnedBytes::new(data.to_vec())))
            .collect();
        Ok(Chunk { files })
    }

    /// The chunk's index, opened in memory, with its directory.
    fn open(&self) -> Result<(Index, RamDirectory), WriteError> {
        let directory = RamDirectory::create();
        for (name, data) in &self.files {
            write_file(&directory, name, data.as_slice())?;
        }
        Ok((Index::open(directory.clone())?, directory))
    }
}

/// The bundle of the chunks of `documents` (in [`chunk_ranges`]' order): their segments merged
/// into one, in the documents' order, with the documents' metadata.
pub fn pack_chunks(
    chunks: &[Chunk],
    documents: &[Document],
    shard: Shard,
) -> Result<Vec<u8>, WriteError> {
    let docs_json = serde_json::to_vec(
        &documents
            .iter()
            .map(|d| DocMeta::of(d, shard))
            .collect::<Vec<_>>(),
    )?;
    let mut opened = chunks
        .iter()
        .map(Chunk::open)
        .collect::<Result<Vec<_>, _>>()?;
    let mut segments = Vec::new();
    for (index, _) in &opened {
        segments.extend(index.searchable_segments()?);
    }
    let (index, directory) = match segments.len() {
        0 => {
            let (index, directory, _, _) = create_index()?;
            (index, directory)
        }
        1 => opened
            .drain(..)
            .find(|(index, _)| index.searchable_segment_ids().is_ok_and(|s| s.len() == 1))
            .expect("one chunk holds the one segment"),
        _ => merge_in_order(segments)?,
    };
    pack_index(
        &index,
        &directory,
        vec![&docs_json],
        shard,
        Some(&docs_json),
    )
}

/// One segment of `segments`, merged in the order of their documents' places (the `ord`
/// column): tantivy lists a chunk's segments by their random ids, and the merged segment's
/// document order, hence its bytes, follows the order it is given.
fn merge_in_order(segments: Vec<Segment>) -> Result<(Index, RamDirectory), WriteError> {
    let mut placed = Vec::with_capacity(segments.len());
    for segment in segments {
        let reader = SegmentReader::open(&segment)?;
        let first = reader
            .fast_fields()
            .u64("ord")?
            .first(0)
            .unwrap_or(u64::MAX);
        placed.push((first, segment));
    }
    placed.sort_by_key(|(first, _)| *first);
    let segments: Vec<Segment> = placed.into_iter().map(|(_, s)| s).collect();
    let settings = segments[0].index().settings().clone();
    let directory = RamDirectory::create();
    let alive = segments.iter().map(|_| None).collect();
    let index =
        tantivy::indexer::merge_filtered_segments(&segments, settings, alive, directory.clone())?;
    // tantivy notes the merged segments' random ids in the payload; the bundle keeps none.
    let mut meta = index.load_metas()?;
    meta.payload = None;
    write_file(&directory, "meta.json", &serde_json::to_vec_pretty(&meta)?)?;
    Ok((Index::open(directory.clone())?, directory))
}

#[cfg(test)]
mod tests {
    use super::super::tantivy_document;
    use super::*;
    use crate::Searcher;

    fn document(i: usize) -> Document {
        Document {
            slug: format!("entry-{i}"),
            title: format!("Failure number {i} of the allocator"),
            url: format!("memory/entry-{i}/"),
            category: "memory".into(),
            severity: "high".into(),
            tags: vec!["oom".into(), format!("tag-{}", i % 3)],
            signatures: vec![format!("RuntimeError: allocator failed in word{i}")],
            symptoms: vec!["it stops".into()],
            summary: format!("Entry {i}."),
            body: "Body text about the allocator. ".repeat(i + 1),
            cues: Default::default(),
        }
    }

    /// Chunks of three over ten documents, indexed afresh.
    fn chunks_of_three(docs: &[Document]) -> Vec<Chunk> {
        (0..docs.len())
            .step_by(3)
            .map(|start| {
                let end = (start + 3).min(docs.len());
                Chunk::index(&docs[start..end], start, Shard::Full).unwrap()
            })
            .collect()
    }

    /// The merged bundle is the same bytes whether its chunks were indexed now, in another run
    /// (other random segment ids), or read back from their files; and it answers as one index
    /// of all the documents does, each document under its own place.
    #[test]
    fn chunks_merge_into_the_same_bytes_and_answers_as_one_index() {
        let docs: Vec<Document> = (0..10).map(document).collect();
        let chunks = chunks_of_three(&docs);
        let bundle = pack_chunks(&chunks, &docs, Shard::Full).unwrap();
        let again = pack_chunks(&chunks_of_three(&docs), &docs, Shard::Full).unwrap();
        assert!(
            bundle == again,
            "indexing the chunks again changed the bundle"
        );
        let read_back: Vec<Chunk> = chunks
            .iter()
            .map(|c| Chunk::from_bytes(&c.to_bytes()).unwrap())
            .collect();
        let from_files = pack_chunks(&read_back, &docs, Shard::Full).unwrap();
        assert!(bundle == from_files, "chunks read back changed the bundle");

        let whole = Chunk::index(&docs, 0, Shard::Full).unwrap();
        let one =
            Searcher::from_bundle(&pack_chunks(&[whole], &docs, Shard::Full).unwrap()).unwrap();
        let merged = Searcher::from_bundle(&bundle).unwrap();
        for query in ["allocator failed in word7", "failure number 4", "tag 2 oom"] {
            let (a, b) = (
                one.search(query, 10).unwrap(),
                merged.search(query, 10).unwrap(),
            );
            assert_eq!(a.len(), b.len(), "{query}");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!((&x.slug, x.score), (&y.slug, y.score), "{query}");
            }
        }
        assert_eq!(merged.search("word7", 1).unwrap()[0].slug, "entry-7");
    }

    /// A chunk whose writer flushed more than one segment (as past its memory budget): here,
    /// one commit per document.
    fn chunk_in_many_segments(docs: &[Document]) -> Chunk {
        let (index, directory, fields, mut writer) = create_index().unwrap();
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for (ord, d) in docs.iter().enumerate() {
            writer
                .add_document(tantivy_document(&fields, ord, d, Shard::Full))
                .unwrap();
            writer.commit().unwrap();
        }
        writer.wait_merging_threads().unwrap();
        assert_eq!(index.searchable_segment_ids().unwrap().len(), docs.len());
        Chunk {
            files: index_files(&index, &directory).unwrap(),
        }
    }

    /// Segments listed in tantivy's order (by random id) are merged in the documents' order.
    #[test]
    fn a_chunk_of_many_segments_merges_in_the_documents_order() {
        let docs: Vec<Document> = (0..6).map(document).collect();
        let bundle = pack_chunks(&[chunk_in_many_segments(&docs)], &docs, Shard::Full).unwrap();
        for _ in 0..3 {
            let again = pack_chunks(&[chunk_in_many_segments(&docs)], &docs, Shard::Full).unwrap();
            assert!(
                bundle == again,
                "the segments' random ids changed the bundle"
            );
        }
        let searcher = Searcher::from_bundle(&bundle).unwrap();
        assert_eq!(searcher.search("word4", 1).unwrap()[0].slug, "entry-4");
    }

    #[test]
    fn chunk_ranges_cover_every_document_once() {
        let ranges: Vec<_> = chunk_ranges(2 * CHUNK_DOCS + 5).collect();
        assert_eq!(
            ranges,
            [
                0..CHUNK_DOCS,
                CHUNK_DOCS..2 * CHUNK_DOCS,
                2 * CHUNK_DOCS..2 * CHUNK_DOCS + 5
            ]
        );
        assert_eq!(chunk_ranges(0).count(), 0);
    }

    #[test]
    fn a_damaged_chunk_file_is_an_error_not_a_chunk() {
        let docs: Vec<Document> = (0..3).map(document).collect();
        let mut bytes = Chunk::index(&docs, 0, Shard::Full).unwrap().to_bytes();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        assert!(Chunk::from_bytes(&bytes).is_err());
        assert!(Chunk::from_bytes(b"not a chunk").is_err());
    }
}
