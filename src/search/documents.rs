//! The documents of a site, as the search engine indexes them.
//!
//! Takes a linked [`Site`]; yields one plain [`Document`] per entry, in the site's order: the
//! signatures' text, the symptoms, the quick answer and the body as plain text.

use errata_search::Document;
use rayon::prelude::*;

use crate::link::Site;
use crate::load::plain_text;

pub fn documents(site: &Site) -> Vec<Document> {
    (0..site.entries.len()).map(|i| document(site, i)).collect()
}

/// [`documents`] made on every core (each body is parsed as Markdown for its plain text), for
/// a build whose render is small; beside a whole render it only adds to the peak memory.
pub fn documents_on_every_core(site: &Site) -> Vec<Document> {
    (0..site.entries.len())
        .into_par_iter()
        .map(|i| document(site, i))
        .collect()
}

/// What the search index holds of entry `i`.
pub fn document(site: &Site, i: usize) -> Document {
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
        body: plain_text(&e.body),
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
