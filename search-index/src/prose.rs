//! The prose fields' part of a query: tantivy's BM25 over titles, tags, symptoms, summaries and
//! bodies (with signatures too in a first-search shard, which has no signature text to score
//! apart).
//!
//! Takes an opened index; answers query terms with the entries that score best, and with the
//! score of any given entry, so that the searcher can add each entry's best signature's score
//! ([`crate::signature_score`]) to its prose score.

use tantivy::collector::{Collector, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, EnableScoring, Occur, Query, TermQuery, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, IndexReader, Term};

use crate::bundle::BundleError;
use crate::schema::Fields;

/// A term found in more than 1/this of a large index's documents is skipped in prose fields.
pub(crate) const COMMON_TERM_SHARE: u64 = 4;

/// The index's prose fields, and where each entry is in it.
pub(crate) struct Prose {
    fields: Fields,
    /// For each segment, the `ord` column (the index never reloads, so segments are fixed).
    ords: Vec<tantivy::columnar::Column<u64>>,
    /// For each entry (by its `ord`), where the index holds it.
    addresses: Vec<DocAddress>,
    /// Opened from a first-search shard: its signatures field is queried with the rest.
    partial: bool,
}

impl Prose {
    /// The prose fields of an opened index of `count` entries.
    pub(crate) fn open(
        reader: &IndexReader,
        fields: Fields,
        count: usize,
        partial: bool,
    ) -> Result<Prose, BundleError> {
        let ords = (reader.searcher().segment_readers().iter())
            .map(|r| r.fast_fields().u64("ord"))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| BundleError::Index {
                reason: e.to_string(),
            })?;
        let addresses = addresses(reader, &ords, count)?;
        Ok(Prose {
            fields,
            ords,
            addresses,
            partial,
        })
    }

    /// Whether it was opened from a first-search shard.
    pub(crate) fn is_partial(&self) -> bool {
        self.partial
    }

    /// The query over the fields other than signatures, which
    /// [`crate::signature_score::SignatureScorer`] scores, made ready to score (its terms'
    /// statistics read once, for [`Prose::top`] and [`Prose::scores_of`] alike); none when every
    /// term is skipped, or when tantivy cannot read the statistics (then the prose fields score
    /// nothing, and the signatures alone rank). A first-search shard has no signature text to
    /// score apart, and queries its signatures field as one text, as the first-search files rank.
    pub(crate) fn weight(
        &self,
        searcher: &tantivy::Searcher,
        query_terms: &[String],
    ) -> Option<Box<dyn Weight>> {
        let total = searcher.num_docs().max(1);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(query_terms.len() * 5);
        let weighted = (self.fields.weighted().into_iter())
            .filter(|&(field, _)| self.partial || field != self.fields.signatures);
        let weighted: Vec<(Field, f32)> = weighted.collect();
        for term in query_terms {
            for &(field, boost) in &weighted {
                let term = Term::from_field_text(field, term);
                // A term in most documents of a prose field tells little and costs the longest
                // postings; titles keep every term.
                if boost < 2.0
                    && total >= 200
                    && searcher.doc_freq(&term).unwrap_or(0) * COMMON_TERM_SHARE > total
                {
                    continue;
                }
                let q = TermQuery::new(term, IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost))));
            }
        }
        if clauses.is_empty() {
            return None;
        }
        let query = BooleanQuery::new(clauses);
        query
            .weight(EnableScoring::enabled_from_searcher(searcher))
            .ok()
    }

    /// `weight`'s score for each of `ords` (0 where it matches nothing).
    pub(crate) fn scores_of(
        &self,
        searcher: &tantivy::Searcher,
        weight: &dyn Weight,
        ords: &[usize],
    ) -> Vec<(usize, f32)> {
        let mut wanted: Vec<(DocAddress, usize)> = (ords.iter())
            .filter_map(|&o| Some((*self.addresses.get(o)?, o)))
            .collect();
        wanted.sort();
        let mut out: Vec<(usize, f32)> = ords.iter().map(|&o| (o, 0.0)).collect();
        let mut current: Option<(u32, Box<dyn tantivy::query::Scorer>)> = None;
        for (address, ord) in wanted {
            if current
                .as_ref()
                .is_none_or(|(s, _)| *s != address.segment_ord)
            {
                let reader = searcher.segment_reader(address.segment_ord);
                let Ok(scorer) = weight.scorer(reader, 1.0) else {
                    continue;
                };
                current = Some((address.segment_ord, scorer));
            }
            let Some((_, scorer)) = current.as_mut() else {
                continue;
            };
            if scorer.doc() < address.doc_id {
                scorer.seek(address.doc_id);
            }
            if scorer.doc() == address.doc_id {
                let score = scorer.score();
                if let Some(slot) = out.iter_mut().find(|(o, _)| *o == ord) {
                    slot.1 = score;
                }
            }
        }
        out
    }

    /// The best `count` entries for `weight` by tantivy's score, as (entry, score).
    pub(crate) fn top(
        &self,
        searcher: &tantivy::Searcher,
        weight: &dyn Weight,
        count: usize,
    ) -> Vec<(usize, f32)> {
        let collector = TopDocs::with_limit(count).order_by_score();
        let fruits = (searcher.segment_readers().iter().enumerate())
            .map(|(segment, reader)| collector.collect_segment(weight, segment as u32, reader))
            .collect::<tantivy::Result<Vec<_>>>();
        let Ok(top) = fruits.and_then(|fruits| collector.merge_fruits(fruits)) else {
            return Vec::new();
        };
        (top.into_iter())
            .filter_map(|(score, address)| {
                let ord = self
                    .ords
                    .get(address.segment_ord as usize)?
                    .first(address.doc_id)?;
                Some((ord as usize, score))
            })
            .collect()
    }
}

/// For each document (by its `ord`), where the index holds it.
fn addresses(
    reader: &IndexReader,
    ords: &[tantivy::columnar::Column<u64>],
    count: usize,
) -> Result<Vec<DocAddress>, BundleError> {
    let mut out = vec![None; count];
    let searcher = reader.searcher();
    for (segment, column) in ords.iter().enumerate() {
        let segment_reader = searcher.segment_reader(segment as u32);
        // A live index's replaced documents stay in their segment, deleted, until a merge.
        for doc in (0..segment_reader.max_doc()).filter(|&d| !segment_reader.is_deleted(d)) {
            if let Some(slot) = column.first(doc).and_then(|o| out.get_mut(o as usize)) {
                *slot = Some(DocAddress::new(segment as u32, doc));
            }
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.ok_or_else(|| BundleError::Corrupt {
                reason: format!("entry {i} is not in the index"),
            })
        })
        .collect()
}
