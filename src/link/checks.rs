//! The link stage's checks of entries against each other and the config.
//!
//! Takes the entries (sorted by slug) and the slugs that exist; yields a [`Problem`] for each
//! duplicate slug (naming both files), each category the config lacks, each `related` slug that
//! names no entry or the entry itself, and each `[text](@/slug)` link to a missing entry, in
//! entries and in the [`Leftovers`] of files that failed to load. Links to a file that failed
//! to load are not reported again.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::diagnostic::{did_you_mean, Problem};
use crate::load::front_matter::Spans;
use crate::load::{Config, Entry, InternalLink, Leftovers, Slug};

/// Two entries with one slug (or file names that differ only by case) would write one page.
/// Reports each file, naming the other, and keeps only the first so links still resolve.
pub(super) fn check_duplicates(entries: &mut Vec<Arc<Entry>>, problems: &mut Vec<Problem>) {
    let mut first: HashMap<Slug, usize> = HashMap::default();
    let mut drop = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(&j) = first.get(&e.slug) {
            let other = &entries[j];
            let hint = "slugs must be unique; file names that differ only by case give one URL on macOS and Windows";
            for (this, that) in [(other, e), (e, other)] {
                let (line, column) = this.spans.key("slug");
                problems.push(
                    Problem::error(
                        &this.file,
                        line,
                        column,
                        format!(
                            "duplicate slug `{}`, also used by {}",
                            this.slug,
                            that.file.display()
                        ),
                    )
                    .with_hint(hint),
                );
            }
            drop.insert(i);
        } else {
            first.insert(e.slug.clone(), i);
        }
    }
    let mut i = 0;
    entries.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

/// What a file names of other entries, and where: an entry's, or a failed file's leftovers.
struct Names<'a> {
    file: &'a Path,
    slug: Option<&'a Slug>,
    related: &'a [Slug],
    /// The entries its signatures say print the same message (`also:`).
    also: Vec<&'a Slug>,
    links: &'a [InternalLink],
    body_line: usize,
    spans: &'a Spans,
}

impl<'a> Names<'a> {
    fn of_entry(e: &'a Entry) -> Names<'a> {
        Names {
            file: &e.file,
            slug: Some(&e.slug),
            related: &e.related,
            also: e.signatures.iter().flat_map(|s| &s.also).collect(),
            links: &e.links,
            body_line: e.body_line,
            spans: &e.spans,
        }
    }

    fn of_leftovers(l: &'a Leftovers) -> Names<'a> {
        Names {
            file: &l.file,
            slug: l.slug.as_ref(),
            related: &l.related,
            also: l.also.iter().collect(),
            links: &l.links,
            body_line: l.body_line,
            spans: &l.spans,
        }
    }
}

pub(super) fn check_references(
    entry: &Entry,
    by_slug: &HashMap<Slug, usize>,
    failed: &[Slug],
    problems: &mut Vec<Problem>,
) {
    check_names(&Names::of_entry(entry), by_slug, failed, problems);
}

/// [`check_references`] for the leftovers of files that failed to load, against the entries
/// that did (`by_slug`, a linked site's) and the other files that failed.
pub fn leftover_references(
    leftovers: &[Arc<Leftovers>],
    by_slug: &HashMap<Slug, usize>,
    failed: &[Slug],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for l in leftovers {
        check_names(&Names::of_leftovers(l), by_slug, failed, &mut problems);
    }
    problems
}

fn check_names(
    names: &Names,
    by_slug: &HashMap<Slug, usize>,
    failed: &[Slug],
    problems: &mut Vec<Problem>,
) {
    let exists = |slug: &Slug| by_slug.contains_key(slug) || failed.contains(slug);
    let suggest = |slug: &str| {
        did_you_mean(slug, by_slug.keys().map(Slug::as_str))
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| {
                "related and `@/` links name an entry's slug (its file name without .md)".into()
            })
    };
    for r in names.related {
        // Found in the text only for a problem: most references are fine.
        let at = || names.spans.value("related", r.as_str());
        if Some(r) == names.slug {
            let (line, column) = at();
            problems.push(Problem::error(
                names.file,
                line,
                column,
                format!("entry lists itself as related (`{r}`)"),
            ));
        } else if !exists(r) {
            let (line, column) = at();
            problems.push(
                Problem::error(
                    names.file,
                    line,
                    column,
                    format!("unknown related entry `{r}`"),
                )
                .with_hint(suggest(r.as_str())),
            );
        }
    }
    for &a in &names.also {
        let at = || names.spans.value("signatures", a.as_str());
        let message = if Some(a) == names.slug {
            format!("a signature's `also` names the entry itself (`{a}`)")
        } else if !exists(a) {
            format!("unknown entry `{a}` in a signature's `also`")
        } else {
            continue;
        };
        let (line, column) = at();
        problems.push(Problem::error(names.file, line, column, message).with_hint(
            "`also` names other entries whose failures print the same message, by slug",
        ));
    }
    for link in names.links {
        if Slug::parse(&link.slug).ok().filter(|s| exists(s)).is_none() {
            problems.push(
                Problem::error(
                    names.file,
                    names.body_line + link.line - 1,
                    link.column,
                    format!("link to a missing entry `@/{}`", link.slug),
                )
                .with_hint(suggest(&link.slug)),
            );
        }
    }
}

/// [`check_references`] for every entry, side by side.
pub(super) fn all_references(
    entries: &[Arc<Entry>],
    by_slug: &HashMap<Slug, usize>,
    failed: &[Slug],
) -> Vec<Problem> {
    use rayon::prelude::*;
    let found: Vec<Vec<Problem>> = entries
        .par_iter()
        .map(|entry| {
            let mut found = Vec::new();
            check_references(entry, by_slug, failed, &mut found);
            found
        })
        .collect();
    found.into_iter().flatten().collect()
}

/// An entry whose category is not a key of `categories` in errata.yaml.
pub(super) fn unknown_category(entry: &Entry, config: &Config) -> Problem {
    let (line, column) = entry.spans.value("category", &entry.category);
    let known: Vec<&str> = config.categories.keys().map(String::as_str).collect();
    let hint = match did_you_mean(&entry.category, known.iter().copied()) {
        Some(m) => format!("did you mean `{m}`?"),
        None => format!("categories in errata.yaml: {}", known.join(", ")),
    };
    Problem::error(
        &entry.file,
        line,
        column,
        format!("unknown category `{}`", entry.category),
    )
    .with_hint(hint)
}
