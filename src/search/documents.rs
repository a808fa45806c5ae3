//! The documents of a site, as the search engine indexes them.
//!
//! Takes a linked [`Site`]; yields one plain [`Document`] per entry, in the site's order: the
//! signatures' text, the symptoms, the quick answer and the body as plain text. The body is
//! most of a document's bytes and all of its cost (its Markdown is parsed), so a build makes
//! [`heads`] (all but the body) for every entry and [`with_bodies`] only for the entries it
//! indexes, a chunk at a time.

use errata_search::Document;
use rayon::prelude::*;

use crate::link::Site;
use crate::load::plain_text;

pub fn documents(site: &Site) -> Vec<Document> {
    (0..site.entries.len()).map(|i| document(site, i)).collect()
}

/// Every entry's document without its body, made on every core when `every_core` (as for
/// [`with_bodies`]).
pub fn heads(site: &Site, every_core: bool) -> Vec<Document> {
    let entries = 0..site.entries.len();
    if every_core {
        entries.into_par_iter().map(|i| head(site, i)).collect()
    } else {
        entries.map(|i| head(site, i)).collect()
    }
}

/// The documents of the entries in `range`, from their `heads`, with their bodies: on every
/// core when `every_core` (for a build whose render is small; beside a whole render it would
/// only take the cores from the pages).
pub fn with_bodies(
    site: &Site,
    heads: &[Document],
    range: std::ops::Range<usize>,
    every_core: bool,
) -> Vec<Document> {
    let one = |i: usize| Document {
        body: body(site, i),
        ..heads[i].clone()
    };
    if every_core {
        range.into_par_iter().map(one).collect()
    } else {
        range.map(one).collect()
    }
}

/// What the search index holds of entry `i`.
pub fn document(site: &Site, i: usize) -> Document {
    Document {
        body: body(site, i),
        ..head(site, i)
    }
}

/// Entry `i`'s body as the index reads it: plain text.
fn body(site: &Site, i: usize) -> String {
    plain_text(&site.entries[i].body)
}

/// Entry `i`'s document without its body.
fn head(site: &Site, i: usize) -> Document {
    let e = &site.entries[i];
    Document {
        slug: e.slug.to_string(),
        title: e.title.clone(),
        url: site.entry_url(i),
        category: e.category.clone(),
        severity: e.severity.as_str().to_owned(),
        tags: e.tags.iter().map(|t| t.to_string()).collect(),
        signatures: e.signatures.iter().map(|s| s.text.clone()).collect(),
        symptoms: e
            .symptoms
            .iter()
            .map(|s| format!("{} {}", plain_text(&s.symptom), plain_text(&s.why)))
            .collect(),
        summary: [
            Some(e.summary.as_str()),
            e.fingerprint.as_deref(),
            e.fix.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(plain_text)
        .collect::<Vec<_>>()
        .join(" "),
        body: String::new(),
        cues: errata_search::Cues {
            frames: e.cues.frames.clone(),
            lines: e.cues.lines.clone(),
            findings: e.cues.findings.clone(),
            shared: e
                .signatures
                .iter()
                .filter(|s| !s.also.is_empty())
                .map(|s| errata_search::SharedSignature {
                    signature: s.text.clone(),
                    with: s.also.iter().map(|a| a.to_string()).collect(),
                })
                .collect(),
        },
    }
}
