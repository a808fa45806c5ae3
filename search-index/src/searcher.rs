//! Opening a bundle and answering queries.
//!
//! Takes a bundle's bytes (or documents, which are bundled in memory first, so both paths run
//! the same code); answers any text with ranked [`Hit`]s. A query is never parsed as query
//! syntax: the text is tokenized like the index and every term becomes a weighted optional
//! clause over the prose fields (title, tags, symptoms, summary, body), so quotes, colons,
//! `AND(` or 10 kB of junk are all just text. The signatures are scored one by one
//! (`signature_score`), an entry counting its best. The BM25 score is then raised by
//! how much of the entry's best signature the query covers, and that signature is reported as
//! the one that matched.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;
use tantivy::directory::RamDirectory;
use tantivy::{Directory, Index, IndexReader, ReloadPolicy, Term};

use crate::bundle::{self, BundleError, DocMeta, DOCS_FILE, FIRST_FILE};
use crate::coverage::{
    begins_otherwise, best_run, cut_copy, ends_otherwise, first_sentence_len, goes_otherwise,
    head_len, line_head_len, longest_run, outranks, share, Match,
};
use crate::integrity::{check_doc_count, check_footers, guarded};
use crate::log::cues::{CueKind, CueSet};
use crate::prose::Prose;
use crate::schema::{fields_of, Fields, SIGNATURES_BOOST};
use crate::signature_score::{Best, SignatureScorer};
use crate::tokenizer::{terms, ErrorTokenizer, TOKENIZER_NAME};
use crate::vocabulary::{self, names_a_generic_exception};
use crate::Document;

/// A signature of this many terms or more is not matched specifically by one of them alone.
const LONE_WORD_SIGNATURE: usize = 3;

/// A query covering this much of any signature of an entry, with a word of it that is not
/// common, matches the entry specifically, whichever signature it matches best:
/// `torch.OutOfMemoryError: CUDA out of memory.` is matched best by `CUDA error: out of memory`,
/// all common words, and shares `OutOfMemoryError` with `torch.OutOfMemoryError: CUDA out of
/// memory. Tried to allocate`.
const SPECIFIC_COVERAGE: f32 = 0.5;

/// At most this many distinct terms of a query are searched; the rest of a huge paste is noise.
pub const MAX_QUERY_TERMS: usize = 64;

/// Hits scoring under this share of the best one are noise, not answers.
const MIN_RELATIVE_SCORE: f32 = 0.04;

/// How much full coverage of a signature multiplies the BM25 score by (1 + this).
const COVERAGE_BOOST: f32 = 6.0;

/// How many entries are ranked by BM25 before the coverage boost reorders them.
pub(crate) fn candidates(limit: usize) -> usize {
    limit.saturating_mul(4).max(20)
}

/// Hits best first (ties by slug), without those far behind the best, at most `limit`.
pub(crate) fn best_first(mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.slug.cmp(&b.slug))
    });
    if let Some(top) = hits.first().map(|h| h.score) {
        hits.retain(|h| h.score >= top * MIN_RELATIVE_SCORE);
    }
    hits.truncate(limit);
    hits
}

/// One ranked entry.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    pub slug: String,
    pub title: String,
    pub url: String,
    pub category: String,
    pub severity: String,
    pub score: f32,
    /// The entry's signature that the query covers best, if it covers any term of one.
    pub matched_signature: Option<String>,
    /// The share of that signature's terms found in the query, 0 to 1.
    pub coverage: f32,
    /// The share of that signature's defining terms (its words that few entries' signatures
    /// have, such as `flash_attn` or `expandable_segments`) found in the query; 1 when it has
    /// none.
    pub defining: f32,
    /// Whether the query holds that whole signature, or shares with it a word that few entries'
    /// signatures have (and, of a signature of three words or more, more than one word): a part
    /// of a signature matched on words such as `error` and `runtime` alone, or on one word of a
    /// longer message, says little of which entry it is.
    #[serde(skip)]
    pub specific: bool,
    /// Whether that signature has defining terms at all; one of words many entries share has
    /// none, and its `defining` is 1 whatever the query.
    #[serde(skip)]
    pub defined: bool,
    /// The share of that signature's message (its words after the exception's name) found in
    /// the query as one run in its order.
    #[serde(skip)]
    pub phrase: f32,
    /// How many terms of that signature's message the query holds as that run.
    #[serde(skip)]
    pub run: usize,
    /// Whether the query says the start of that message, then another word where the message
    /// goes on (`CUDA error: invalid device pointer` against `CUDA error: invalid device
    /// function`): a sibling of the message, not the message ([`ends_otherwise`],
    /// [`goes_otherwise`]).
    #[serde(skip)]
    pub ends_otherwise: bool,
}

impl Hit {
    /// The entry of `meta` at `score`, matching no signature (as a first-search hit does).
    pub(crate) fn unmatched(meta: &DocMeta, score: f32) -> Hit {
        Hit {
            slug: meta.slug.clone(),
            title: meta.title.clone(),
            url: meta.url.clone(),
            category: meta.category.clone(),
            severity: meta.severity.clone(),
            score,
            matched_signature: None,
            coverage: 0.0,
            defining: 0.0,
            specific: false,
            defined: false,
            phrase: 0.0,
            run: 0,
            ends_otherwise: false,
        }
    }
}

/// The answer to a query, as `errata search --json` prints it and the browser receives it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchAnswer {
    pub query: String,
    pub hits: Vec<Hit>,
    /// Set when the answer comes from a first-search shard: ranked by BM25 over signatures,
    /// titles and tags alone, with no matched signatures; the full index may rank otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// An opened index.
pub struct Searcher {
    reader: IndexReader,
    fields: Fields,
    docs: Vec<DocMeta>,
    /// The prose fields, which tantivy scores.
    prose: Prose,
    /// The signatures, each scored on its own.
    signature_scorer: SignatureScorer,
    /// For each document, each signature's terms in order.
    signature_terms: Vec<Vec<Vec<String>>>,
    /// For each signature, how many of its terms are its exception's name.
    signature_heads: Vec<Vec<usize>>,
    /// For each signature, whether that name is one of Python's own exceptions: words any
    /// failure can raise, which say nothing of what failed.
    python_heads: Vec<Vec<bool>>,
    /// For each signature, how many terms of its message (after its exception's name) its first
    /// sentence has ([`first_sentence_len`]).
    signature_sentences: Vec<Vec<usize>>,
    /// Every distinct signature term, sorted (see [`vocabulary::completions`]).
    sorted_terms: Vec<String>,
    /// Terms found in the signatures of at most [`vocabulary::DEFINING_DOCS`] entries.
    rare: HashSet<String>,
    /// Terms found in the signatures of at least [`vocabulary::COMMON_DOCS`] entries.
    common: HashSet<String>,
    /// Every entry's cues, and the entry each belongs to.
    cues: CueSet,
    cue_docs: Vec<usize>,
}

impl Searcher {
    /// Opens a bundle written by [`crate::build_bundle`].
    pub fn from_bundle(bytes: &[u8]) -> Result<Searcher, BundleError> {
        guarded(|| Searcher::open_unguarded(bytes))
    }

    fn open_unguarded(bytes: &[u8]) -> Result<Searcher, BundleError> {
        let files = bundle::unpack(bytes)?;
        let partial = files.contains_key(FIRST_FILE);
        let docs: Vec<DocMeta> =
            serde_json::from_slice(files.get(DOCS_FILE).ok_or(BundleError::Missing {
                name: DOCS_FILE.into(),
            })?)
            .map_err(|e| BundleError::Corrupt {
                reason: format!("{DOCS_FILE}: {e}"),
            })?;
        let meta = files.get("meta.json").ok_or(BundleError::Missing {
            name: "meta.json".into(),
        })?;
        check_doc_count(meta, docs.len())?;
        let directory = RamDirectory::create();
        for (name, data) in &files {
            if name != DOCS_FILE && name != FIRST_FILE {
                directory
                    .atomic_write(Path::new(name), data)
                    .map_err(|e| BundleError::Index {
                        reason: e.to_string(),
                    })?;
            }
        }
        check_footers(&directory, &files)?;
        let index_error = |e: tantivy::TantivyError| BundleError::Index {
            reason: e.to_string(),
        };
        let index = Index::open(directory).map_err(index_error)?;
        index
            .tokenizers()
            .register(TOKENIZER_NAME, ErrorTokenizer::default());
        let fields = fields_of(&index.schema()).map_err(index_error)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(index_error)?;
        let num_docs = reader.searcher().num_docs() as usize;
        if num_docs != docs.len() {
            return Err(BundleError::Corrupt {
                reason: format!("{num_docs} indexed documents but {} entries", docs.len()),
            });
        }
        let signature_terms = per_signature(&docs, |s| terms(s));
        let signature_heads = per_signature(&docs, head_len);
        let python_heads = per_signature(&docs, names_a_generic_exception);
        let signature_sentences =
            per_signature(&docs, |s| first_sentence_len(s).saturating_sub(head_len(s)));
        let (rare, common) = vocabulary::rare_and_common(&signature_terms);
        let sorted_terms = vocabulary::sorted_terms(&signature_terms);
        let (cues, cue_docs) = cue_set(&docs);
        let prose = Prose::open(&reader, fields, docs.len(), partial)?;
        let signature_scorer = SignatureScorer::new(&signature_terms);
        Ok(Searcher {
            reader,
            fields,
            prose,
            signature_scorer,
            docs,
            signature_terms,
            signature_heads,
            python_heads,
            signature_sentences,
            sorted_terms,
            rare,
            common,
            cues,
            cue_docs,
        })
    }

    /// Indexes documents in memory and opens them, through the same bundle code as the site.
    pub fn from_documents(documents: &[Document]) -> Result<Searcher, crate::WriteError> {
        let bytes = crate::build_bundle(documents)?;
        Searcher::from_bundle(&bytes).map_err(|e| crate::WriteError::Read {
            name: "bundle".into(),
            reason: e.to_string(),
        })
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn docs(&self) -> &[DocMeta] {
        &self.docs
    }

    /// True when opened from a first-search shard (see [`SearchAnswer::partial`]).
    pub fn is_partial(&self) -> bool {
        self.prose.is_partial()
    }

    /// The distinct terms a text is searched by, in order of first appearance, capped.
    pub fn query_terms(text: &str) -> Vec<String> {
        let mut seen = HashSet::new();
        terms(text)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .take(MAX_QUERY_TERMS)
            .collect()
    }

    /// [`Searcher::search`] with the query, as one answer.
    pub fn answer(&self, query: &str, limit: usize) -> Result<SearchAnswer, BundleError> {
        Ok(SearchAnswer {
            query: query.to_owned(),
            hits: self.search(query, limit)?,
            partial: self.is_partial(),
        })
    }

    /// Ranks entries for any text. An error only when the index turns out to be damaged. A last
    /// word that a paste cut short is searched as the signature words it begins, too.
    pub fn search(&self, text: &str, limit: usize) -> Result<Vec<Hit>, BundleError> {
        let mut sequence = terms(text);
        let message = sequence[line_head_len(text).min(sequence.len())..].to_vec();
        let cut = vocabulary::completions(text, &self.sorted_terms);
        sequence.extend(cut.into_iter().map(str::to_owned));
        let mut seen = HashSet::new();
        let query_terms: Vec<String> = sequence
            .iter()
            .filter(|t| seen.insert(t.as_str()))
            .take(MAX_QUERY_TERMS)
            .cloned()
            .collect();
        self.search_terms(&query_terms, (&sequence, &message), limit)
    }

    /// Ranks entries for distinct query terms; `sequence` is the text's terms in order, for
    /// matching signatures as phrases, and its message (its terms after its exception's name,
    /// without a cut word's completions).
    fn search_terms(
        &self,
        query_terms: &[String],
        sequence: (&[String], &[String]),
        limit: usize,
    ) -> Result<Vec<Hit>, BundleError> {
        // A bundle can pass every check at opening and still hold damaged term dictionaries
        // (the bundle fuzz target found one): a search that trips on them is an error.
        guarded(|| Ok(self.search_terms_unguarded(query_terms, sequence, limit)))
    }

    fn search_terms_unguarded(
        &self,
        query_terms: &[String],
        sequence: (&[String], &[String]),
        limit: usize,
    ) -> Vec<Hit> {
        if query_terms.is_empty() || limit == 0 || self.docs.is_empty() {
            return Vec::new();
        }
        let searcher = self.reader.searcher();
        let term_set: HashSet<&str> = query_terms.iter().map(String::as_str).collect();
        let hits = (self.scored_candidates(&searcher, query_terms, candidates(limit)))
            .into_iter()
            .filter_map(|(ord, score)| self.hit(ord, score, &term_set, sequence))
            .collect();
        best_first(hits, limit)
    }

    /// The `count` entries scoring best: BM25 over the prose fields (tantivy's) plus BM25 on the
    /// entry's best signature ([`SignatureScorer`]), each weighed by its field's boost. The
    /// candidates are the best `count` by either score.
    fn scored_candidates(
        &self,
        searcher: &tantivy::Searcher,
        query_terms: &[String],
        count: usize,
    ) -> Vec<(usize, f32)> {
        let prose = self.prose.weight(searcher, query_terms);
        let mut scores = match &prose {
            Some(weight) => self.prose.top(searcher, weight.as_ref(), count),
            None => Vec::new(),
        };
        let signature = self.signature_scores(searcher, query_terms);
        let unscored: Vec<usize> = (signature.top(count).into_iter())
            .filter(|d| !scores.iter().any(|(o, _)| o == d))
            .collect();
        match &prose {
            Some(weight) => {
                scores.extend(self.prose.scores_of(searcher, weight.as_ref(), &unscored))
            }
            None => scores.extend(unscored.iter().map(|&d| (d, 0.0))),
        }
        for (ord, score) in scores.iter_mut() {
            *score += SIGNATURES_BOOST * signature.scores.get(*ord).copied().unwrap_or(0.0);
        }
        scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scores.truncate(count);
        scores
    }

    /// Each entry's BM25 score on its best signature, with each term's inverse document
    /// frequency from the index's signatures field (so a damaged term dictionary is found
    /// here, as a tantivy query over the field would find it).
    fn signature_scores(&self, searcher: &tantivy::Searcher, query_terms: &[String]) -> Best {
        // Tantivy's own statistics: documents replaced in a live index count in both until a
        // merge, so the count is every segment's, deleted documents too.
        let total: u64 = (searcher.segment_readers().iter())
            .map(|r| u64::from(r.max_doc()))
            .sum();
        self.signature_scorer.best(query_terms, |term| {
            let term = Term::from_field_text(self.fields.signatures, term);
            let df = searcher.doc_freq(&term).unwrap_or(0).min(total);
            (1.0 + ((total - df) as f32 + 0.5) / (df as f32 + 0.5)).ln()
        })
    }

    /// Entry `ord` as a hit for a query whose BM25 score is `score`, weighed by how well the
    /// query matches its best signature: a signature missing its defining words is matched the
    /// less.
    fn hit(
        &self,
        ord: usize,
        score: f32,
        query: &HashSet<&str>,
        sequence: (&[String], &[String]),
    ) -> Option<Hit> {
        let meta = self.docs.get(ord)?;
        let (matched_signature, coverage, (defining, defined), specific, (phrase, run, ends)) =
            self.best_signature(ord, query, sequence);
        let matched = coverage * (0.5 + 0.5 * defining);
        Some(Hit {
            score: score * (1.0 + COVERAGE_BOOST * matched * matched * matched),
            matched_signature,
            coverage,
            defining,
            specific,
            defined,
            phrase,
            run,
            ends_otherwise: ends,
            ..Hit::unmatched(meta, score)
        })
    }

    /// The signature the query matches best: coverage weighed by the share of its defining words
    /// found, as [`Searcher::hit`] weighs it (ties: the higher coverage, the longer). Coverage
    /// is the mean of the share of its terms found anywhere in the query and of the share found
    /// as one run in its order. `CUDA out of memory. Tried to allocate` is matched by the
    /// signature whose defining words it has, not by `HIP out of memory. Tried to allocate`.
    fn best_signature(
        &self,
        ord: usize,
        query: &HashSet<&str>,
        (sequence, message): (&[String], &[String]),
    ) -> (Option<String>, f32, (f32, bool), bool, (f32, usize, bool)) {
        let mut best: Option<(Match, usize, (f32, bool))> = None;
        let mut specific = false;
        for (i, sig_terms) in self.signature_terms[ord].iter().enumerate() {
            let found = sig_terms
                .iter()
                .filter(|t| query.contains(t.as_str()))
                .count();
            if found == 0 {
                continue;
            }
            let bag = found as f32 / sig_terms.len() as f32;
            let run = longest_run(sig_terms, sequence) as f32 / sig_terms.len() as f32;
            let coverage = (bag + run) / 2.0;
            // A line cut inside a word lacks the words after the cut for that reason alone; one
            // that holds half of the signature so is matched by more than common words.
            let cut = cut_copy(sig_terms, self.signature_heads[ord][i], message);
            specific = specific || cut.is_some_and(|held| 2 * held >= sig_terms.len());
            let held = cut.unwrap_or(sig_terms.len());
            let defining = self.defining_share(&sig_terms[..held], query);
            let weighed = coverage * (0.5 + 0.5 * defining.0);
            specific =
                specific || (coverage >= SPECIFIC_COVERAGE && self.is_specific((ord, i), query));
            let rank = (weighed, coverage, sig_terms.len());
            if best.is_none_or(|(r, _, _)| outranks(rank, r)) {
                best = Some((rank, i, defining));
            }
        }
        match best {
            Some(((_, coverage, _), i, defining)) => (
                Some(self.docs[ord].signatures[i].clone()),
                coverage,
                defining,
                specific || self.is_specific((ord, i), query),
                self.message_phrase(ord, i, (sequence, message)),
            ),
            None => (None, 0.0, (0.0, false), false, (0.0, 0, false)),
        }
    }

    /// The share of signature `i`'s message found as one run in the line ([`share`]). When the
    /// signature names an exception, its message is sought in the line's message: the words of the
    /// line's own exception name are not its message (`AssertionError: Expected latents` says
    /// nothing of `AssertionError: Optimizer set error` by the `error` of its name). A line that
    /// ends the message on another word where its last is a defining one says none of it
    /// ([`ends_otherwise`]): `killed by signal: Aborted.` is not `killed by signal: Killed.`, while
    /// `but found` for `but got` is the same message in another release's words; nor does one that
    /// says it about another subject ([`begins_otherwise`]). A line that ends it on another word
    /// where its last is a common one holds the message's phrase but is flagged: `invalid device
    /// pointer` is a sibling of `invalid device function`, which can point at the entry, never name
    /// it.
    fn message_phrase(
        &self,
        ord: usize,
        i: usize,
        (sequence, message): (&[String], &[String]),
    ) -> (f32, usize, bool) {
        let (terms, head) = (&self.signature_terms[ord][i], self.signature_heads[ord][i]);
        let line = if head > 0 { message } else { sequence };
        let said = terms.get(head..).unwrap_or_default();
        // One run serves the three readings of the message.
        let best = best_run(said, line);
        let longest = best.map_or(0, |(_, _, len)| len);
        let ends = ends_otherwise(said, line, longest);
        if ends && said.last().is_some_and(|t| self.rare.contains(t)) {
            return (0.0, 0, false);
        }
        if head > 0 && begins_otherwise(said, line, best) {
            return (0.0, 0, false);
        }
        let (phrase, run) = share(said, longest);
        let sentence = self.signature_sentences[ord][i];
        (
            phrase,
            run,
            ends || goes_otherwise(said, line, best, sentence),
        )
    }

    /// Whether a query shares more than common words with `signature`, or all of it: every
    /// word, in whatever order (`backend CUDA but got backend CPU` holds all of `backend CPU but
    /// got backend CUDA`). One word shared with a message of three words or more (`core` of
    /// `numpy.core.multiarray failed to import` in `Aborted (core dumped)`) is a coincidence as
    /// often as not, however rare the word; so is one word and Python's name for the exception
    /// (`integer` of `ValueError: Integer parameters are unsupported` in `ValueError:
    /// num_samples should be a positive integer value`), which any failure can raise.
    fn is_specific(&self, (ord, i): (usize, usize), query: &HashSet<&str>) -> bool {
        let signature = &self.signature_terms[ord][i];
        let shared: HashSet<&str> = signature
            .iter()
            .map(String::as_str)
            .filter(|t| query.contains(t))
            .collect();
        let name = match self.python_heads[ord][i] {
            true => self.signature_heads[ord][i],
            false => 0,
        };
        let message = signature.get(name..).unwrap_or_default();
        let own: HashSet<&str> = (message.iter().map(String::as_str))
            .filter(|t| shared.contains(t) && !vocabulary::is_generic(t))
            .collect();
        let lone_word = own.len() <= 1 && signature.len() >= LONE_WORD_SIGNATURE;
        let every_word = signature.iter().all(|t| shared.contains(t.as_str()));
        every_word || (!lone_word && shared.iter().any(|t| !self.common.contains(*t)))
    }

    /// The share of a signature's defining terms found in the query (1 when it has none), and
    /// whether it has any.
    fn defining_share(&self, signature: &[String], query: &HashSet<&str>) -> (f32, bool) {
        let defining: HashSet<&str> = signature
            .iter()
            .map(String::as_str)
            .filter(|t| self.rare.contains(*t))
            .collect();
        if defining.is_empty() {
            return (1.0, false);
        }
        let found = defining.iter().filter(|t| query.contains(*t)).count();
        (found as f32 / defining.len() as f32, true)
    }

    /// Every entry's cues, and for each cue the entry (its place in [`Searcher::docs`]).
    pub fn cues(&self) -> (&CueSet, &[usize]) {
        (&self.cues, &self.cue_docs)
    }
}

/// `f` of each signature of each document, in the documents' order.
fn per_signature<T>(docs: &[DocMeta], f: impl Fn(&str) -> T) -> Vec<Vec<T>> {
    (docs.iter())
        .map(|d| d.signatures.iter().map(|s| f(s)).collect())
        .collect()
}

/// One cue set over every entry's cues.
fn cue_set(docs: &[DocMeta]) -> (CueSet, Vec<usize>) {
    let mut cues = Vec::new();
    let mut owners = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let frames = d.cues.frames.iter().map(|c| (c.clone(), CueKind::Frame));
        let lines = d.cues.lines.iter().map(|c| (c.clone(), CueKind::Line));
        for cue in frames.chain(lines) {
            cues.push(cue);
            owners.push(i);
        }
    }
    (CueSet::new(&cues), owners)
}
