//! The link stage: checked entries in, a [`Site`] (a checked graph) out.
//!
//! Takes the load stage's entries and config. Makes sure slugs are unique (a duplicate names
//! both files; slugs that differ only by case are one URL on macOS and Windows, so they clash
//! too), categories exist in `errata.yaml`, `related` slugs and `[text](@/slug)` links point
//! at entries, and builds the tag and category maps and each entry's related list (explicit
//! first, then by shared tags and category, at most [`MAX_RELATED`]). Every problem is
//! collected; links to a file that failed to load are not reported a second time.

mod warnings;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

pub use warnings::warnings;

use crate::diagnostic::{did_you_mean, Problem};
use crate::load::{Config, Entry, Slug, Tag};

/// How many related entries a page lists.
pub const MAX_RELATED: usize = 6;

/// A category of the config with the entries in it.
#[derive(Debug, Clone)]
pub struct Category {
    pub key: String,
    pub title: String,
    pub description: String,
    /// Indices into [`Site::entries`], sorted by title.
    pub entries: Vec<usize>,
}

/// The whole site as a checked graph. Entries are sorted by slug; every index is into `entries`.
#[derive(Debug)]
pub struct Site {
    pub config: Config,
    /// Shared with the load cache `errata serve` keeps.
    pub entries: Vec<Arc<Entry>>,
    pub by_slug: HashMap<Slug, usize>,
    /// Each tag with its entries, sorted by title.
    pub tags: BTreeMap<Tag, Vec<usize>>,
    pub categories: Vec<Category>,
    /// For each entry, its related entries in display order.
    pub related: Vec<Vec<usize>>,
}

impl Site {
    /// The page URL of an entry relative to the site root: `memory/cuda-oom/`.
    pub fn entry_url(&self, index: usize) -> String {
        let e = &self.entries[index];
        format!("{}/{}/", e.category, e.slug)
    }

    pub fn tag_url(tag: &Tag) -> String {
        format!("tags/{tag}/")
    }

    pub fn category_url(key: &str) -> String {
        format!("{key}/")
    }

    pub fn category(&self, key: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.key == key)
    }

    /// The title of a category, or its key when the config has no such category.
    pub fn category_title<'a>(&'a self, key: &'a str) -> &'a str {
        self.category(key).map_or(key, |c| c.title.as_str())
    }
}

/// Links the entries. Problems are appended to `problems`.
/// `failed` names slugs of files that did not load; links to them are not reported twice.
pub fn link(
    config: Config,
    entries: Vec<Arc<Entry>>,
    failed: &[Slug],
    problems: &mut Vec<Problem>,
) -> Site {
    relink(config, entries, failed, problems, None)
}

/// [`link`], after an edit: when `previous` is the site before it, and no entry's slug,
/// category, tags or `related` changed and no category's order moved, the related lists
/// (most of the stage's time) are taken from it instead of computed again.
pub fn relink(
    config: Config,
    mut entries: Vec<Arc<Entry>>,
    failed: &[Slug],
    problems: &mut Vec<Problem>,
    previous: Option<&Site>,
) -> Site {
    entries.sort_by(|a, b| a.slug.cmp(&b.slug).then_with(|| a.file.cmp(&b.file)));
    check_duplicates(&mut entries, problems);
    let by_slug: HashMap<Slug, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.slug.clone(), i))
        .collect();

    let mut categories: Vec<Category> = config
        .categories
        .iter()
        .map(|(key, c)| Category {
            key: key.clone(),
            title: c.title.clone(),
            description: c.description.clone(),
            entries: Vec::new(),
        })
        .collect();
    let category_index: HashMap<&str, usize> = config
        .categories
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut tags: BTreeMap<Tag, Vec<usize>> = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        match category_index.get(entry.category.as_str()) {
            Some(&c) => categories[c].entries.push(i),
            None => {
                let (line, column) = entry.spans.value("category", &entry.category);
                let known: Vec<&str> = config.categories.keys().map(String::as_str).collect();
                let hint = match did_you_mean(&entry.category, known.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => format!("categories in errata.yaml: {}", known.join(", ")),
                };
                problems.push(
                    Problem::error(
                        &entry.file,
                        line,
                        column,
                        format!("unknown category `{}`", entry.category),
                    )
                    .with_hint(hint),
                );
            }
        }
        for tag in &entry.tags {
            tags.entry(tag.clone()).or_default().push(i);
        }
    }
    {
        use rayon::prelude::*;
        let found: Vec<Vec<Problem>> = entries
            .par_iter()
            .map(|entry| {
                let mut found = Vec::new();
                check_references(entry, &by_slug, failed, &mut found);
                found
            })
            .collect();
        problems.extend(found.into_iter().flatten());
    }
    let by_title = |list: &mut Vec<usize>| {
        list.sort_by(|&a, &b| entries[a].title.cmp(&entries[b].title).then(a.cmp(&b)))
    };
    for c in &mut categories {
        by_title(&mut c.entries);
    }
    for list in tags.values_mut() {
        by_title(list);
    }
    let related = match previous.filter(|p| same_neighbourhoods(p, &entries, &categories)) {
        Some(previous) => previous.related.clone(),
        None => related_entries(&entries, &by_slug, &tags, &categories, &category_index),
    };
    Site {
        config,
        entries,
        by_slug,
        tags,
        categories,
        related,
    }
}

/// Whether every input of [`related_entries`] is as it was in `previous`.
fn same_neighbourhoods(previous: &Site, entries: &[Arc<Entry>], categories: &[Category]) -> bool {
    previous.entries.len() == entries.len()
        && previous.entries.iter().zip(entries).all(|(a, b)| {
            Arc::ptr_eq(a, b)
                || (a.slug == b.slug
                    && a.category == b.category
                    && a.tags == b.tags
                    && a.related == b.related)
        })
        && previous.categories.len() == categories.len()
        && previous
            .categories
            .iter()
            .zip(categories)
            .all(|(a, b)| a.key == b.key && a.entries == b.entries)
}

/// Two entries with one slug (or file names that differ only by case) would write one page.
/// Reports each file, naming the other, and keeps only the first so links still resolve.
fn check_duplicates(entries: &mut Vec<Arc<Entry>>, problems: &mut Vec<Problem>) {
    let mut first: HashMap<Slug, usize> = HashMap::new();
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

fn check_references(
    entry: &Entry,
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
    for r in &entry.related {
        let (line, column) = entry.spans.value("related", r.as_str());
        if r == &entry.slug {
            problems.push(Problem::error(
                &entry.file,
                line,
                column,
                format!("entry lists itself as related (`{r}`)"),
            ));
        } else if !exists(r) {
            problems.push(
                Problem::error(
                    &entry.file,
                    line,
                    column,
                    format!("unknown related entry `{r}`"),
                )
                .with_hint(suggest(r.as_str())),
            );
        }
    }
    for link in &entry.links {
        if Slug::parse(&link.slug).ok().filter(|s| exists(s)).is_none() {
            problems.push(
                Problem::error(
                    &entry.file,
                    entry.body_line + link.line - 1,
                    link.column,
                    format!("link to a missing entry `@/{}`", link.slug),
                )
                .with_hint(suggest(&link.slug)),
            );
        }
    }
}

/// Explicit `related` first, then the entries sharing the most tags (same category breaking
/// ties), then the rest of the category. Candidates come from the tag map, so the cost grows
/// with the size of each entry's tag neighbourhood, not with the square of the site.
fn related_entries(
    entries: &[Arc<Entry>],
    by_slug: &HashMap<Slug, usize>,
    tags: &BTreeMap<Tag, Vec<usize>>,
    categories: &[Category],
    category_index: &HashMap<&str, usize>,
) -> Vec<Vec<usize>> {
    use rayon::prelude::*;
    let category_of: Vec<Option<usize>> = entries
        .iter()
        .map(|e| category_index.get(e.category.as_str()).copied())
        .collect();
    (0..entries.len())
        .into_par_iter()
        .map_init(
            || (vec![0u32; entries.len()], Vec::new()),
            |scratch: &mut (Vec<u32>, Vec<usize>), i| {
                let entry = &entries[i];
                let mut out: Vec<usize> = Vec::with_capacity(MAX_RELATED);
                for r in &entry.related {
                    if let Some(&j) = by_slug.get(r) {
                        if j != i && !out.contains(&j) && out.len() < MAX_RELATED {
                            out.push(j);
                        }
                    }
                }
                if out.len() < MAX_RELATED {
                    // Count shared tags in a dense array reused across entries (no hashing).
                    let (counts, touched) = scratch;
                    for t in &entry.tags {
                        for &j in tags.get(t).map(Vec::as_slice).unwrap_or_default() {
                            if j != i {
                                if counts[j] == 0 {
                                    touched.push(j);
                                }
                                counts[j] += 1;
                            }
                        }
                    }
                    let mut scored: Vec<(u32, bool, usize)> = Vec::with_capacity(touched.len());
                    for &j in touched.iter() {
                        if !out.contains(&j) {
                            scored.push((counts[j], category_of[j] == category_of[i], j));
                        }
                        counts[j] = 0;
                    }
                    touched.clear();
                    // Entries are sorted by slug, so the index breaks ties in slug order. Only
                    // the best few are wanted: select them, then sort just those.
                    let order = |a: &(u32, bool, usize), b: &(u32, bool, usize)| {
                        b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2))
                    };
                    let wanted = MAX_RELATED - out.len();
                    if scored.len() > wanted {
                        scored.select_nth_unstable_by(wanted, order);
                        scored.truncate(wanted);
                    }
                    scored.sort_unstable_by(order);
                    out.extend(
                        scored
                            .into_iter()
                            .take(MAX_RELATED - out.len())
                            .map(|(_, _, j)| j),
                    );
                }
                if out.len() < MAX_RELATED {
                    if let Some(&c) = category_index.get(entry.category.as_str()) {
                        for &j in &categories[c].entries {
                            if out.len() >= MAX_RELATED {
                                break;
                            }
                            if j != i && !out.contains(&j) {
                                out.push(j);
                            }
                        }
                    }
                }
                out
            },
        )
        .collect()
}
