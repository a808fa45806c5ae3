//! An entry as the load stage yields it, and the check that turns raw front matter into one.
//!
//! Takes a file's parsed [`RawFrontMatter`] and its split text; yields an [`Entry`] with typed
//! values, or every problem the field validators of [`super::fields`] found, each at its line,
//! with the [`Leftovers`] the link stage still checks.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::fields::{self, Sink};
use super::front_matter::{RawFrontMatter, RawSignature, Spans, Split};
use super::{
    internal_links, plain_text, unsafe_links, InternalLink, Kind, Severity, Slug, Tag, UnsafeLink,
};
use crate::diagnostic::Problem;

/// A failure entry or guide, checked field by field but not yet against other entries.
///
/// Its serialized form (kept by `errata build --cache`, see `super::stored`) leaves out what
/// the file's place and text give again: the paths, the body and the spans.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The file as shown to the user, relative to the site root (`content/memory/x.md`).
    #[serde(skip)]
    pub file: PathBuf,
    /// The file relative to `content/`, for edit links.
    #[serde(skip)]
    pub content_path: String,
    pub slug: Slug,
    pub title: String,
    pub category: String,
    pub severity: Severity,
    pub kind: Kind,
    pub tags: Vec<Tag>,
    pub summary: String,
    /// `summary` as plain text ([`plain_text`]).
    pub summary_text: String,
    pub signatures: Vec<Signature>,
    pub fingerprint: Option<String>,
    pub symptoms: Vec<Symptom>,
    pub root_causes: Vec<String>,
    pub fix: Option<String>,
    pub affects: Vec<String>,
    pub confirm: Vec<String>,
    pub cues: Cues,
    pub related: Vec<Slug>,
    pub references: Vec<Reference>,
    pub updated: Option<NaiveDate>,
    pub draft: bool,
    #[serde(skip)]
    pub body: Body,
    /// The body's `[text](@/slug)` links.
    pub links: Vec<InternalLink>,
    /// The body's links and images with an unsafe scheme (`javascript:`), dropped on the page.
    pub unsafe_links: Vec<UnsafeLink>,
    /// 1-based line of the body's first line in the file.
    #[serde(skip)]
    pub body_line: usize,
    #[serde(skip)]
    pub spans: Spans,
}

/// An entry's Markdown body: a part of its file's text, which the file's outcome keeps for
/// problem snippets too, so a site holds each file's text once.
#[derive(Clone, Default)]
pub struct Body {
    text: std::sync::Arc<str>,
    range: std::ops::Range<usize>,
}

impl Body {
    /// The part `range` of `text` (a `Split`'s body range, on a char boundary).
    pub fn new(text: std::sync::Arc<str>, range: std::ops::Range<usize>) -> Body {
        debug_assert!(text.get(range.clone()).is_some());
        Body { text, range }
    }
}

impl std::ops::Deref for Body {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text[self.range.clone()]
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// What a file that failed to load names of other entries: its well-formed `related` slugs
/// and its body's `@/` links. The link stage checks them against the entries that loaded, so
/// one run reports a badly formed slug and the unknown ones beside it.
#[derive(Debug, Clone)]
pub struct Leftovers {
    pub file: PathBuf,
    /// The slug the file would have had, when its `slug:` (or file name) is well formed.
    pub slug: Option<Slug>,
    pub related: Vec<Slug>,
    /// The well-formed slugs its signatures' `also` names.
    pub also: Vec<Slug>,
    pub links: Vec<InternalLink>,
    /// 1-based line of the body's first line in the file.
    pub body_line: usize,
    pub spans: Spans,
    pub draft: bool,
}

impl Leftovers {
    /// What a file that checked names of other entries (front matter that parsed only in
    /// part can check, while its file fails).
    pub(super) fn of_entry(entry: &Entry) -> Leftovers {
        Leftovers {
            file: entry.file.clone(),
            slug: Some(entry.slug.clone()),
            related: entry.related.clone(),
            also: (entry.signatures.iter())
                .flat_map(|s| s.also.iter().cloned())
                .collect(),
            links: entry.links.clone(),
            body_line: entry.body_line,
            spans: entry.spans.clone(),
            draft: entry.draft,
        }
    }
}

/// An error text an entry explains, and where it is raised when the author said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub text: String,
    pub origin: Option<Origin>,
    /// Other entries whose failures print this message too (whether they exist is the link
    /// stage's check).
    pub also: Vec<Slug>,
}

impl Signature {
    /// A signature written as its text alone.
    pub fn plain(text: impl Into<String>) -> Signature {
        Signature {
            text: text.into(),
            origin: None,
            also: Vec::new(),
        }
    }
}

/// Where a signature is raised and which versions print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The upstream file (or file and function) that raises it.
    pub raised_in: Option<String>,
    /// A link to the source line, or to an issue thread where it appears.
    pub source: Option<String>,
    /// Which versions print this wording.
    pub versions: Option<String>,
}

/// What else in a log points at an entry: text in traceback frames and in other lines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cues {
    pub frames: Vec<String>,
    pub lines: Vec<String>,
    /// Names from [`errata_search::diagnose::FINDINGS`].
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Symptom {
    pub symptom: String,
    pub why: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reference {
    pub title: String,
    pub url: String,
}

/// Every field of an entry that needs checking, checked.
struct Checked {
    title: String,
    summary: String,
    category: String,
    severity: Severity,
    kind: Kind,
    slug: Slug,
    tags: Vec<Tag>,
    related: Vec<Slug>,
    signatures: Vec<Signature>,
    cues: Cues,
}

/// Turns raw front matter into an [`Entry`], or every problem with its values and what the
/// file names of other entries.
pub(super) fn check(
    display: &Path,
    content_path: &str,
    stem: &str,
    mut raw: RawFrontMatter,
    split: &Split,
) -> Result<Entry, (Vec<Problem>, Box<Leftovers>)> {
    let spans = Spans::of(split);
    let mut sink = Sink::new(display, &spans);
    let checked = check_fields(&mut sink, &mut raw, stem);
    let problems = sink.into_problems();
    match checked {
        Some(checked) if problems.is_empty() => {
            Ok(assemble(display, content_path, checked, raw, split, spans))
        }
        _ => {
            let leftovers = Box::new(Leftovers {
                file: display.to_owned(),
                slug: raw
                    .slug
                    .as_deref()
                    .and_then(|s| Slug::parse(s).ok())
                    .or_else(|| Slug::from_stem(stem).ok()),
                related: raw.related.iter().flat_map(|r| Slug::parse(r)).collect(),
                also: (raw.signatures.iter())
                    .filter_map(|s| match s {
                        RawSignature::Sourced(s) => Some(&s.also),
                        RawSignature::Text(_) => None,
                    })
                    .flatten()
                    .flat_map(|a| Slug::parse(a))
                    .collect(),
                links: body_links(&split.text[split.body.clone()]),
                body_line: split.body_line,
                spans,
                draft: raw.draft,
            });
            Err((problems, leftovers))
        }
    }
}

/// The body's `[text](@/slug)` links.
fn body_links(body: &str) -> Vec<InternalLink> {
    // Only a body that mentions `@` (or an entity that could spell it) can hold a link.
    if body.contains('@') || body.contains('&') {
        internal_links(body)
    } else {
        Vec::new()
    }
}

/// Runs every field's validator; the checked fields when none of the required ones failed.
fn check_fields(sink: &mut Sink, raw: &mut RawFrontMatter, stem: &str) -> Option<Checked> {
    let title = fields::required(
        sink,
        "title",
        &raw.title,
        "add `title: ...`, the failure's name as a reader would search it",
    );
    let summary = fields::required(
        sink,
        "summary",
        &raw.summary,
        "add `summary: ...`, the quick answer in one or two sentences",
    );
    let category = fields::required(
        sink,
        "category",
        &raw.category,
        "add `category: ...`, a key of `categories` in errata.yaml",
    );
    let severity = fields::severity(sink, &raw.severity);
    let kind = fields::kind(sink, raw.kind.as_deref());
    let slug = fields::slug(sink, raw.slug.as_deref(), stem);
    let tags = fields::tags(sink, &raw.tags);
    let related = fields::related(sink, &raw.related);
    let signatures = fields::signatures(sink, &raw.signatures);
    let cues = fields::cues(sink, raw.cues.take().unwrap_or_default());
    for (key, list) in [
        ("root_causes", &raw.root_causes),
        ("affects", &raw.affects),
        ("confirm", &raw.confirm),
    ] {
        fields::no_empty_item(sink, key, list);
    }
    fields::signature_count(sink, kind, raw.signatures.len());
    fields::references(sink, &raw.references);
    Some(Checked {
        title: title?,
        summary: summary?,
        category: category?,
        severity: severity?,
        kind: kind?,
        slug: slug?,
        tags,
        related,
        signatures,
        cues,
    })
}

/// The entry, from its checked fields and the rest of its front matter and body.
fn assemble(
    display: &Path,
    content_path: &str,
    checked: Checked,
    raw: RawFrontMatter,
    split: &Split,
    spans: Spans,
) -> Entry {
    let nonempty = |o: Option<String>| o.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let body = Body::new(split.text.clone(), split.body.clone());
    let links = body_links(&body);
    // Only a body with a `:` can hold a URL with a scheme.
    let unsafe_links = if body.contains(':') {
        unsafe_links(&body)
    } else {
        Vec::new()
    };
    Entry {
        file: display.to_owned(),
        content_path: content_path.to_owned(),
        slug: checked.slug,
        title: checked.title,
        category: checked.category,
        severity: checked.severity,
        kind: checked.kind,
        tags: checked.tags,
        summary_text: plain_text(&checked.summary),
        summary: checked.summary,
        signatures: checked.signatures,
        fingerprint: nonempty(raw.fingerprint),
        symptoms: raw
            .symptoms
            .into_iter()
            .map(|s| Symptom {
                symptom: s.symptom,
                why: s.why,
            })
            .collect(),
        root_causes: raw.root_causes,
        fix: nonempty(raw.fix),
        affects: raw.affects,
        confirm: raw.confirm,
        cues: checked.cues,
        related: checked.related,
        references: raw
            .references
            .into_iter()
            .map(|r| Reference {
                title: r.title,
                url: r.url.trim().to_owned(),
            })
            .collect(),
        updated: raw.updated,
        draft: raw.draft,
        links,
        unsafe_links,
        body,
        body_line: split.body_line,
        spans,
    }
}
