//! Indexing [`Document`]s into a bundle, natively (the tantivy writer needs threads).
//!
//! Takes the documents in a stable order; yields the bundle bytes. The documents are indexed in
//! [`Chunk`]s of consecutive documents (one writer thread each), which a build cache can keep,
//! then merged into a single segment, so the bundle is compact and the searcher has one segment
//! to read. [`LiveIndex`] keeps an index open for rebuilds.
//!
//! A site ships the full index ([`Shard::Full`]). [`Shard::First`], the signature index, is
//! the reference the first-search files ([`crate::first`]) are tested against.

use std::collections::BTreeMap;
use std::path::Path;

use tantivy::directory::{OwnedBytes, RamDirectory};
use tantivy::{doc, Directory, Index, IndexWriter};

mod chunks;

pub use chunks::{chunk_ranges, pack_chunks, Chunk, CHUNK_DOCS};

use crate::bundle::{self, DocMeta, Shard, DOCS_FILE, FIRST_FILE};
use crate::schema::{schema, Fields};
use crate::tokenizer::{ErrorTokenizer, TOKENIZER_NAME};
use crate::Document;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("indexing failed: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("cannot read index file {name}: {reason}")]
    Read { name: String, reason: String },
    #[error("cannot encode the entries' metadata: {0}")]
    Json(#[from] serde_json::Error),
}

const WRITER_MEMORY: usize = 200_000_000;

/// Indexes the documents and packs the full index into one bundle.
pub fn build_bundle(documents: &[Document]) -> Result<Vec<u8>, WriteError> {
    build_shard(documents, Shard::Full)
}

/// Indexes the part of the documents that `shard` holds and packs it into one bundle: in
/// [`Chunk`]s of [`CHUNK_DOCS`], merged into one segment.
pub fn build_shard(documents: &[Document], shard: Shard) -> Result<Vec<u8>, WriteError> {
    let chunks = chunk_ranges(documents.len())
        .map(|range| Chunk::index(&documents[range.clone()], range.start, shard))
        .collect::<Result<Vec<_>, _>>()?;
    pack_chunks(&chunks, documents, shard)
}

/// An index kept open between rebuilds (by `errata serve`): the documents that changed are
/// replaced in place and the bundle is packed from the current segments, so an edit does not
/// index the whole site again. Its bundles hold the same entries as [`build_bundle`]'s, but
/// are not byte-stable (segment ids are tantivy's own), and scores may differ a little while
/// replaced documents still count in term statistics (until their segments are merged).
pub struct LiveIndex {
    index: Index,
    directory: RamDirectory,
    fields: Fields,
    writer: IndexWriter,
    shard: Shard,
    documents: Vec<Document>,
    /// Each document's metadata as JSON, kept so a bundle re-encodes only what changed.
    metadata: Vec<Vec<u8>>,
}

/// Segments a live index may collect before they are merged.
const LIVE_SEGMENTS: usize = 8;

impl LiveIndex {
    pub fn new(documents: &[Document], shard: Shard) -> Result<LiveIndex, WriteError> {
        let Indexed {
            index,
            directory,
            fields,
            mut writer,
        } = Indexed::new(documents, 0, shard)?;
        merge_all(&index, &mut writer)?;
        let metadata = documents
            .iter()
            .map(|d| metadata_json(d, shard))
            .collect::<Result<_, _>>()?;
        Ok(LiveIndex {
            index,
            directory,
            fields,
            writer,
            shard,
            documents: documents.to_vec(),
            metadata,
        })
    }

    /// Replaces the documents given by their place in the list, where they differ from the
    /// last version (what an edit touched; the others are not compared); returns how many
    /// changed.
    pub fn replace(
        &mut self,
        documents: impl IntoIterator<Item = (usize, Document)>,
    ) -> Result<usize, WriteError> {
        let mut changed = 0;
        for (ord, new) in documents {
            let Some(old) = self.documents.get_mut(ord) else {
                continue;
            };
            if new != *old {
                self.metadata[ord] = metadata_json(&new, self.shard)?;
                self.writer
                    .delete_term(tantivy::Term::from_field_u64(self.fields.ord, ord as u64));
                self.writer
                    .add_document(tantivy_document(&self.fields, ord, &new, self.shard))?;
                *old = new;
                changed += 1;
            }
        }
        if changed > 0 {
            self.writer.commit()?;
            if self.index.searchable_segment_ids()?.len() > LIVE_SEGMENTS {
                merge_all(&self.index, &mut self.writer)?;
            }
        }
        Ok(changed)
    }

    /// The bundle of the index as it is now.
    pub fn bundle(&self) -> Result<Vec<u8>, WriteError> {
        // The bytes serde_json gives for the list, `[a,b,…]`, as pieces of the bundle.
        let mut docs: Vec<&[u8]> = Vec::with_capacity(self.metadata.len() * 2 + 2);
        docs.push(b"[");
        for (k, m) in self.metadata.iter().enumerate() {
            if k > 0 {
                docs.push(b",");
            }
            docs.push(m);
        }
        docs.push(b"]");
        pack_index(&self.index, &self.directory, docs, self.shard, None)
    }
}

fn metadata_json(document: &Document, shard: Shard) -> Result<Vec<u8>, WriteError> {
    Ok(serde_json::to_vec(&DocMeta::of(document, shard))?)
}

/// An index holding documents, committed, that merges its segments only when asked
/// ([`merge_all`]): a live index merges after a number of edits, and a [`Chunk`]'s segments
/// are merged in the documents' order with the other chunks'.
struct Indexed {
    index: Index,
    directory: RamDirectory,
    fields: Fields,
    writer: IndexWriter,
}

impl Indexed {
    /// Indexes the part of `documents` that `shard` holds; `first` is the place of the first
    /// one in the site.
    fn new(documents: &[Document], first: usize, shard: Shard) -> Result<Indexed, WriteError> {
        let (index, directory, fields, mut writer) = create_index()?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for (k, d) in documents.iter().enumerate() {
            writer.add_document(tantivy_document(&fields, first + k, d, shard))?;
        }
        writer.commit()?;
        Ok(Indexed {
            index,
            directory,
            fields,
            writer,
        })
    }
}

/// Merges every searchable segment into one.
fn merge_all(index: &Index, writer: &mut IndexWriter) -> Result<(), WriteError> {
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    Ok(())
}

fn create_index() -> Result<(Index, RamDirectory, Fields, IndexWriter), WriteError> {
    let (index_schema, fields) = schema();
    let directory = RamDirectory::create();
    let index = Index::create(
        directory.clone(),
        index_schema,
        tantivy::IndexSettings::default(),
    )?;
    index
        .tokenizers()
        .register(TOKENIZER_NAME, ErrorTokenizer::default());
    let writer: IndexWriter = index.writer_with_num_threads(1, WRITER_MEMORY)?;
    Ok((index, directory, fields, writer))
}

/// A tag as the index reads it: its words apart (`activation-memory` is `activation memory`).
pub(crate) fn tag_text(tag: &str) -> String {
    tag.replace('-', " ")
}

fn tantivy_document(
    fields: &Fields,
    ord: usize,
    d: &Document,
    shard: Shard,
) -> tantivy::TantivyDocument {
    let mut document = doc!(
        fields.ord => ord as u64,
        fields.title => d.title.as_str(),
    );
    for t in &d.tags {
        document.add_text(fields.tags, tag_text(t));
    }
    for s in &d.signatures {
        document.add_text(fields.signatures, s);
    }
    if shard == Shard::Full {
        // Not searched (the metadata carries them): kept in the full index for filters.
        document.add_text(fields.slug, d.slug.as_str());
        document.add_text(fields.category, d.category.as_str());
        document.add_text(fields.summary, d.summary.as_str());
        document.add_text(fields.body, d.body.as_str());
        for s in &d.symptoms {
            document.add_text(fields.symptoms, s);
        }
    }
    document
}

/// Packs the committed index and the documents' metadata (`docs`, in pieces) into a bundle.
/// With a `stable` seed (the whole metadata), the segments are renamed after their content,
/// for byte-identical builds.
fn pack_index(
    index: &Index,
    directory: &RamDirectory,
    docs: Vec<&[u8]>,
    shard: Shard,
    stable: Option<&[u8]>,
) -> Result<Vec<u8>, WriteError> {
    let files = index_files(index, directory)?;
    let mut files = match stable {
        Some(seed) => {
            let segment_ids: Vec<String> = index
                .searchable_segment_metas()?
                .iter()
                .map(|m| m.id().uuid_string())
                .collect();
            stable_segment_ids(files, &segment_ids, seed)
        }
        None => files,
    };
    files.insert(
        ".managed.json".into(),
        OwnedBytes::new(managed_list(&files)?),
    );
    let mut pieces: BTreeMap<&str, Vec<&[u8]>> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), vec![bytes.as_slice()]))
        .collect();
    pieces.insert(DOCS_FILE, docs);
    if shard == Shard::First {
        pieces.insert(FIRST_FILE, vec![br#"{"shard":"first"}"#]);
    }
    Ok(bundle::pack_pieces(&pieces))
}

/// Writes one file of an index into its in-memory directory.
fn write_file(directory: &RamDirectory, name: &str, bytes: &[u8]) -> Result<(), WriteError> {
    directory
        .atomic_write(Path::new(name), bytes)
        .map_err(|e| WriteError::Read {
            name: name.to_owned(),
            reason: e.to_string(),
        })
}

/// The files of an index's searchable segments, with its `meta.json`. They are shared with the
/// directory, not copied: a bundle is the one copy.
fn index_files(
    index: &Index,
    directory: &RamDirectory,
) -> Result<BTreeMap<String, OwnedBytes>, WriteError> {
    let mut files: BTreeMap<String, OwnedBytes> = BTreeMap::new();
    let mut names: Vec<String> = vec!["meta.json".into()];
    for meta in &index.searchable_segment_metas()? {
        use tantivy::index::SegmentComponent as C;
        for component in [
            C::Postings,
            C::Positions,
            C::FastFields,
            C::FieldNorms,
            C::Terms,
            C::Store,
            C::Delete,
        ] {
            names.push(meta.relative_path(component).to_string_lossy().into_owned());
        }
    }
    names.sort();
    names.dedup();
    for name in names {
        match directory.open_read(Path::new(&name)) {
            Ok(file) => {
                let bytes = file.read_bytes().map_err(|e| WriteError::Read {
                    name: name.clone(),
                    reason: e.to_string(),
                })?;
                files.insert(name, bytes);
            }
            Err(tantivy::directory::error::OpenReadError::FileDoesNotExist(_)) => {}
            Err(e) => {
                return Err(WriteError::Read {
                    name,
                    reason: e.to_string(),
                })
            }
        }
    }
    Ok(files)
}

/// tantivy names segments with random UUIDs; renames them to ids derived from the content
/// (in file names and in `meta.json`), so the same documents give a byte-identical bundle.
fn stable_segment_ids(
    files: BTreeMap<String, OwnedBytes>,
    segment_ids: &[String],
    seed: &[u8],
) -> BTreeMap<String, OwnedBytes> {
    let mut renames: Vec<(String, String)> = Vec::new();
    for (n, old) in segment_ids.iter().enumerate() {
        let mut id = String::with_capacity(32);
        for k in 0..4u32 {
            let mut hasher =
                crc32fast::Hasher::new_with_initial(k.wrapping_mul(0x9e37_79b9) ^ n as u32);
            hasher.update(seed);
            id.push_str(&format!("{:08x}", hasher.finalize()));
        }
        renames.push((old.clone(), id));
    }
    let hyphenated = |s: &str| {
        format!(
            "{}-{}-{}-{}-{}",
            &s[0..8],
            &s[8..12],
            &s[12..16],
            &s[16..20],
            &s[20..32]
        )
    };
    files
        .into_iter()
        .map(|(mut name, mut data)| {
            for (old, new) in &renames {
                name = name.replace(old.as_str(), new);
                if name == "meta.json" {
                    let text = String::from_utf8_lossy(&data)
                        .replace(&hyphenated(old), &hyphenated(new))
                        .replace(old.as_str(), new);
                    data = OwnedBytes::new(text.into_bytes());
                }
            }
            (name, data)
        })
        .collect()
}

/// tantivy's list of the files it manages, for the directory the bundle is opened into.
fn managed_list(files: &BTreeMap<String, OwnedBytes>) -> Result<Vec<u8>, serde_json::Error> {
    let names: Vec<&String> = files.keys().collect();
    serde_json::to_vec(&names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(i: usize, title: &str) -> Document {
        Document {
            slug: format!("entry-{i}"),
            title: title.into(),
            url: format!("memory/entry-{i}/"),
            category: "memory".into(),
            severity: "high".into(),
            tags: vec!["oom".into()],
            signatures: vec![format!("RuntimeError: code {i} \"quoted\" <b>")],
            symptoms: vec!["it stops".into()],
            summary: format!("Entry {i}."),
            body: "Body text.".into(),
            cues: Default::default(),
        }
    }

    /// A live index's metadata, kept per document and joined, is the bytes a fresh bundle
    /// encodes for the same documents, before and after a replacement.
    #[test]
    fn live_metadata_equals_a_fresh_bundles() {
        let mut docs: Vec<Document> = (0..5).map(|i| document(i, &format!("Title {i}"))).collect();
        let docs_of = |bundle: &[u8]| crate::bundle::unpack(bundle).unwrap()[DOCS_FILE].to_vec();
        let mut live = LiveIndex::new(&docs, Shard::Full).unwrap();
        assert_eq!(
            docs_of(&live.bundle().unwrap()),
            docs_of(&build_bundle(&docs).unwrap())
        );
        docs[3] = document(3, "A new title for three");
        assert_eq!(live.replace([(3, docs[3].clone())]).unwrap(), 1);
        let after = docs_of(&live.bundle().unwrap());
        assert_eq!(after, docs_of(&build_bundle(&docs).unwrap()));
        assert!(String::from_utf8(after)
            .unwrap()
            .contains("A new title for three"));
    }

    /// The first-search shard scores a query on signatures, titles and tags as the full index
    /// does (per-field statistics are the same), leaves out the other fields, and carries no
    /// signature text.
    #[test]
    fn the_first_shard_scores_its_fields_as_the_full_index() {
        let mut docs: Vec<Document> = (0..6)
            .map(|i| document(i, &format!("Allocator title {i} {}", "word ".repeat(i))))
            .collect();
        docs[3].signatures = vec!["Watchdog caught collective operation timeout".into()];
        let full = crate::Searcher::from_bundle(&build_bundle(&docs).unwrap()).unwrap();
        let first =
            crate::Searcher::from_bundle(&build_shard(&docs, Shard::First).unwrap()).unwrap();
        assert!(first.is_partial() && !full.is_partial());
        assert!(first.docs().iter().all(|d| d.signatures.is_empty()));
        // Title words only: no coverage boost in either, so the scores must be equal.
        let (a, b) = (
            full.search("allocator word", 10).unwrap(),
            first.search("allocator word", 10).unwrap(),
        );
        assert_eq!(a.len(), 6);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((&x.slug, x.score), (&y.slug, y.score));
        }
        // Body and summary words are in the full index only.
        assert_eq!(full.search("body text", 10).unwrap().len(), 6);
        assert!(first.search("body text", 10).unwrap().is_empty());
        // A signature ranks in both; only the full index names it.
        let (a, b) = (
            full.search("watchdog collective", 10).unwrap(),
            first.search("watchdog collective", 10).unwrap(),
        );
        assert_eq!(
            (a[0].slug.as_str(), b[0].slug.as_str()),
            ("entry-3", "entry-3")
        );
        assert!(a[0].matched_signature.is_some() && b[0].matched_signature.is_none());
    }
}
