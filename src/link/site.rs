//! The linked site: entries by slug, tags and categories with their entries in title order,
//! and each entry's related list.
//!
//! Takes the load stage's entries and config; yields a [`Site`], with every problem the
//! [`super::checks`] find appended to the caller's list.

use std::collections::BTreeMap;
use std::sync::Arc;

// Slug and tag maps are looked up for every entry on each rebuild; their keys are our own
// content, so a fast hash suffices (and nothing iterates them into the output).
use rustc_hash::FxHashMap as HashMap;

use super::checks::{all_references, check_duplicates, unknown_category};
use super::related::related_entries;
use crate::diagnostic::Problem;
use crate::load::{Config, Entry, Slug, Tag};

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
    /// Shared with the site before an edit that [`patch`] linked.
    pub by_slug: Arc<HashMap<Slug, usize>>,
    /// Each tag with its entries, sorted by title.
    pub tags: BTreeMap<Tag, Vec<usize>>,
    pub categories: Vec<Category>,
    /// For each entry, its related entries in display order (shared with the site before an
    /// edit that left them as they were).
    pub related: Arc<Vec<Vec<usize>>>,
    /// Every entry, by title, then place: the order of each list the site shows.
    pub by_title: Vec<usize>,
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
    let category_index: HashMap<&str, usize> = config
        .categories
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let (mut categories, mut tags) = group(&config, &category_index, &entries, problems);
    problems.extend(all_references(&entries, &by_slug, failed));
    // Every list is ordered by title, then place: each entry's rank in that order is found
    // once, so the lists sort by number instead of comparing titles again in each list.
    let (by_title, rank) = title_order(&entries);
    let sort = |list: &mut Vec<usize>| list.sort_unstable_by_key(|&i| rank[i]);
    for c in &mut categories {
        sort(&mut c.entries);
    }
    for list in tags.values_mut() {
        sort(list);
    }
    let related = match previous.filter(|p| same_neighbourhoods(p, &entries, &categories)) {
        Some(previous) => previous.related.clone(),
        None => Arc::new(related_entries(
            &entries,
            &by_slug,
            &tags,
            &categories,
            &category_index,
        )),
    };
    Site {
        config,
        entries,
        by_slug: Arc::new(by_slug),
        tags,
        categories,
        related,
        by_title,
    }
}

/// The config's categories with their entries, and each tag with its entries, in place order;
/// an entry in a category the config lacks is a problem.
fn group(
    config: &Config,
    category_index: &HashMap<&str, usize>,
    entries: &[Arc<Entry>],
    problems: &mut Vec<Problem>,
) -> (Vec<Category>, BTreeMap<Tag, Vec<usize>>) {
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
    // Grouped by hash, then sorted into the map once: a tag is cloned once for the site, and
    // each (entry, tag) costs a hash lookup rather than a walk down the tree.
    let mut grouped: HashMap<&Tag, Vec<usize>> = HashMap::default();
    for (i, entry) in entries.iter().enumerate() {
        match category_index.get(entry.category.as_str()) {
            Some(&c) => categories[c].entries.push(i),
            None => problems.push(unknown_category(entry, config)),
        }
        for tag in &entry.tags {
            let list = grouped.entry(tag).or_default();
            // A tag written twice in one entry lists the entry once.
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    let tags = grouped
        .into_iter()
        .map(|(tag, list)| (tag.clone(), list))
        .collect();
    (categories, tags)
}

/// The entries in order of title, then index; and each entry's place in that order.
fn title_order(entries: &[Arc<Entry>]) -> (Vec<usize>, Vec<u32>) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| entries[a].title.cmp(&entries[b].title).then(a.cmp(&b)));
    let mut rank = vec![0; entries.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r as u32;
    }
    (order, rank)
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
