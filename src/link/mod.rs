//! The link stage: checked entries in, a [`Site`] (a checked graph) out.
//!
//! Takes the load stage's entries and config. Makes sure slugs are unique (a duplicate names
//! both files; slugs that differ only by case are one URL on macOS and Windows, so they clash
//! too), categories exist in `errata.yaml`, `related` slugs and `[text](@/slug)` links point
//! at entries, and builds the tag and category maps and each entry's related list (explicit
//! first, then by shared tags and category, at most [`MAX_RELATED`]). Every problem is
//! collected; links to a file that failed to load are not reported a second time.

mod warnings;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

// Slug and tag maps are looked up for every entry on each rebuild; their keys are our own
// content, so a fast hash suffices (and nothing iterates them into the output).
use rustc_hash::FxHashMap as HashMap;

pub use warnings::Warnings;

use crate::diagnostic::{did_you_mean, Problem};
use crate::load::{Config, Entry, Slug, Tag};

/// Entries with more tags than this are kept out of the tag-pair and tag-triple indexes.
const WIDE_TAGS: usize = 16;

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
    // Grouped by hash, then sorted into the map once: a tag is cloned once for the site, and
    // each (entry, tag) costs a hash lookup rather than a walk down the tree.
    let mut grouped: HashMap<&Tag, Vec<usize>> = HashMap::default();
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
            let list = grouped.entry(tag).or_default();
            // A tag written twice in one entry lists the entry once.
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    let mut tags: BTreeMap<Tag, Vec<usize>> = grouped
        .into_iter()
        .map(|(tag, list)| (tag.clone(), list))
        .collect();
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

/// [`link`] after an edit that replaced the entries at some places and kept every slug, file,
/// category, tag and `related` list as it was: `previous` with those entries swapped in, the
/// lists they are in put back in title order, and only their references checked. `None` when
/// the edit changed more than that, or moved an entry within its category (which can change
/// other entries' related lists): then [`relink`] does it all.
///
/// `previous` linked without an error, so the entries not replaced have nothing to report.
pub fn patch(
    previous: &Site,
    config: &Config,
    replaced: &[(usize, Arc<Entry>)],
    failed: &[Slug],
    problems: &mut Vec<Problem>,
) -> Option<Site> {
    // (A category map compares equal in any order; the order is the site's too.)
    if *config != previous.config
        || !config
            .categories
            .keys()
            .eq(previous.config.categories.keys())
    {
        return None;
    }
    let mut entries = previous.entries.clone();
    for (i, new) in replaced {
        let old = previous.entries.get(*i)?;
        let same_place = old.slug == new.slug
            && old.file == new.file
            && old.category == new.category
            && old.tags == new.tags
            && old.related == new.related;
        if !same_place {
            return None;
        }
        entries[*i] = new.clone();
    }
    let retitled: Vec<usize> = replaced
        .iter()
        .map(|(i, _)| *i)
        .filter(|&i| previous.entries[i].title != entries[i].title)
        .collect();
    // Takes out the retitled entries a list holds and puts each back where its title goes.
    let in_title_order = |list: &mut Vec<usize>| {
        let moved: Vec<usize> = retitled
            .iter()
            .copied()
            .filter(|i| list.contains(i))
            .collect();
        if moved.is_empty() {
            return;
        }
        list.retain(|i| !moved.contains(i));
        for i in moved {
            let key = (&entries[i].title, i);
            let at = list.partition_point(|&j| (&entries[j].title, j) < key);
            list.insert(at, i);
        }
    };
    let mut categories = previous.categories.clone();
    for c in &mut categories {
        let before = c.entries.clone();
        in_title_order(&mut c.entries);
        if c.entries != before {
            return None;
        }
    }
    let mut tags = previous.tags.clone();
    for &i in &retitled {
        for tag in &entries[i].tags {
            if let Some(list) = tags.get_mut(tag) {
                in_title_order(list);
            }
        }
    }
    let mut by_title = previous.by_title.clone();
    in_title_order(&mut by_title);
    for (i, _) in replaced {
        check_references(&entries[*i], &previous.by_slug, failed, problems);
    }
    Some(Site {
        config: config.clone(),
        entries,
        by_slug: previous.by_slug.clone(),
        tags,
        categories,
        related: previous.related.clone(),
        by_title,
    })
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

/// Two entries with one slug (or file names that differ only by case) would write one page.
/// Reports each file, naming the other, and keeps only the first so links still resolve.
fn check_duplicates(entries: &mut Vec<Arc<Entry>>, problems: &mut Vec<Problem>) {
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
        // Found in the text only for a problem: most references are fine.
        let at = || entry.spans.value("related", r.as_str());
        if r == &entry.slug {
            let (line, column) = at();
            problems.push(Problem::error(
                &entry.file,
                line,
                column,
                format!("entry lists itself as related (`{r}`)"),
            ));
        } else if !exists(r) {
            let (line, column) = at();
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
/// ties, then slug order), then the rest of the category.
///
/// Counting shared tags over each of an entry's tag lists costs the size of those lists, and
/// with a vocabulary that does not grow with the site that is quadratic (15 s of a
/// 100,000-entry build). Instead: entries sharing three or more tags share a *triple* of
/// tags, so they come from a triple index (lists a few entries long) and are ranked in full;
/// entries sharing exactly two tags, or one, rank by category and slug alone, so only the
/// first few of each pair's or tag's list (per category, in slug order) can be among the
/// best. The result is the counting method's (a test compares them).
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
    // Tags as numbers; each entry's tag numbers, sorted and unique.
    let tag_id: HashMap<&Tag, u32> = tags
        .keys()
        .enumerate()
        .map(|(k, t)| (t, k as u32))
        .collect();
    let entry_tags: Vec<Vec<u32>> = entries
        .iter()
        .map(|e| {
            let mut ids: Vec<u32> = e
                .tags
                .iter()
                .filter_map(|t| tag_id.get(t).copied())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        })
        .collect();
    // Per tag and per pair of tags, the entries that have them, in index (slug) order, also
    // split by category; per triple of tags, the entries that have all three.
    type Cat = Option<usize>;
    let mut by_tag: Vec<Vec<usize>> = vec![Vec::new(); tags.len()];
    // Keys are small integers: rustc's hash, not SipHash (the index is built on every link).
    let mut by_tag_category: HashMap<(u32, Cat), Vec<usize>> = HashMap::default();
    let mut by_pair: HashMap<(u32, u32), Vec<usize>> = HashMap::default();
    let mut by_pair_category: HashMap<(u32, u32, Cat), Vec<usize>> = HashMap::default();
    let mut by_triple: HashMap<(u32, u32, u32), Vec<usize>> = HashMap::default();
    // Entries with very many tags would fill the pair and triple indexes with the cube of
    // their tag count; they stay out of them and are compared with every entry directly.
    let mut wide: Vec<usize> = Vec::new();
    for (i, ids) in entry_tags.iter().enumerate() {
        let c = category_of[i];
        if ids.len() > WIDE_TAGS {
            wide.push(i);
        }
        for (x, &a) in ids.iter().enumerate() {
            by_tag[a as usize].push(i);
            by_tag_category.entry((a, c)).or_default().push(i);
            if ids.len() > WIDE_TAGS {
                continue;
            }
            for (y, &b) in ids.iter().enumerate().skip(x + 1) {
                by_pair.entry((a, b)).or_default().push(i);
                by_pair_category.entry((a, b, c)).or_default().push(i);
                for &d in &ids[y + 1..] {
                    by_triple.entry((a, b, d)).or_default().push(i);
                }
            }
        }
    }
    let shared = |a: &[u32], b: &[u32]| -> u32 {
        let (mut x, mut y, mut n) = (0, 0, 0);
        while x < a.len() && y < b.len() {
            match a[x].cmp(&b[y]) {
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    x += 1;
                    y += 1;
                }
            }
        }
        n
    };
    (0..entries.len())
        .into_par_iter()
        .map(|i| {
            let entry = &entries[i];
            let mut out = explicit_related(i, entry, by_slug);
            let (ids, cat) = (&entry_tags[i], category_of[i]);
            let rank = |a: &(u32, bool, usize), b: &(u32, bool, usize)| {
                b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2))
            };
            if out.len() < MAX_RELATED && ids.len() > WIDE_TAGS {
                // A wide entry: count over its tags' lists, as the counting method does.
                let mut touched: Vec<usize> = ids
                    .iter()
                    .flat_map(|&a| by_tag[a as usize].iter().copied())
                    .filter(|&j| j != i && !out.contains(&j))
                    .collect();
                touched.sort_unstable();
                let mut scored: Vec<(u32, bool, usize)> = touched
                    .chunk_by(|a, b| a == b)
                    .map(|run| (run.len() as u32, category_of[run[0]] == cat, run[0]))
                    .collect();
                scored.sort_unstable_by(rank);
                let wanted = MAX_RELATED - out.len();
                out.extend(scored.into_iter().take(wanted).map(|(_, _, j)| j));
            }
            // Wide entries sharing two or more tags with this one, which no pair or triple
            // list holds.
            let wide_shared: Vec<(usize, u32)> = wide
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| (j, shared(ids, &entry_tags[j])))
                .filter(|&(_, n)| n >= 2)
                .collect();
            // Three or more shared tags: from the triple lists (a few entries each), ranked
            // by the number shared, then category, then slug.
            if out.len() < MAX_RELATED && ids.len() >= 3 && ids.len() <= WIDE_TAGS {
                let mut high: Vec<usize> = Vec::new();
                for (x, &a) in ids.iter().enumerate() {
                    for (y, &b) in ids.iter().enumerate().skip(x + 1) {
                        for &d in &ids[y + 1..] {
                            high.extend(by_triple.get(&(a, b, d)).into_iter().flatten().copied());
                        }
                    }
                }
                high.extend(
                    wide_shared
                        .iter()
                        .filter(|&&(_, n)| n >= 3)
                        .map(|&(j, _)| j),
                );
                high.sort_unstable();
                high.dedup();
                let mut scored: Vec<(u32, bool, usize)> = high
                    .into_iter()
                    .filter(|&j| j != i && !out.contains(&j))
                    .map(|j| (shared(ids, &entry_tags[j]), category_of[j] == cat, j))
                    .collect();
                scored.sort_unstable_by(rank);
                let wanted = MAX_RELATED - out.len();
                out.extend(scored.into_iter().take(wanted).map(|(_, _, j)| j));
            }
            // Exactly two, then exactly one shared tag: the same category first, then the
            // others, each in slug order. An entry sharing exactly `level` tags is in exactly
            // one of the lists of that level, so only the first few valid entries of each
            // list can be among the best.
            // (A wide entry has counted every candidate already.)
            let levels: &[u32] = if ids.len() > WIDE_TAGS { &[] } else { &[2, 1] };
            for &level in levels {
                for same_category in [true, false] {
                    let wanted = MAX_RELATED.saturating_sub(out.len());
                    if wanted == 0 {
                        break;
                    }
                    let valid = |j: &usize| {
                        *j != i
                            && (category_of[*j] == cat) == same_category
                            && !out.contains(j)
                            && shared(ids, &entry_tags[*j]) == level
                    };
                    let empty: &[usize] = &[];
                    let wide_two: Vec<usize> = wide_shared
                        .iter()
                        .filter(|&&(j, n)| {
                            n == 2 && level == 2 && (category_of[j] == cat) == same_category
                        })
                        .map(|&(j, _)| j)
                        .collect();
                    let mut lists: Vec<&[usize]> = vec![&wide_two];
                    for (x, &a) in ids.iter().enumerate() {
                        if level == 1 {
                            lists.push(if same_category {
                                by_tag_category.get(&(a, cat)).map_or(empty, Vec::as_slice)
                            } else {
                                &by_tag[a as usize]
                            });
                            continue;
                        }
                        for &b in &ids[x + 1..] {
                            lists.push(if same_category {
                                by_pair_category
                                    .get(&(a, b, cat))
                                    .map_or(empty, Vec::as_slice)
                            } else {
                                by_pair.get(&(a, b)).map_or(empty, Vec::as_slice)
                            });
                        }
                    }
                    let mut found: Vec<usize> = Vec::new();
                    for list in lists {
                        found.extend(list.iter().copied().filter(valid).take(wanted));
                    }
                    found.sort_unstable();
                    found.dedup();
                    out.extend(found.into_iter().take(wanted));
                }
            }
            fill_from_category(i, entry, categories, category_index, &mut out);
            out
        })
        .collect()
}

/// An entry's explicit `related` slugs that name another entry, in order, at most
/// [`MAX_RELATED`].
fn explicit_related(i: usize, entry: &Entry, by_slug: &HashMap<Slug, usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(MAX_RELATED);
    for r in &entry.related {
        if let Some(&j) = by_slug.get(r) {
            if j != i && !out.contains(&j) && out.len() < MAX_RELATED {
                out.push(j);
            }
        }
    }
    out
}

/// Tops `out` up to [`MAX_RELATED`] with the rest of the entry's category, in title order.
fn fill_from_category(
    i: usize,
    entry: &Entry,
    categories: &[Category],
    category_index: &HashMap<&str, usize>,
    out: &mut Vec<usize>,
) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded xorshift generator: `next(n)` is a number below `n`.
    fn numbers(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    fn entry(i: usize, category: &str, tags: &[&str], related: &[usize]) -> Arc<Entry> {
        Arc::new(Entry {
            file: format!("content/{category}/e{i:03}.md").into(),
            content_path: format!("{category}/e{i:03}.md"),
            slug: Slug::parse(&format!("e{i:03}")).unwrap(),
            title: format!("Entry {}", (i * 7919) % 1000),
            category: category.into(),
            severity: crate::load::Severity::parse("high").unwrap(),
            kind: crate::load::Kind::parse("failure").unwrap(),
            tags: tags.iter().map(|t| Tag::parse(t).unwrap()).collect(),
            summary: String::new(),
            summary_text: String::new(),
            signatures: Vec::new(),
            fingerprint: None,
            symptoms: Vec::new(),
            root_causes: Vec::new(),
            fix: None,
            affects: Vec::new(),
            confirm: Vec::new(),
            cues: Default::default(),
            related: related
                .iter()
                .map(|j| Slug::parse(&format!("e{j:03}")).unwrap())
                .collect(),
            references: Vec::new(),
            updated: None,
            draft: false,
            body: String::new(),
            links: Vec::new(),
            body_line: 1,
            spans: Default::default(),
        })
    }

    /// The pair-index method gives the counting method's lists, on sites made at random
    /// with few tags (so many entries share two or three) and few categories.
    #[test]
    fn related_lists_equal_the_counting_methods() {
        let mut next = numbers(0x9e37_79b9_7f4a_7c15);
        // Sometimes more tags than WIDE_TAGS on an entry, so wide entries are compared too.
        let vocabulary: Vec<String> = (0..24).map(|k| format!("t{k}")).collect();
        let config = Config::parse(
            "title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n  z: {title: Z}\n",
        )
        .unwrap();
        for round in 0..500 {
            let n = 1 + next(60);
            let span = if next(4) == 0 { vocabulary.len() } else { 9 };
            let vocab = 1 + next(span);
            let entries: Vec<Arc<Entry>> = (0..n)
                .map(|i| {
                    let mut tags: Vec<&str> = Vec::new();
                    let count = if next(10) == 0 {
                        WIDE_TAGS + 1 + next(8)
                    } else {
                        next(5)
                    };
                    for _ in 0..count {
                        let t = vocabulary[next(vocab)].as_str();
                        if !tags.contains(&t) {
                            tags.push(t);
                        }
                    }
                    let mut related = Vec::new();
                    if next(4) == 0 {
                        related.push(next(n));
                    }
                    entry(i, ["x", "y", "z", "w"][next(4)], &tags, &related)
                })
                .collect();
            let site = link(config.clone(), entries, &[], &mut Vec::new());
            let category_index: HashMap<&str, usize> = site
                .categories
                .iter()
                .enumerate()
                .map(|(k, c)| (c.key.as_str(), k))
                .collect();
            let counted = related_by_counting(
                &site.entries,
                &site.by_slug,
                &site.tags,
                &site.categories,
                &category_index,
            );
            assert_eq!(
                *site.related, counted,
                "round {round}: {n} entries, {vocab} tags"
            );
        }
    }

    /// The counting method [`related_entries`] replaced, kept to check it: explicit `related`
    /// first, then the entries sharing the most tags (same category breaking ties), then the
    /// rest of the category, counting shared tags over each of an entry's tag lists.
    fn related_by_counting(
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
                    let mut out = explicit_related(i, entry, by_slug);
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
                    fill_from_category(i, entry, categories, category_index, &mut out);
                    out
                },
            )
            .collect()
    }

    /// What a site is, field by field, to compare a patched site with one linked afresh.
    fn fields(site: &Site) -> impl PartialEq + std::fmt::Debug {
        let categories: Vec<(String, Vec<usize>)> = site
            .categories
            .iter()
            .map(|c| (c.key.clone(), c.entries.clone()))
            .collect();
        let entries: Vec<Arc<Entry>> = site.entries.clone();
        let by_slug: BTreeMap<Slug, usize> =
            site.by_slug.iter().map(|(s, i)| (s.clone(), *i)).collect();
        (
            entries
                .iter()
                .map(|e| (e.slug.clone(), e.title.clone()))
                .collect::<Vec<_>>(),
            by_slug,
            site.tags.clone(),
            categories,
            (*site.related).clone(),
            site.by_title.clone(),
        )
    }

    /// Patching a site after an edit that kept every entry's place gives the site that linking
    /// from scratch gives, or declines; it declines when a tag, category or slug changed.
    #[test]
    fn a_patched_site_equals_one_linked_afresh() {
        let mut next = numbers(0x2545_f491_4f6c_dd1d);
        let config = Config::parse(
            "title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n  z: {title: Z}\n",
        )
        .unwrap();
        let vocabulary: Vec<String> = (0..8).map(|k| format!("t{k}")).collect();
        let (mut patched, mut declined) = (0, 0);
        for round in 0..600 {
            let n = 2 + next(40);
            let entries: Vec<Arc<Entry>> = (0..n)
                .map(|i| {
                    let tags: Vec<&str> = (0..next(4))
                        .map(|_| vocabulary[next(vocabulary.len())].as_str())
                        .collect();
                    let mut tags = tags;
                    tags.dedup();
                    entry(i, ["x", "y", "z"][next(3)], &tags, &[])
                })
                .collect();
            let before = link(config.clone(), entries.clone(), &[], &mut Vec::new());
            // Retitle a few entries (sometimes to a title another entry has), and now and then
            // change a tag or a category, which a patch must decline.
            let mut replaced = Vec::new();
            for _ in 0..1 + next(3) {
                let i = next(n);
                let old = &before.entries[i];
                let mut new = (**old).clone();
                new.title = match next(4) {
                    0 => before.entries[next(n)].title.clone(),
                    1 => format!("A{}", next(1000)),
                    _ => format!("{} (edited)", old.title),
                };
                match next(8) {
                    0 => new.tags.push(Tag::parse("fresh").unwrap()),
                    1 => new.category = ["x", "y", "z"][next(3)].into(),
                    _ => {}
                }
                replaced.retain(|(j, _): &(usize, Arc<Entry>)| *j != i);
                replaced.push((i, Arc::new(new)));
            }
            let mut after_entries = before.entries.clone();
            for (i, e) in &replaced {
                after_entries[*i] = e.clone();
            }
            let fresh = link(config.clone(), after_entries, &[], &mut Vec::new());
            let kept_places = replaced.iter().all(|(i, e)| {
                let old = &before.entries[*i];
                old.tags == e.tags && old.category == e.category
            });
            match patch(&before, &config, &replaced, &[], &mut Vec::new()) {
                Some(site) => {
                    assert!(
                        kept_places,
                        "round {round}: patched a changed tag or category"
                    );
                    assert_eq!(fields(&site), fields(&fresh), "round {round}");
                    patched += 1;
                }
                None => declined += 1,
            }
        }
        // Both paths were taken often enough to mean something.
        assert!(
            patched > 100 && declined > 20,
            "{patched} patched, {declined} declined"
        );
    }

    /// Patched warnings equal the warnings found afresh, when edits add, drop and copy
    /// signatures (so entries that were not edited gain or lose a warning), retitle entries and
    /// move their dates.
    #[test]
    fn patched_warnings_equal_warnings_found_afresh() {
        let mut next = numbers(0x1234_5678_9abc_def1);
        let config =
            Config::parse("title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n").unwrap();
        let today = chrono::NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
        let day = |d: usize| today + chrono::Days::new(d as u64) - chrono::Days::new(3);
        // Few signature texts, so entries share them often; case and spaces differ.
        let texts = [
            "CUDA out of memory",
            "cuda out of memory ",
            "NCCL timeout",
            "nan loss",
            "x",
        ];
        let sorted = |mut p: Vec<Problem>| {
            crate::diagnostic::sort_problems(&mut p);
            p
        };
        let mut shared_seen = 0;
        for round in 0..300 {
            let n = 2 + next(25);
            let mut entries: Vec<Arc<Entry>> = (0..n)
                .map(|i| {
                    let tags: &[&str] =
                        [&["a"][..], &["b", "c"], &[], &["fp16"], &["fp-16"]][next(5)];
                    let related: Vec<usize> = if next(5) == 0 { vec![next(n)] } else { vec![] };
                    let mut e = (*entry(i, ["x", "y"][next(2)], tags, &related)).clone();
                    e.signatures = (0..next(3))
                        .map(|_| crate::load::Signature::plain(texts[next(texts.len())]))
                        .collect();
                    e.updated = (next(2) == 0).then(|| day(next(6)));
                    Arc::new(e)
                })
                .collect();
            // No entry lists itself as related.
            for e in &mut entries {
                if e.related.contains(&e.slug) {
                    Arc::make_mut(e).related.clear();
                }
            }
            let before = link(config.clone(), entries, &[], &mut Vec::new());
            let found = Warnings::find(&before, today);
            let mut replaced: Vec<(usize, Arc<Entry>)> = Vec::new();
            for _ in 0..1 + next(2) {
                let i = next(n);
                let mut e = (*before.entries[i]).clone();
                match next(4) {
                    0 => e
                        .signatures
                        .push(crate::load::Signature::plain(texts[next(texts.len())])),
                    1 => {
                        e.signatures.pop();
                    }
                    2 => e.updated = Some(day(next(6))),
                    _ => e.title = format!("{} (edited)", e.title),
                }
                replaced.retain(|(j, _)| *j != i);
                replaced.push((i, Arc::new(e)));
            }
            let Some(after) = patch(&before, &config, &replaced, &[], &mut Vec::new()) else {
                continue;
            };
            let places: Vec<usize> = replaced.iter().map(|(i, _)| *i).collect();
            let patched = found.patch(&after, &places, today).problems();
            let fresh = Warnings::find(&after, today).problems();
            shared_seen += fresh
                .iter()
                .filter(|p| p.message.starts_with("signature"))
                .count();
            assert_eq!(sorted(patched), sorted(fresh), "round {round}");
        }
        assert!(
            shared_seen > 100,
            "only {shared_seen} shared-signature warnings checked"
        );
    }

    /// A config whose categories are in another order compares equal as a map; a patch must
    /// still decline it, since the order is the site's.
    #[test]
    fn a_patch_declines_reordered_categories() {
        let config =
            Config::parse("title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n").unwrap();
        let swapped =
            Config::parse("title: t\ncategories:\n  y: {title: Y}\n  x: {title: X}\n").unwrap();
        let entries = vec![entry(0, "x", &["a"], &[]), entry(1, "y", &["a"], &[])];
        let site = link(config.clone(), entries, &[], &mut Vec::new());
        assert!(patch(&site, &config, &[], &[], &mut Vec::new()).is_some());
        assert!(patch(&site, &swapped, &[], &[], &mut Vec::new()).is_none());
    }
}
