//! Tests of the link stage: related lists against the counting method they replace, and
//! patched sites and warnings against sites and warnings found afresh.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::related::{explicit_related, fill_from_category, WIDE_TAGS};
use super::*;
use crate::diagnostic::Problem;
use crate::load::{Config, Entry, Slug, Tag};

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
        body: Default::default(),
        links: Vec::new(),
        unsafe_links: Vec::new(),
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
    let config =
        Config::parse("title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n  z: {title: Z}\n")
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
    let config =
        Config::parse("title: t\ncategories:\n  x: {title: X}\n  y: {title: Y}\n  z: {title: Z}\n")
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
                let tags: &[&str] = [&["a"][..], &["b", "c"], &[], &["fp16"], &["fp-16"]][next(5)];
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
