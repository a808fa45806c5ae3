//! The front matter's field validators, each writing its problems to one [`Sink`].
//!
//! Takes the raw value of one field; yields its checked value, or `None` (or the valid part of a
//! list) with a problem in the sink at the key or value it is about, with a hint where one
//! helps. A file's problems are all reported in one run.

use std::path::Path;

use super::entry::{Cues, Origin, Signature};
use super::front_matter::{RawCues, RawReference, RawSignature, Spans};
use super::{Kind, Severity, Slug, Tag};
use crate::diagnostic::{did_you_mean, Problem};

/// The shortest cue: a shorter one would turn up in logs it says nothing about.
pub const MIN_CUE_CHARS: usize = 6;

/// Where a file's problems go, each placed at the key or value it is about.
pub(super) struct Sink<'a> {
    file: &'a Path,
    spans: &'a Spans,
    problems: Vec<Problem>,
}

impl<'a> Sink<'a> {
    pub(super) fn new(file: &'a Path, spans: &'a Spans) -> Sink<'a> {
        Sink {
            file,
            spans,
            problems: Vec::new(),
        }
    }

    /// A problem at `key`, or at `needle` inside its value.
    fn at(&mut self, key: &str, needle: Option<&str>, message: String, hint: Option<String>) {
        let (line, column) = match needle {
            Some(n) => self.spans.value(key, n),
            None => self.spans.key(key),
        };
        let mut p = Problem::error(self.file, line, column, message);
        p.hint = hint;
        self.problems.push(p);
    }

    pub(super) fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}

/// A required text field: missing and empty are problems.
pub(super) fn required(
    sink: &mut Sink,
    key: &str,
    value: &Option<String>,
    hint: &str,
) -> Option<String> {
    let message = match value.as_deref().map(str::trim) {
        Some(v) if !v.is_empty() => return Some(v.to_owned()),
        Some(_) => format!("`{key}` is empty"),
        None => format!("missing required field `{key}`"),
    };
    sink.at(key, None, message, Some(hint.to_owned()));
    None
}

pub(super) fn severity(sink: &mut Sink, raw: &Option<String>) -> Option<Severity> {
    let s = required(
        sink,
        "severity",
        raw,
        "add `severity: ...`: low, medium, high or critical",
    )?;
    Severity::parse(&s).or_else(|| {
        let hint = match did_you_mean(&s, Severity::NAMES) {
            Some(m) => {
                format!("did you mean `{m}`? severity is one of low, medium, high, critical")
            }
            None => "severity is one of low, medium, high, critical".to_owned(),
        };
        sink.at(
            "severity",
            Some(&s),
            format!("invalid severity `{s}`"),
            Some(hint),
        );
        None
    })
}

/// `failure` when absent.
pub(super) fn kind(sink: &mut Sink, raw: Option<&str>) -> Option<Kind> {
    let Some(k) = raw else {
        return Some(Kind::Failure);
    };
    Kind::parse(k).or_else(|| {
        sink.at(
            "kind",
            Some(k),
            format!("invalid kind `{k}`"),
            Some("kind is `failure` (the default) or `guide`".into()),
        );
        None
    })
}

/// The `slug:` given, or the file name's.
pub(super) fn slug(sink: &mut Sink, raw: Option<&str>, stem: &str) -> Option<Slug> {
    match raw {
        Some(s) => Slug::parse(s)
            .map_err(|m| sink.at("slug", Some(s), m, None))
            .ok(),
        None => Slug::from_stem(stem)
            .map_err(|m| {
                sink.at(
                    "title",
                    None,
                    m,
                    Some("add `slug: ...` to the front matter".into()),
                )
            })
            .ok(),
    }
}

/// The tags normalised, each once.
pub(super) fn tags(sink: &mut Sink, raw: &[String]) -> Vec<Tag> {
    let mut seen = std::collections::HashSet::with_capacity(raw.len());
    let mut tags: Vec<Tag> = Vec::with_capacity(raw.len());
    for t in raw {
        match Tag::parse(t) {
            Ok(tag) if seen.insert(tag.clone()) => tags.push(tag),
            Ok(_) => {}
            Err(m) => sink.at("tags", Some(t), m, None),
        }
    }
    tags
}

/// The `related` slugs that are well formed (whether they exist is the link stage's check).
pub(super) fn related(sink: &mut Sink, raw: &[String]) -> Vec<Slug> {
    slugs(sink, "related", raw)
}

/// The slugs of `raw` that are well formed; the others are problems at `key`.
fn slugs(sink: &mut Sink, key: &str, raw: &[String]) -> Vec<Slug> {
    let mut slugs = Vec::with_capacity(raw.len());
    for r in raw {
        match Slug::parse(r) {
            Ok(s) => slugs.push(s),
            Err(m) => sink.at(key, Some(r), m, None),
        }
    }
    slugs
}

/// A list of texts must not hold an empty one.
pub(super) fn no_empty_item(sink: &mut Sink, key: &str, list: &[String]) {
    if list.iter().any(|s| s.trim().is_empty()) {
        sink.at(key, None, format!("`{key}` has an empty item"), None);
    }
}

/// A failure needs a signature; a guide has none.
pub(super) fn signature_count(sink: &mut Sink, kind: Option<Kind>, count: usize) {
    match kind {
        Some(Kind::Failure) if count == 0 => sink.at(
            "signatures",
            None,
            "a failure entry needs at least one signature".into(),
            Some("add `signatures:` with the exact error text a user would paste, without sizes, ranks or addresses".into()),
        ),
        Some(Kind::Guide) if count > 0 => sink.at(
            "signatures",
            None,
            "a guide has no signatures".into(),
            Some("remove `signatures:`, or set `kind: failure`".into()),
        ),
        _ => {}
    }
}

/// References link to web pages and have a title.
pub(super) fn references(sink: &mut Sink, raw: &[RawReference]) {
    for r in raw {
        let url = r.url.trim();
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            sink.at(
                "references",
                Some(&r.url),
                format!("reference URL `{}` is not http(s)", r.url),
                Some("references link to web pages: `https://...`".into()),
            );
        }
        if r.title.trim().is_empty() {
            sink.at(
                "references",
                Some(&r.url),
                "reference has an empty title".into(),
                None,
            );
        }
    }
}

/// The signatures as [`Signature`]s; an empty text, or a sourced one that says nowhere it is
/// raised or links to a non-web page, is a problem.
pub(super) fn signatures(sink: &mut Sink, raw: &[RawSignature]) -> Vec<Signature> {
    let mut out = Vec::with_capacity(raw.len());
    for item in raw {
        let (text, sourced) = match item {
            RawSignature::Text(text) => (text.trim(), None),
            RawSignature::Sourced(s) => (s.text.trim(), Some(s)),
        };
        if text.is_empty() {
            sink.at(
                "signatures",
                None,
                "`signatures` has an empty item".into(),
                None,
            );
            continue;
        }
        let origin = sourced.map(|s| {
            let nonempty = |o: &Option<String>| {
                o.as_deref()
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .map(str::to_owned)
            };
            let origin = Origin {
                raised_in: nonempty(&s.raised_in),
                source: nonempty(&s.source),
                versions: nonempty(&s.versions),
            };
            origin_problems(sink, text, &origin);
            origin
        });
        let also = sourced.map_or_else(Vec::new, |s| slugs(sink, "signatures", &s.also));
        out.push(Signature {
            text: text.to_owned(),
            origin,
            also,
        });
    }
    out
}

/// A signature's origin must say where it is raised, and link to a web page.
fn origin_problems(sink: &mut Sink, text: &str, origin: &Origin) {
    if origin.raised_in.is_none() && origin.source.is_none() {
        sink.at(
            "signatures",
            Some(text),
            "a signature with `text:` says neither `raised_in:` nor `source:`".into(),
            Some("name the upstream file that raises it (`raised_in:`), link its source line or an issue thread where it appears (`source:`), or write the text alone".into()),
        );
    }
    if let Some(url) = &origin.source {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            sink.at(
                "signatures",
                Some(url),
                format!("signature source `{url}` is not http(s)"),
                Some("link the source line or thread: `https://...`".into()),
            );
        }
    }
}

/// The cues, trimmed; an empty, short or repeated cue is a problem.
pub(super) fn cues(sink: &mut Sink, raw: RawCues) -> Cues {
    Cues {
        frames: cue_list(sink, "frames", raw.frames),
        lines: cue_list(sink, "lines", raw.lines),
        findings: findings(sink, raw.findings),
    }
}

/// Findings must be ones errata reads.
fn findings(sink: &mut Sink, raw: Vec<String>) -> Vec<String> {
    let known = errata_search::diagnose::FINDINGS.map(|f| f.name);
    let mut out = Vec::new();
    for name in raw {
        let name = name.trim().to_owned();
        if known.contains(&name.as_str()) {
            if !out.contains(&name) {
                out.push(name);
            }
            continue;
        }
        let hint = match did_you_mean(&name, known) {
            Some(m) => format!("did you mean `{m}`?"),
            None => format!("findings errata reads: {}", known.join(", ")),
        };
        sink.at(
            "cues",
            Some(&name),
            format!("unknown finding `{name}`"),
            Some(hint),
        );
    }
    out
}

fn cue_list(sink: &mut Sink, which: &str, list: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(list.len());
    for cue in list {
        let cue = cue.trim().to_owned();
        if cue.is_empty() {
            sink.at(
                "cues",
                None,
                format!("`cues.{which}` has an empty item"),
                None,
            );
        } else if cue.chars().count() < MIN_CUE_CHARS {
            sink.at(
                "cues",
                Some(&cue),
                format!("cue `{cue}` in `{which}` is shorter than {MIN_CUE_CHARS} characters"),
                Some("a cue is a distinctive piece of text (`torch/_inductor/`, `_prepare_decoder_attention_mask`); a short one turns up in unrelated logs".into()),
            );
        } else if !seen.insert(cue.clone()) {
            sink.at(
                "cues",
                Some(&cue),
                format!("cue `{cue}` is listed twice in `{which}`"),
                None,
            );
        } else {
            out.push(cue);
        }
    }
    out
}
