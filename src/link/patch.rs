//! Linking after an edit that kept every entry's place, by patching the last site.
//!
//! Takes the site before the edit and the entries the edit replaced (by their place); yields
//! the site with them swapped in and the lists they are in put back in title order, with only
//! their references checked, or `None` when the edit changed more than that.

use std::sync::Arc;

use super::checks::check_references;
use super::site::Site;
use crate::diagnostic::Problem;
use crate::load::{Config, Entry, Slug};

/// [`super::link`] after an edit that replaced the entries at some places and kept every slug,
/// file, category, tag and `related` list as it was: `previous` with those entries swapped in,
/// the lists they are in put back in title order, and only their references checked. `None`
/// when the edit changed more than that, or moved an entry within its category (which can
/// change other entries' related lists): then [`super::relink`] does it all.
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
    let entries = swapped_in(previous, replaced)?;
    let retitled: Vec<usize> = replaced
        .iter()
        .map(|(i, _)| *i)
        .filter(|&i| previous.entries[i].title != entries[i].title)
        .collect();
    let order = TitleOrder {
        entries: &entries,
        retitled: &retitled,
    };
    let mut categories = previous.categories.clone();
    for c in &mut categories {
        if order.put_back(&mut c.entries) {
            return None;
        }
    }
    let mut tags = previous.tags.clone();
    for &i in &retitled {
        for tag in &entries[i].tags {
            if let Some(list) = tags.get_mut(tag) {
                order.put_back(list);
            }
        }
    }
    let mut by_title = previous.by_title.clone();
    order.put_back(&mut by_title);
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

/// `previous`'s entries with the replaced ones swapped in; `None` when one of them changed its
/// slug, file, category, tags or `related` list.
fn swapped_in(previous: &Site, replaced: &[(usize, Arc<Entry>)]) -> Option<Vec<Arc<Entry>>> {
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
    Some(entries)
}

/// Puts retitled entries back where their new titles go in a list ordered by title, then place.
struct TitleOrder<'a> {
    entries: &'a [Arc<Entry>],
    retitled: &'a [usize],
}

impl TitleOrder<'_> {
    /// Takes out the retitled entries `list` holds and puts each back where its title goes;
    /// returns whether the list changed.
    fn put_back(&self, list: &mut Vec<usize>) -> bool {
        let moved: Vec<usize> = self
            .retitled
            .iter()
            .copied()
            .filter(|i| list.contains(i))
            .collect();
        if moved.is_empty() {
            return false;
        }
        let before = list.clone();
        list.retain(|i| !moved.contains(i));
        for i in moved {
            let key = (&self.entries[i].title, i);
            let at = list.partition_point(|&j| (&self.entries[j].title, j) < key);
            list.insert(at, i);
        }
        *list != before
    }
}
