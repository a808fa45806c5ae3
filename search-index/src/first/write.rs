//! Writing the first-search files from the documents, deterministically: the same documents
//! give the same bytes.

use rustc_hash::FxHashMap;
use tantivy::fieldnorm::FieldNormReader;

use super::{
    chunk_of, docs_path, put_varint, terms_path, FieldStats, Meta, CHUNK_BYTES, DOCS_PER_CHUNK,
    FORMAT, META_FILE,
};
use crate::bundle::{DocMeta, Shard};
use crate::schema::FIRST_FIELDS;
use crate::tokenizer::terms;
use crate::writer::tag_text;
use crate::Document;

/// One entry's place, its count of a term in a field, and the field's length code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Posting {
    pub doc: u32,
    pub tf: u32,
    pub norm: u8,
}

/// The postings of one term, per field of [`FIRST_FIELDS`].
pub(super) type TermPostings = Vec<Vec<Posting>>;

/// Ends a term's list of fields in a terms chunk.
pub(super) const END_OF_TERM: u8 = 0xff;

/// The texts a document gives each field of [`FIRST_FIELDS`], as the index writer adds them.
fn field_texts(d: &Document) -> [Vec<String>; 3] {
    [
        d.signatures.clone(),
        vec![d.title.clone()],
        d.tags.iter().map(|t| tag_text(t)).collect(),
    ]
}

/// What the first-search files take from one document: per field of [`FIRST_FIELDS`], each
/// term with its count and the field's length in tokens; and its metadata as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FirstDoc {
    fields: [(Vec<(String, u32)>, u32); 3],
    meta: Vec<u8>,
}

impl FirstDoc {
    fn of(d: &Document) -> Result<FirstDoc, serde_json::Error> {
        let fields = field_texts(d).map(|texts| {
            let mut counts: FxHashMap<String, u32> = FxHashMap::default();
            let mut length = 0u32;
            for text in &texts {
                for term in terms(text) {
                    length += 1;
                    *counts.entry(term).or_default() += 1;
                }
            }
            (counts.into_iter().collect(), length)
        });
        let meta = serde_json::to_vec(&DocMeta::of(d, Shard::First))?;
        Ok(FirstDoc { fields, meta })
    }
}

/// The documents as the first-search files need them, kept by `errata serve` between edits
/// so that an edit tokenizes only the documents it changed.
#[derive(Debug, Clone, Default)]
pub struct FirstDocs {
    docs: Vec<FirstDoc>,
}

impl FirstDocs {
    pub fn of(documents: &[Document]) -> Result<FirstDocs, serde_json::Error> {
        let docs = documents
            .iter()
            .map(FirstDoc::of)
            .collect::<Result<_, _>>()?;
        Ok(FirstDocs { docs })
    }

    /// Replaces the documents given by their place in the list (places past its end are
    /// left out, as the live index does).
    pub fn replace<'a>(
        &mut self,
        documents: impl IntoIterator<Item = (usize, &'a Document)>,
    ) -> Result<(), serde_json::Error> {
        for (place, d) in documents {
            if let Some(old) = self.docs.get_mut(place) {
                *old = FirstDoc::of(d)?;
            }
        }
        Ok(())
    }

    /// Every first-search file, as (path under the folder, bytes).
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>, serde_json::Error> {
        let mut gathered = Gathered::default();
        for d in &self.docs {
            let fields = (d.fields.each_ref())
                .map(|(counts, length)| (counts.iter().map(|(t, n)| (t.as_str(), *n)), *length));
            gathered.add(fields, &d.meta);
        }
        gathered.files()
    }
}

/// Every first-search file of `documents`, as (path under the folder, bytes): each document
/// is counted and gathered in turn, so they are never all held counted at once.
pub fn files(documents: &[Document]) -> Result<Vec<(String, Vec<u8>)>, serde_json::Error> {
    let mut gathered = Gathered::default();
    for d in documents {
        let FirstDoc { fields, meta } = FirstDoc::of(d)?;
        gathered.add(fields, &meta);
    }
    gathered.files()
}

/// The first-search files' contents, gathered one document at a time: each term's postings
/// (keyed by `K`, an owned or borrowed term), each field's token count, and the docs chunks.
struct Gathered<K> {
    postings: FxHashMap<K, TermPostings>,
    tokens: [u64; 3],
    docs: u32,
    /// The docs chunks, each the JSON list serde_json gives for its run of metadata.
    doc_chunks: Vec<Vec<u8>>,
}

impl<K> Default for Gathered<K> {
    fn default() -> Self {
        Gathered {
            postings: FxHashMap::default(),
            tokens: [0; 3],
            docs: 0,
            doc_chunks: Vec::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq + AsRef<str>> Gathered<K> {
    /// Adds the next document: per field, its terms with their counts and its length; and
    /// its metadata as JSON.
    fn add<C: IntoIterator<Item = (K, u32)>>(&mut self, fields: [(C, u32); 3], meta: &[u8]) {
        let doc = self.docs;
        for (field, (counts, length)) in fields.into_iter().enumerate() {
            self.tokens[field] += u64::from(length);
            let norm = FieldNormReader::fieldnorm_to_id(length);
            for (term, tf) in counts {
                let fields = (self.postings.entry(term))
                    .or_insert_with(|| vec![Vec::new(); FIRST_FIELDS.len()]);
                fields[field].push(Posting { doc, tf, norm });
            }
        }
        if doc as usize % DOCS_PER_CHUNK == 0 {
            self.doc_chunks.push(vec![b'[']);
        } else if let Some(list) = self.doc_chunks.last_mut() {
            list.push(b',');
        }
        if let Some(list) = self.doc_chunks.last_mut() {
            list.extend_from_slice(meta);
        }
        self.docs += 1;
    }

    /// `meta.json`, the terms chunks and the docs chunks.
    fn files(self) -> Result<Vec<(String, Vec<u8>)>, serde_json::Error> {
        // Gathered in a hash map and sorted once: a sorted map's lookups, a dozen string
        // comparisons per token, were most of the time at 10,000 entries.
        let mut postings: Vec<(K, TermPostings)> = self.postings.into_iter().collect();
        postings.sort_unstable_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let chunks = chunk_count(&postings);
        let meta = Meta {
            format: FORMAT,
            docs: self.docs,
            chunks,
            docs_per_chunk: DOCS_PER_CHUNK as u32,
            fields: FIRST_FIELDS
                .iter()
                .zip(self.tokens)
                .map(|((name, boost), tokens)| FieldStats {
                    name: (*name).into(),
                    boost: *boost,
                    tokens,
                })
                .collect(),
        };
        let mut out = vec![(META_FILE.to_string(), serde_json::to_vec(&meta)?)];
        let mut by_chunk: Vec<Vec<u8>> = vec![Vec::new(); chunks as usize];
        for (term, fields) in &postings {
            let term = term.as_ref();
            encode_term(&mut by_chunk[chunk_of(term, chunks) as usize], term, fields);
        }
        out.extend(
            by_chunk
                .into_iter()
                .enumerate()
                .map(|(i, bytes)| (terms_path(i as u32), bytes)),
        );
        out.extend(
            self.doc_chunks
                .into_iter()
                .enumerate()
                .map(|(i, mut list)| {
                    list.push(b']');
                    (docs_path(i as u32), list)
                }),
        );
        Ok(out)
    }
}

/// Enough chunks that each holds about [`CHUNK_BYTES`] of postings.
fn chunk_count<K: AsRef<str>>(postings: &[(K, TermPostings)]) -> u32 {
    let bytes: usize = postings
        .iter()
        .map(|(term, fields)| {
            term.as_ref().len() + 2 + fields.iter().map(|f| 2 + f.len() * 3).sum::<usize>()
        })
        .sum();
    bytes.div_ceil(CHUNK_BYTES).max(1) as u32
}

/// A term in a terms chunk: its length and bytes, then per field that has postings the field's
/// place, the count and each posting (the entry as a gap from the one before, the count, the
/// length code), then [`END_OF_TERM`].
fn encode_term(out: &mut Vec<u8>, term: &str, fields: &TermPostings) {
    put_varint(out, term.len() as u64);
    out.extend_from_slice(term.as_bytes());
    for (field, list) in fields.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        out.push(field as u8);
        put_varint(out, list.len() as u64);
        let mut last = 0u32;
        for p in list {
            put_varint(out, u64::from(p.doc - last));
            put_varint(out, u64::from(p.tf));
            out.push(p.norm);
            last = p.doc;
        }
    }
    out.push(END_OF_TERM);
}
