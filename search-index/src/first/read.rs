//! Answering a query from the first-search files a browser has fetched so far.

use std::collections::{BTreeSet, HashMap};

use tantivy::query::Bm25Weight;

use super::write::{Posting, TermPostings, END_OF_TERM};
use super::{chunk_of, corrupt, docs_path, get_varint, terms_path, FirstError, Meta, FORMAT};
use crate::bundle::DocMeta;
use crate::prose::COMMON_TERM_SHARE;
use crate::searcher::{best_first, candidates};
use crate::{Hit, SearchAnswer, Searcher};

/// The first-search index as far as it is loaded: its statistics, and the chunks added.
pub struct FirstSearch {
    pub(super) meta: Meta,
    terms: HashMap<u32, HashMap<String, TermPostings>>,
    docs: HashMap<u32, Vec<DocMeta>>,
}

/// An answer, or the chunks it needs first.
#[derive(Debug, Clone, PartialEq)]
pub enum FirstAnswer {
    Ready(SearchAnswer),
    Needs { terms: Vec<u32>, docs: Vec<u32> },
}

impl FirstSearch {
    /// Opens the index from its `meta.json`.
    pub fn open(meta: &[u8]) -> Result<FirstSearch, FirstError> {
        let meta: Meta =
            serde_json::from_slice(meta).map_err(|e| corrupt(super::META_FILE, e.to_string()))?;
        if meta.format != FORMAT {
            return Err(FirstError::Format { found: meta.format });
        }
        if meta.chunks == 0 || meta.docs_per_chunk == 0 || meta.fields.len() > 16 {
            return Err(corrupt(super::META_FILE, "impossible counts"));
        }
        Ok(FirstSearch {
            meta,
            terms: HashMap::new(),
            docs: HashMap::new(),
        })
    }

    /// Entries in the index.
    pub fn len(&self) -> usize {
        self.meta.docs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.meta.docs == 0
    }

    /// Adds a terms chunk (the file at [`terms_path`]).
    pub fn add_terms(&mut self, chunk: u32, bytes: &[u8]) -> Result<(), FirstError> {
        let file = terms_path(chunk);
        if chunk >= self.meta.chunks {
            return Err(corrupt(file, "no such chunk"));
        }
        let terms = decode_terms(bytes, &self.meta).map_err(|reason| corrupt(file, reason))?;
        self.terms.insert(chunk, terms);
        Ok(())
    }

    /// Adds a docs chunk (the file at [`docs_path`]).
    pub fn add_docs(&mut self, chunk: u32, bytes: &[u8]) -> Result<(), FirstError> {
        let file = docs_path(chunk);
        let docs: Vec<DocMeta> =
            serde_json::from_slice(bytes).map_err(|e| corrupt(&file, e.to_string()))?;
        let per = self.meta.docs_per_chunk as usize;
        let expected = (self.len().saturating_sub(chunk as usize * per)).min(per);
        if docs.len() != expected || expected == 0 {
            return Err(corrupt(
                file,
                format!("{} entries, not {expected}", docs.len()),
            ));
        }
        self.docs.insert(chunk, docs);
        Ok(())
    }

    /// Ranks entries for `query` as [`Searcher::answer`] does on a tantivy index of the same
    /// fields, or names the chunks still to add.
    pub fn answer(&self, query: &str, limit: usize) -> FirstAnswer {
        let terms = Searcher::query_terms(query);
        let empty = FirstAnswer::Ready(SearchAnswer {
            query: query.to_owned(),
            hits: Vec::new(),
            partial: true,
        });
        if terms.is_empty() || limit == 0 || self.is_empty() {
            return empty;
        }
        let missing: BTreeSet<u32> = terms
            .iter()
            .map(|t| chunk_of(t, self.meta.chunks))
            .filter(|c| !self.terms.contains_key(c))
            .collect();
        if !missing.is_empty() {
            return FirstAnswer::Needs {
                terms: missing.into_iter().collect(),
                docs: Vec::new(),
            };
        }
        let ranked = self.ranked(&terms, limit);
        let per = self.meta.docs_per_chunk;
        let missing: BTreeSet<u32> = ranked
            .iter()
            .map(|&(_, doc)| doc / per)
            .filter(|c| !self.docs.contains_key(c))
            .collect();
        if !missing.is_empty() {
            return FirstAnswer::Needs {
                terms: Vec::new(),
                docs: missing.into_iter().collect(),
            };
        }
        FirstAnswer::Ready(SearchAnswer {
            query: query.to_owned(),
            hits: self.hits(ranked, limit),
            partial: true,
        })
    }

    /// Each entry's BM25 score over the query's terms: per term and field, tantivy's weight
    /// with the field's boost, summed in the order a query adds its clauses.
    fn scores(&self, terms: &[String]) -> HashMap<u32, f32> {
        let total = u64::from(self.meta.docs.max(1));
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for term in terms {
            let Some(fields) = self.terms[&chunk_of(term, self.meta.chunks)].get(term) else {
                continue;
            };
            for (stats, postings) in self.meta.fields.iter().zip(fields) {
                let df = postings.len() as u64;
                if postings.is_empty()
                    || (stats.boost < 2.0 && total >= 200 && df * COMMON_TERM_SHARE > total)
                {
                    continue;
                }
                let average = stats.tokens as f32 / total as f32;
                let weight = Bm25Weight::for_one_term_without_explain(df, total, average);
                for p in postings {
                    *scores.entry(p.doc).or_default() += weight.score(p.norm, p.tf) * stats.boost;
                }
            }
        }
        scores
    }

    /// The entries that can end up among the first `limit`: the BM25 candidates (ties to the
    /// earlier entry, as tantivy's top docs), cut to those scoring at least the `limit`-th,
    /// since the final order breaks ties by slug.
    fn ranked(&self, terms: &[String], limit: usize) -> Vec<(f32, u32)> {
        let mut ranked: Vec<(f32, u32)> = self
            .scores(terms)
            .into_iter()
            .map(|(doc, score)| (score, doc))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.truncate(candidates(limit));
        if let Some(&(floor, _)) = ranked.get(limit.saturating_sub(1)) {
            ranked.retain(|&(score, _)| score >= floor);
        }
        ranked
    }

    fn hits(&self, ranked: Vec<(f32, u32)>, limit: usize) -> Vec<Hit> {
        let per = self.meta.docs_per_chunk;
        let hits: Vec<Hit> = ranked
            .into_iter()
            .filter_map(|(score, doc)| {
                let meta = self.docs.get(&(doc / per))?.get((doc % per) as usize)?;
                Some(Hit::unmatched(meta, score))
            })
            .collect();
        best_first(hits, limit)
    }
}

/// The terms of one chunk, each checked: lengths within the bytes, fields known, entries in
/// order and in range.
fn decode_terms(bytes: &[u8], meta: &Meta) -> Result<HashMap<String, TermPostings>, String> {
    let mut terms = HashMap::new();
    let mut at = 0;
    let truncated = || "truncated".to_string();
    while at < bytes.len() {
        let len = get_varint(bytes, &mut at).ok_or_else(truncated)? as usize;
        let text = bytes
            .get(at..at.saturating_add(len))
            .ok_or_else(truncated)?;
        let term = std::str::from_utf8(text)
            .map_err(|e| e.to_string())?
            .to_owned();
        at += len;
        let mut fields: TermPostings = vec![Vec::new(); meta.fields.len()];
        loop {
            let field = *bytes.get(at).ok_or_else(truncated)?;
            at += 1;
            if field == END_OF_TERM {
                break;
            }
            let list = fields
                .get_mut(field as usize)
                .ok_or_else(|| format!("field {field}"))?;
            let count = get_varint(bytes, &mut at).ok_or_else(truncated)?;
            if count == 0 || count > u64::from(meta.docs) {
                return Err(format!("{count} postings"));
            }
            let mut doc = 0u64;
            for i in 0..count {
                let gap = get_varint(bytes, &mut at).ok_or_else(truncated)?;
                if i > 0 && gap == 0 {
                    return Err("postings out of order".into());
                }
                doc = doc.saturating_add(gap);
                let tf = get_varint(bytes, &mut at).ok_or_else(truncated)?;
                let norm = *bytes.get(at).ok_or_else(truncated)?;
                at += 1;
                if doc >= u64::from(meta.docs) || tf == 0 || tf > u64::from(u32::MAX) {
                    return Err(format!("posting of entry {doc}, count {tf}"));
                }
                list.push(Posting {
                    doc: doc as u32,
                    tf: tf as u32,
                    norm,
                });
            }
        }
        terms.insert(term, fields);
    }
    Ok(terms)
}
