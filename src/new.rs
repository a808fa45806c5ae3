//! `errata new`: a new entry file with every front-matter key present and commented.
//!
//! Takes a title, a category and the site root; yields the path of the new file. Refuses an
//! unknown category and never overwrites an existing file.

use std::path::PathBuf;

use crate::load::{Config, Kind, Severity, Slug};

#[derive(Debug, Clone)]
pub struct NewOptions {
    pub root: PathBuf,
    pub title: String,
    pub category: String,
    pub slug: Option<String>,
    pub severity: Severity,
    pub kind: Kind,
    /// `YYYY-MM-DD`, usually today.
    pub date: String,
}

#[derive(Debug, thiserror::Error)]
pub enum NewError {
    #[error("cannot read {path}")]
    Config {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("errata.yaml: {message}")]
    BadConfig { message: String },
    #[error("unknown category `{category}` (errata.yaml has: {known})")]
    UnknownCategory { category: String, known: String },
    #[error("{reason}")]
    BadSlug { reason: String },
    #[error("{path} already exists; pick another title or --slug")]
    Exists { path: PathBuf },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub fn new_entry(options: &NewOptions) -> Result<PathBuf, NewError> {
    let config_path = options.root.join("errata.yaml");
    let text = std::fs::read_to_string(&config_path).map_err(|source| NewError::Config {
        path: config_path.clone(),
        source,
    })?;
    let config = Config::parse(&text).map_err(|f| NewError::BadConfig {
        message: format!("{}:{}: {}", f.line, f.column, f.message),
    })?;
    if !config.categories.contains_key(&options.category) {
        return Err(NewError::UnknownCategory {
            category: options.category.clone(),
            known: config
                .categories
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let slug = match &options.slug {
        Some(s) => Slug::parse(s),
        None => Slug::from_stem(&options.title).map_err(|_| {
            format!(
                "title `{}` gives no usable slug; pass one with `--slug`, e.g. `--slug cuda-oom`",
                options.title
            )
        }),
    }
    .map_err(|reason| NewError::BadSlug { reason })?;
    let dir = options.root.join("content").join(&options.category);
    let path = dir.join(format!("{slug}.md"));
    if path.exists() {
        return Err(NewError::Exists { path });
    }
    std::fs::create_dir_all(&dir).map_err(|source| NewError::Write {
        path: dir.clone(),
        source,
    })?;
    let body = template(options, &slug);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, body.as_bytes()))
        .map_err(|source| NewError::Write {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

fn yaml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The file `errata new` writes. Kept valid: it passes `errata check` once the TODOs are
/// replaced, and parses as it is.
pub fn template(options: &NewOptions, slug: &Slug) -> String {
    let failure = options.kind == Kind::Failure;
    let signatures = if failure {
        "signatures:              # the exact error text a reader would paste, without sizes, ranks or addresses\n  - text: \"TODO: RuntimeError: the stable part of the message\"\n    raised_in: \"TODO: the upstream file that raises it\"   # the first signature says where it comes from\n    source: \"\"          # optional: a link to that source line, or to an issue thread where it appears\n    versions: \"\"        # optional: which versions print it, e.g. PyTorch 2.1 and later\n"
    } else {
        "signatures: []          # guides have none\n"
    };
    format!(
        r#"---
# yaml-language-server: $schema=../front-matter.schema.json
title: {title}          # required: the failure's name as a reader would search it
slug: {slug}            # optional: the URL name; defaults to the file name
category: {category}    # required: a key of `categories` in errata.yaml
severity: {severity}    # required: low | medium | high | critical
kind: {kind}            # failure (an error to explain) | guide (teaches a tool)
tags: []                # e.g. [cuda-oom, attention]; written any case, normalised to kebab-case
summary: >-             # required: the quick answer, one or two sentences
  TODO: what it is and what to do.
{signatures}fingerprint: ""         # the pattern worth alerting on, in one sentence
symptoms: []            # - symptom: what you observe
                        #   why: why that happens
root_causes: []         # the mechanisms that lead here
fix: ""                 # the first thing to try, in one line
affects: []             # e.g. [PyTorch, DeepSpeed]
confirm: []             # checks that confirm the diagnosis
cues:                   # what else in a log points here
  frames: []            # text in traceback frames, e.g. torch/_inductor/
  lines: []             # text in other lines, e.g. a warning printed before the crash
related: []             # slugs of related entries
references: []          # - title: "PyTorch docs: ..."
                        #   url: https://...
updated: {date}         # YYYY-MM-DD
draft: true             # drafts are built only with --drafts
---
## Why it happens

## How to fix it

1. 

## How to prevent it

## Code examples

```python
```
"#,
        title = yaml_string(&options.title),
        category = options.category,
        severity = options.severity.as_str(),
        kind = options.kind.as_str(),
        date = options.date,
    )
}
