//! Each entry's related entries: explicit `related` first, then the entries sharing the most
//! tags (same category breaking ties, then slug order), then the rest of the category.
//!
//! Counting shared tags over each of an entry's tag lists costs the size of those lists, and
//! with a vocabulary that does not grow with the site that is quadratic (15 s of a
//! 100,000-entry build). Instead: entries sharing three or more tags share a *triple* of
//! tags, so they come from a triple index (lists a few entries long) and are ranked in full;
//! entries sharing exactly two tags, or one, rank by category and slug alone, so only the
//! first few of each pair's or tag's list (per category, in slug order) can be among the
//! best. The result is the counting method's (a test compares them).

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::site::Category;
use super::MAX_RELATED;
use crate::load::{Entry, Slug, Tag};

/// Entries with more tags than this are kept out of the tag-pair and tag-triple indexes.
pub(super) const WIDE_TAGS: usize = 16;

/// An entry's category, by its place in the config (`None`: not in the config).
type Cat = Option<usize>;

/// A candidate ranked by tags shared, then same category, then place (slug order).
type Scored = (u32, bool, usize);

/// The related list of every entry, in display order.
pub(super) fn related_entries(
    entries: &[Arc<Entry>],
    by_slug: &HashMap<Slug, usize>,
    tags: &BTreeMap<Tag, Vec<usize>>,
    categories: &[Category],
    category_index: &HashMap<&str, usize>,
) -> Vec<Vec<usize>> {
    use rayon::prelude::*;
    let index = RelatedIndex::new(entries, tags, category_index);
    (0..entries.len())
        .into_par_iter()
        .map(|i| {
            let entry = &entries[i];
            let mut out = explicit_related(i, entry, by_slug);
            index.add_by_tags(i, &mut out);
            fill_from_category(i, entry, categories, category_index, &mut out);
            out
        })
        .collect()
}

/// Per tag and per pair of tags, the entries that have them, in index (slug) order, also split
/// by category; per triple of tags, the entries that have all three.
struct RelatedIndex {
    category_of: Vec<Cat>,
    /// Each entry's tag numbers, sorted and unique.
    entry_tags: Vec<Vec<u32>>,
    by_tag: Vec<Vec<usize>>,
    // Keys are small integers: rustc's hash, not SipHash (the index is built on every link).
    by_tag_category: HashMap<(u32, Cat), Vec<usize>>,
    by_pair: HashMap<(u32, u32), Vec<usize>>,
    by_pair_category: HashMap<(u32, u32, Cat), Vec<usize>>,
    by_triple: HashMap<(u32, u32, u32), Vec<usize>>,
    /// Entries with very many tags would fill the pair and triple indexes with the cube of
    /// their tag count; they stay out of them and are compared with every entry directly.
    wide: Vec<usize>,
}

impl RelatedIndex {
    fn new(
        entries: &[Arc<Entry>],
        tags: &BTreeMap<Tag, Vec<usize>>,
        category_index: &HashMap<&str, usize>,
    ) -> RelatedIndex {
        let category_of: Vec<Cat> = entries
            .iter()
            .map(|e| category_index.get(e.category.as_str()).copied())
            .collect();
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
        let mut index = RelatedIndex {
            category_of,
            entry_tags: Vec::new(),
            by_tag: vec![Vec::new(); tags.len()],
            by_tag_category: HashMap::default(),
            by_pair: HashMap::default(),
            by_pair_category: HashMap::default(),
            by_triple: HashMap::default(),
            wide: Vec::new(),
        };
        for (i, ids) in entry_tags.iter().enumerate() {
            index.insert(i, ids);
        }
        index.entry_tags = entry_tags;
        index
    }

    /// Files entry `i`, with tag numbers `ids`, under its tags, pairs and triples.
    fn insert(&mut self, i: usize, ids: &[u32]) {
        let c = self.category_of[i];
        if ids.len() > WIDE_TAGS {
            self.wide.push(i);
        }
        for (x, &a) in ids.iter().enumerate() {
            self.by_tag[a as usize].push(i);
            self.by_tag_category.entry((a, c)).or_default().push(i);
            if ids.len() > WIDE_TAGS {
                continue;
            }
            for (y, &b) in ids.iter().enumerate().skip(x + 1) {
                self.by_pair.entry((a, b)).or_default().push(i);
                self.by_pair_category.entry((a, b, c)).or_default().push(i);
                for &d in &ids[y + 1..] {
                    self.by_triple.entry((a, b, d)).or_default().push(i);
                }
            }
        }
    }

    /// How many tags entries `i` and `j` share.
    fn shared(&self, i: usize, j: usize) -> u32 {
        let (a, b) = (&self.entry_tags[i], &self.entry_tags[j]);
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
    }

    fn scored(&self, i: usize, j: usize) -> Scored {
        (
            self.shared(i, j),
            self.category_of[j] == self.category_of[i],
            j,
        )
    }

    /// Tops `out` up with the entries sharing tags with entry `i`, best first.
    fn add_by_tags(&self, i: usize, out: &mut Vec<usize>) {
        if self.entry_tags[i].len() > WIDE_TAGS {
            // A wide entry has counted every candidate.
            self.add_counted(i, out);
            return;
        }
        // Wide entries sharing two or more tags with this one, which no pair or triple list
        // holds.
        let wide_shared: Vec<(usize, u32)> = self
            .wide
            .iter()
            .filter(|&&j| j != i)
            .map(|&j| (j, self.shared(i, j)))
            .filter(|&(_, n)| n >= 2)
            .collect();
        self.add_three_or_more(i, &wide_shared, out);
        for level in [2, 1] {
            for same_category in [true, false] {
                self.add_level(i, level, same_category, &wide_shared, out);
            }
        }
    }

    /// For a wide entry: counts over its tags' lists, as the counting method does.
    fn add_counted(&self, i: usize, out: &mut Vec<usize>) {
        if out.len() >= MAX_RELATED {
            return;
        }
        let mut touched: Vec<usize> = self.entry_tags[i]
            .iter()
            .flat_map(|&a| self.by_tag[a as usize].iter().copied())
            .filter(|&j| j != i && !out.contains(&j))
            .collect();
        touched.sort_unstable();
        let cat = self.category_of[i];
        let scored: Vec<Scored> = touched
            .chunk_by(|a, b| a == b)
            .map(|run| (run.len() as u32, self.category_of[run[0]] == cat, run[0]))
            .collect();
        take_best(scored, out);
    }

    /// Three or more shared tags: from the triple lists (a few entries each), ranked by the
    /// number shared, then category, then slug.
    fn add_three_or_more(&self, i: usize, wide_shared: &[(usize, u32)], out: &mut Vec<usize>) {
        let ids = &self.entry_tags[i];
        if out.len() >= MAX_RELATED || ids.len() < 3 {
            return;
        }
        let mut high: Vec<usize> = Vec::new();
        for (x, &a) in ids.iter().enumerate() {
            for (y, &b) in ids.iter().enumerate().skip(x + 1) {
                for &d in &ids[y + 1..] {
                    high.extend(self.by_triple.get(&(a, b, d)).into_iter().flatten());
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
        let scored: Vec<Scored> = high
            .into_iter()
            .filter(|&j| j != i && !out.contains(&j))
            .map(|j| self.scored(i, j))
            .collect();
        take_best(scored, out);
    }

    /// Exactly `level` (two, then one) shared tags, in or out of the entry's category, each in
    /// slug order. An entry sharing exactly `level` tags is in exactly one of the lists of that
    /// level, so only the first few valid entries of each list can be among the best.
    fn add_level(
        &self,
        i: usize,
        level: u32,
        same_category: bool,
        wide_shared: &[(usize, u32)],
        out: &mut Vec<usize>,
    ) {
        let wanted = MAX_RELATED.saturating_sub(out.len());
        if wanted == 0 {
            return;
        }
        let cat = self.category_of[i];
        let in_category = |j: usize| (self.category_of[j] == cat) == same_category;
        let valid = |j: &usize| {
            *j != i && in_category(*j) && !out.contains(j) && self.shared(i, *j) == level
        };
        let wide_two: Vec<usize> = wide_shared
            .iter()
            .filter(|&&(j, n)| n == 2 && level == 2 && in_category(j))
            .map(|&(j, _)| j)
            .collect();
        let mut found: Vec<usize> = Vec::new();
        for list in std::iter::once(wide_two.as_slice()).chain(self.lists(i, level, same_category))
        {
            found.extend(list.iter().copied().filter(valid).take(wanted));
        }
        found.sort_unstable();
        found.dedup();
        out.extend(found.into_iter().take(wanted));
    }

    /// The tag lists (level 1) or pair lists (level 2) of entry `i`'s tags, in or out of its
    /// category.
    fn lists(&self, i: usize, level: u32, same_category: bool) -> Vec<&[usize]> {
        let (ids, cat) = (&self.entry_tags[i], self.category_of[i]);
        let empty: &[usize] = &[];
        let mut lists: Vec<&[usize]> = Vec::new();
        for (x, &a) in ids.iter().enumerate() {
            if level == 1 {
                lists.push(if same_category {
                    self.by_tag_category
                        .get(&(a, cat))
                        .map_or(empty, Vec::as_slice)
                } else {
                    &self.by_tag[a as usize]
                });
                continue;
            }
            for &b in &ids[x + 1..] {
                lists.push(if same_category {
                    self.by_pair_category
                        .get(&(a, b, cat))
                        .map_or(empty, Vec::as_slice)
                } else {
                    self.by_pair.get(&(a, b)).map_or(empty, Vec::as_slice)
                });
            }
        }
        lists
    }
}

/// Appends the best of `scored` to `out`, up to [`MAX_RELATED`].
fn take_best(mut scored: Vec<Scored>, out: &mut Vec<usize>) {
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let wanted = MAX_RELATED.saturating_sub(out.len());
    out.extend(scored.into_iter().take(wanted).map(|(_, _, j)| j));
}

/// An entry's explicit `related` slugs that name another entry, in order, at most
/// [`MAX_RELATED`].
pub(super) fn explicit_related(
    i: usize,
    entry: &Entry,
    by_slug: &HashMap<Slug, usize>,
) -> Vec<usize> {
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
pub(super) fn fill_from_category(
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
