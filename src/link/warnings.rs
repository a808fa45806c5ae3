//! Warnings: what an editor would want to know, though the site still builds.
//!
//! Takes the linked [`Site`] and today's date; yields warnings for near-duplicate tags (one
//! tag written two ways), entries that link nowhere (no related entries and no tag shared
//! with another entry), a signature identical to another entry's (unless the two list each
//! other as related: one message with two causes), and an `updated` date in the future. `--strict` turns them into errors.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;

use super::Site;
use crate::diagnostic::Problem;
use crate::load::{Entry, Kind, Tag, UnsafeLink};

/// The warnings of a site, by entry, with what they were found from, so that after an edit
/// only what it can have changed is looked at again (see [`Warnings::patch`]).
pub struct Warnings {
    today: NaiveDate,
    /// Pairs of tags written two ways: (the rarer spelling, the common one).
    close_tags: Vec<(Tag, Tag)>,
    /// Every signature of the site by a hash of its normal form, sorted.
    signatures: Vec<(u64, usize, usize)>,
    /// For each entry: whether it links nowhere, its warnings about its own signatures, and
    /// the others.
    found: Vec<Found>,
}

#[derive(Default, Clone)]
struct Found {
    isolated: bool,
    shared: Vec<Problem>,
    other: Vec<Problem>,
}

impl Warnings {
    /// Every warning of `site`.
    pub fn find(site: &Site, today: NaiveDate) -> Warnings {
        let close_tags = near_duplicate_tags(site);
        let isolated = isolated_entries(site);
        let mut signatures: Vec<(u64, usize, usize)> = site
            .entries
            .iter()
            .enumerate()
            .flat_map(|(i, e)| {
                e.signatures
                    .iter()
                    .enumerate()
                    .map(move |(k, s)| (signature_hash(&s.text), i, k))
            })
            .collect();
        signatures.sort_unstable();
        let mut warnings = Warnings {
            today,
            close_tags,
            signatures,
            found: isolated
                .into_iter()
                .map(|isolated| Found {
                    isolated,
                    ..Found::default()
                })
                .collect(),
        };
        // Only entries holding a signature another holds can have a warning about one.
        let mut sharing: Vec<usize> = warnings
            .signatures
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|run| run.len() > 1)
            .flat_map(|run| run.iter().map(|&(_, i, _)| i))
            .collect();
        sharing.sort_unstable();
        sharing.dedup();
        for i in sharing {
            warnings.found[i].shared = warnings.shared_signatures(site, i);
        }
        for i in 0..site.entries.len() {
            warnings.found[i].other = warnings.entry_warnings(site, i);
        }
        warnings
    }

    /// The warnings of `site`, made from these (of the site before an edit that
    /// [`super::patch`] linked: the entries at the places `replaced` changed, and every slug,
    /// tag, category and related list stayed as it was). The replaced entries are looked at
    /// again, and so are the entries that share a signature with one of them, before or after.
    pub fn patch(&self, site: &Site, replaced: &[usize], today: NaiveDate) -> Warnings {
        if today != self.today || self.found.len() != site.entries.len() {
            return Warnings::find(site, today);
        }
        let mut touched: Vec<u64> = Vec::new();
        let mut signatures: Vec<(u64, usize, usize)> = self
            .signatures
            .iter()
            .filter(|&&(hash, i, _)| {
                let out = replaced.contains(&i);
                if out {
                    touched.push(hash);
                }
                !out
            })
            .copied()
            .collect();
        for &i in replaced {
            for (k, s) in site.entries[i].signatures.iter().enumerate() {
                let item = (signature_hash(&s.text), i, k);
                touched.push(item.0);
                let at = signatures.partition_point(|x| *x < item);
                signatures.insert(at, item);
            }
        }
        let mut warnings = Warnings {
            today,
            close_tags: self.close_tags.clone(),
            signatures,
            found: self.found.clone(),
        };
        // The holders of every signature the edit added or took away, and the edited entries.
        let mut again: Vec<usize> = replaced.to_vec();
        for hash in touched {
            again.extend(warnings.holders(hash).iter().map(|&(_, i, _)| i));
        }
        again.sort_unstable();
        again.dedup();
        for &i in &again {
            warnings.found[i].shared = warnings.shared_signatures(site, i);
        }
        for &i in replaced {
            warnings.found[i].other = warnings.entry_warnings(site, i);
        }
        warnings
    }

    /// Every warning, in no particular order.
    pub fn problems(&self) -> Vec<Problem> {
        self.found
            .iter()
            .flat_map(|f| f.shared.iter().chain(&f.other))
            .cloned()
            .collect()
    }

    /// The signatures with this hash, as (hash, entry, place in its list).
    fn holders(&self, hash: u64) -> &[(u64, usize, usize)] {
        let from = self.signatures.partition_point(|x| x.0 < hash);
        let to = self.signatures.partition_point(|x| x.0 <= hash);
        &self.signatures[from..to]
    }

    /// Entry `i`'s warnings other than about shared signatures: its tags written the rarer
    /// way, its linking nowhere, an `updated` date in the future, a body link with an unsafe
    /// scheme.
    fn entry_warnings(&self, site: &Site, i: usize) -> Vec<Problem> {
        let e = &site.entries[i];
        let mut out = Vec::new();
        for (rare, common) in &self.close_tags {
            if e.tags.contains(rare) {
                let (line, column) = e.spans.value("tags", rare.as_str());
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
        if self.found[i].isolated {
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
        if let Some(problem) = unsourced_first_signature(e) {
            out.push(problem);
        }
        out.extend(e.unsafe_links.iter().map(|link| unsafe_link(e, link)));
        if let Some(date) = e.updated.filter(|d| *d > self.today) {
            let (line, column) = e.spans.value("updated", &date.to_string());
            out.push(
                Problem::warning(
                    &e.file,
                    line,
                    column,
                    format!("`updated` is in the future ({date})"),
                )
                .with_hint(format!("today is {}", self.today)),
            );
        }
        out
    }

    /// Entry `i`'s warnings about signatures another entry has too (after trimming and
    /// lowercasing). Entries that list each other as related share an error on purpose (one
    /// message, two causes); any other holder of the same signature is likely a copy.
    fn shared_signatures(&self, site: &Site, i: usize) -> Vec<Problem> {
        let e = &site.entries[i];
        let linked =
            |a: &Entry, b: &Entry| a.related.contains(&b.slug) && b.related.contains(&a.slug);
        let mut out = Vec::new();
        for (k, sig) in e.signatures.iter().enumerate() {
            let sig = &sig.text;
            let run = self.holders(signature_hash(sig));
            if run.len() < 2 {
                continue;
            }
            let text = normal(sig);
            let others: Vec<String> = run
                .iter()
                .filter(|&&(_, o, ko)| (o, ko) != (i, k))
                .map(|&(_, o, ko)| (&site.entries[o], ko))
                .filter(|(other, ko)| {
                    !linked(e, other) && normal(&other.signatures[*ko].text) == text
                })
                .map(|(other, _)| other.file.display().to_string())
                .collect();
            if others.is_empty() {
                continue;
            }
            let (line, column) = e.spans.value("signatures", sig);
            out.push(
                Problem::warning(&e.file, line, column, format!("signature is identical to one in {}", others.join(", ")))
                    .with_hint("a shared signature cannot tell the entries apart; keep it where it belongs and give each entry its own wording"),
            );
        }
        out
    }
}

/// A link or image whose scheme the page refuses: the author means something by it.
fn unsafe_link(e: &Entry, link: &UnsafeLink) -> Problem {
    let (what, kept) = if link.image {
        ("image source", "the image is shown without it")
    } else {
        ("link", "its text stays, without the link")
    };
    Problem::warning(
        &e.file,
        e.body_line + link.line - 1,
        link.column,
        format!("{what} with scheme `{}:` is dropped", link.scheme()),
    )
    .with_hint(format!(
        "only http, https, mailto and relative URLs are kept; {kept}"
    ))
}

/// A signature as it is compared: trimmed, lowercase.
fn normal(s: &str) -> String {
    let t = s.trim();
    if t.is_ascii() {
        t.to_ascii_lowercase()
    } else {
        t.to_lowercase()
    }
}

/// A hash of [`normal`]'s form of `s`, made without allocating it (most signatures are
/// unique, so most are only hashed).
fn signature_hash(s: &str) -> u64 {
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
}

/// `activation-memory` and `activation-memories`, `fp16` and `fp-16`.
/// Returns each such pair as (the rarer spelling, the more common one), where the warning goes.
fn near_duplicate_tags(site: &Site) -> Vec<(Tag, Tag)> {
    let tags: Vec<&Tag> = site.tags.keys().collect();
    // Candidates share a bucket: the same stem, or the same spelling with one letter deleted
    // (which every pair one edit apart has); so the cost grows with the tags, not their square.
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, tag) in tags.iter().map(|t| t.as_str()).enumerate() {
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
                let (a, b) = (tags[i.min(j)].as_str(), tags[i.max(j)].as_str());
                if i != j && (stem(a) == stem(b) || strsim::levenshtein(a, b) == 1) {
                    pairs.insert((i.min(j), i.max(j)));
                }
            }
        }
    }
    let count = |t: &Tag| site.tags.get(t).map_or(0, Vec::len);
    pairs
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (tags[i], tags[j]);
            if count(a) <= count(b) {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            }
        })
        .collect()
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

/// For each entry, whether it has no related entries and shares no tag with another.
fn isolated_entries(site: &Site) -> Vec<bool> {
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
    site.entries
        .iter()
        .enumerate()
        .map(|(i, e)| !shares_tag[i] && e.related.is_empty() && !linked_to[i])
        .collect()
}

/// A failure's first signature says where it is raised (`raised_in:` or `source:`), so that
/// its page can show the reader where the message comes from.
fn unsourced_first_signature(e: &Entry) -> Option<Problem> {
    let first = e.signatures.first()?;
    if e.kind != Kind::Failure || first.origin.is_some() {
        return None;
    }
    let (line, column) = e.spans.value("signatures", &first.text);
    Some(
        Problem::warning(
            &e.file,
            line,
            column,
            "the first signature does not say where it is raised",
        )
        .with_hint(format!(
            "write it as `- text: \"{}\"` with `raised_in:` (the upstream file) or `source:` (a link to the line or a thread)",
            first.text
        )),
    )
}
