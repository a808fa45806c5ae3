//! Writing the first-search files from the documents, deterministically: the same documents
//! give the same bytes.

use std::collections::HashMap;

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

/// Every first-search file, as (path under the folder, bytes): `meta.json`, the terms chunks
/// and the docs chunks.
pub fn files(documents: &[Document]) -> Result<Vec<(String, Vec<u8>)>, serde_json::Error> {
    let (postings, tokens) = invert(documents);
    let chunks = chunk_count(&postings);
    let meta = Meta {
        format: FORMAT,
        docs: documents.len() as u32,
        chunks,
        docs_per_chunk: DOCS_PER_CHUNK as u32,
        fields: FIRST_FIELDS
            .iter()
            .zip(tokens)
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
        encode_term(&mut by_chunk[chunk_of(term, chunks) as usize], term, fields);
    }
    out.extend(
        by_chunk
            .into_iter()
            .enumerate()
            .map(|(i, bytes)| (terms_path(i as u32), bytes)),
    );
    for (i, run) in documents.chunks(DOCS_PER_CHUNK).enumerate() {
        let metas: Vec<DocMeta> = run.iter().map(|d| DocMeta::of(d, Shard::First)).collect();
        out.push((docs_path(i as u32), serde_json::to_vec(&metas)?));
    }
    Ok(out)
}

/// Each term's postings, sorted by term, and each field's token count.
fn invert(documents: &[Document]) -> (Vec<(String, TermPostings)>, [u64; 3]) {
    // Gathered in a hash map and sorted once: a sorted map's lookups, a dozen string
    // comparisons per token, were most of the time at 10,000 entries.
    let mut postings: HashMap<String, TermPostings> = HashMap::new();
    let mut tokens = [0u64; 3];
    for (doc, d) in documents.iter().enumerate() {
        for (field, texts) in field_texts(d).iter().enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0u32;
            for text in texts {
                for term in terms(text) {
                    length += 1;
                    *counts.entry(term).or_default() += 1;
                }
            }
            tokens[field] += u64::from(length);
            let norm = FieldNormReader::fieldnorm_to_id(length);
            for (term, tf) in counts {
                let fields = postings
                    .entry(term)
                    .or_insert_with(|| vec![Vec::new(); FIRST_FIELDS.len()]);
                fields[field].push(Posting {
                    doc: doc as u32,
                    tf,
                    norm,
                });
            }
        }
    }
    let mut postings: Vec<(String, TermPostings)> = postings.into_iter().collect();
    postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    (postings, tokens)
}

/// Enough chunks that each holds about [`CHUNK_BYTES`] of postings.
fn chunk_count(postings: &[(String, TermPostings)]) -> u32 {
    let bytes: usize = postings
        .iter()
        .map(|(term, fields)| {
            term.len() + 2 + fields.iter().map(|f| 2 + f.len() * 3).sum::<usize>()
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
