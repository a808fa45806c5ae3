//! Warnings: what an editor would want to know, though the site still builds.
//!
//! Takes the linked [`Site`] and today's date; yields warnings for near-duplicate tags (one
//! tag written two ways), entries that link nowhere (no related entries and no tag shared
//! with another entry), a signature identical to another entry's (unless the two list each
//! other as related: one message with two causes), and an `updated` date in the future. `--strict` turns them into errors.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;

use super::Site;
use crate::diagnostic::Problem;

pub fn warnings(site: &Site, today: NaiveDate) -> Vec<Problem> {
    let mut out = Vec::new();
    near_duplicate_tags(site, &mut out);
    isolated_entries(site, &mut out);
    shared_signatures(site, &mut out);
    for e in &site.entries {
        if let Some(date) = e.updated.filter(|d| *d > today) {
            let (line, column) = e.spans.value("updated", &date.to_string());
            out.push(
                Problem::warning(
                    &e.file,
                    line,
                    column,
                    format!("`updated` is in the future ({date})"),
                )
                .with_hint(format!("today is {today}")),
            );
        }
    }
    out
}

/// `activation-memory` and `activation-memories`, `fp16` and `fp-16`.
fn near_duplicate_tags(site: &Site, out: &mut Vec<Problem>) {
    let tags: Vec<&str> = site.tags.keys().map(|t| t.as_str()).collect();
    // Candidates share a bucket: the same stem, or the same spelling with one letter deleted
    // (which every pair one edit apart has); so the cost grows with the tags, not their square.
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, tag) in tags.iter().enumerate() {
        buckets
            .entry(format!("s:{}", stem(tag)))
            .or_default()
            .push(i);
        if tag.len() >= 6 && tag.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            buckets.entry(format!("d:{tag}")).or_default().push(i);
            for (k, _) in tag.char_indices() {
                let mut deleted = tag.to_string();
                deleted.remove(k);
                buckets.entry(format!("d:{deleted}")).or_default().push(i);
            }
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    for members in buckets.values().filter(|m| m.len() > 1 && m.len() <= 64) {
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                let (a, b) = (tags[i.min(j)], tags[i.max(j)]);
                if i != j && (stem(a) == stem(b) || strsim::levenshtein(a, b) == 1) {
                    pairs.insert((i.min(j), i.max(j)));
                }
            }
        }
    }
    for (i, j) in pairs {
        let (a, b) = (&tags[i], &tags[j]);
        {
            // report at the entries using the rarer spelling
            let count = |t: &str| {
                crate::load::Tag::parse(t)
                    .ok()
                    .and_then(|t| site.tags.get(&t))
                    .map_or(0, Vec::len)
            };
            let (rare, common) = if count(a) <= count(b) {
                (*a, *b)
            } else {
                (*b, *a)
            };
            let Some(list) = crate::load::Tag::parse(rare)
                .ok()
                .and_then(|t| site.tags.get(&t))
            else {
                continue;
            };
            for &i in list {
                let e = &site.entries[i];
                let (line, column) = e.spans.value("tags", rare);
                out.push(
                    Problem::warning(
                        &e.file,
                        line,
                        column,
                        format!("tag `{rare}` is close to `{common}`"),
                    )
                    .with_hint(format!("if they mean the same, write `{common}`")),
                );
            }
        }
    }
}

/// A tag without dashes and without a plural ending: `fp-16` and `fp16`, `memories` and `memory`.
fn stem(tag: &str) -> String {
    let squashed = tag.replace('-', "");
    if let Some(base) = squashed.strip_suffix("ies") {
        format!("{base}y")
    } else if let Some(base) = squashed.strip_suffix('s').filter(|b| !b.ends_with('s')) {
        base.to_owned()
    } else {
        squashed
    }
}

fn isolated_entries(site: &Site, out: &mut Vec<Problem>) {
    // Marked by index, walking the tag map and the related lists once.
    let mut shares_tag = vec![false; site.entries.len()];
    for list in site.tags.values().filter(|l| l.len() > 1) {
        for &i in list {
            shares_tag[i] = true;
        }
    }
    let mut linked_to = vec![false; site.entries.len()];
    for e in &site.entries {
        for slug in &e.related {
            if let Some(&j) = site.by_slug.get(slug) {
                linked_to[j] = true;
            }
        }
    }
    for (i, e) in site.entries.iter().enumerate() {
        let shares_tag = shares_tag[i];
        let linked = !e.related.is_empty() || linked_to[i];
        if !shares_tag && !linked {
            let (line, column) = e.spans.key("related");
            out.push(
                Problem::warning(
                    &e.file,
                    line,
                    column,
                    "entry has no related entries and shares no tag with another",
                )
                .with_hint(
                    "add `related:` slugs or a tag other entries use, so readers can find it",
                ),
            );
        }
    }
}

fn shared_signatures(site: &Site, out: &mut Vec<Problem>) {
    // Grouped by a hash of the normalised text (trimmed, lowercase), sorted; only texts
    // whose hashes meet are compared, so no key is allocated for the unique ones.
    let normal = |s: &str| -> String {
        let t = s.trim();
        if t.is_ascii() {
            t.to_ascii_lowercase()
        } else {
            t.to_lowercase()
        }
    };
    // The bytes of the normal form, hashed in one write.
    let hash = |s: &str| -> u64 {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        let t = s.trim();
        if t.is_ascii() {
            let mut buf = [0u8; 256];
            for chunk in t.as_bytes().chunks(buf.len()) {
                let part = &mut buf[..chunk.len()];
                part.copy_from_slice(chunk);
                part.make_ascii_lowercase();
                h.write(part);
            }
        } else {
            h.write(normal(t).as_bytes());
        }
        h.finish()
    };
    let mut hashed: Vec<(u64, usize, &str)> = site
        .entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.signatures.iter().map(move |s| (i, s.as_str())))
        .map(|(i, s)| (hash(s), i, s))
        .collect();
    hashed.sort_unstable();
    let mut shared: Vec<(String, Vec<(usize, &str)>)> = Vec::new();
    for run in hashed.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
        let mut by_text: BTreeMap<String, Vec<(usize, &str)>> = BTreeMap::new();
        for &(_, i, s) in run {
            by_text.entry(normal(s)).or_default().push((i, s));
        }
        shared.extend(by_text.into_iter().filter(|(_, h)| h.len() > 1));
    }
    // In text order, so the warnings come out the same way every time.
    shared.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // Entries that list each other as related share an error on purpose (one message, two
    // causes); any other holder of the same signature is likely a copy.
    let linked = |a: usize, b: usize| {
        site.entries[a].related.contains(&site.entries[b].slug)
            && site.entries[b].related.contains(&site.entries[a].slug)
    };
    for (_, holders) in &shared {
        for (k, &(i, sig)) in holders.iter().enumerate() {
            let others: Vec<String> = holders
                .iter()
                .enumerate()
                .filter(|(j, (o, _))| *j != k && !linked(i, *o))
                .map(|(_, (o, _))| site.entries[*o].file.display().to_string())
                .collect();
            if others.is_empty() {
                continue;
            }
            let e = &site.entries[i];
            let (line, column) = e.spans.value("signatures", sig);
            out.push(
                Problem::warning(&e.file, line, column, format!("signature is identical to one in {}", others.join(", ")))
                    .with_hint("a shared signature cannot tell the entries apart; keep it where it belongs and give each entry its own wording"),
            );
        }
    }
}
