//! The machine-readable outputs: sitemap.xml, atom.xml, robots.txt, opensearch.xml and
//! entries.json.
//!
//! Takes the linked [`Site`]; yields the files' text. Dates come from the entries, never the
//! clock, so two builds of the same content are byte-identical.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

use crate::link::Site;

fn xml(s: &str) -> String {
    super::highlight::escape(s)
}

/// The `count` newest entries, newest first (then by slug), for the feed and the home page.
/// Entries are in slug order, so the slug tie-break is the index; only the newest are sorted.
pub fn newest(site: &Site, count: usize) -> Vec<usize> {
    use std::cmp::Reverse;
    let mut keyed: Vec<(Reverse<Option<chrono::NaiveDate>>, usize)> = site
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (Reverse(e.updated), i))
        .collect();
    if count < keyed.len() {
        keyed.select_nth_unstable(count);
        keyed.truncate(count);
    }
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The sitemap: `pages` (URLs relative to the root, without a date), then every entry page
/// with its `updated` date.
pub fn sitemap(site: &Site, pages: &[String]) -> String {
    use std::fmt::Write;
    let base = xml(&site.config.base_url());
    let mut out = String::with_capacity((pages.len() + site.entries.len()) * 96 + 128);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for url in pages {
        let _ = writeln!(out, "  <url><loc>{base}{}</loc></url>", xml(&uri(url)));
    }
    for e in &site.entries {
        // Slugs and category keys are checked to hold no character XML escapes; a non-ASCII
        // letter is percent-encoded, as a URI must be. Pushed piece by piece: 10,000 entries,
        // and formatting was most of the sitemap's time.
        out.push_str("  <url><loc>");
        out.push_str(&base);
        out.push_str(&uri(&e.category));
        out.push('/');
        out.push_str(&uri(e.slug.as_str()));
        out.push_str("/</loc>");
        if let Some(date) = e.updated {
            out.push_str("<lastmod>");
            push_date(&mut out, date);
            out.push_str("</lastmod>");
        }
        out.push_str("</url>\n");
    }
    out.push_str("</urlset>\n");
    out
}

/// A site path as a URI path: non-ASCII letters (a slug `fehler-über-speicher`) and controls
/// percent-encoded as UTF-8; ASCII paths, nearly all, are borrowed as they are.
fn uri(path: &str) -> std::borrow::Cow<'_, str> {
    if path.is_ascii() {
        return std::borrow::Cow::Borrowed(path);
    }
    percent_encoding::utf8_percent_encode(path, percent_encoding::CONTROLS).into()
}

/// `date` as `YYYY-MM-DD`, as its `Display` writes it for years 0 to 9999.
fn push_date(out: &mut String, date: chrono::NaiveDate) {
    use chrono::Datelike;
    let year = date.year();
    if !(0..=9999).contains(&year) {
        out.push_str(&date.to_string());
        return;
    }
    let digits = |n: u32, width: usize, out: &mut String| {
        let mut buf = [b'0'; 4];
        let mut n = n;
        for k in (0..width).rev() {
            buf[k] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.push_str(std::str::from_utf8(&buf[..width]).unwrap_or_default());
    };
    digits(year as u32, 4, out);
    out.push('-');
    digits(date.month(), 2, out);
    out.push('-');
    digits(date.day(), 2, out);
}

/// Entries in the feed.
const ATOM_ENTRIES: usize = 50;

pub fn atom(site: &Site) -> String {
    let base = site.config.base_url();
    let order = newest(site, ATOM_ENTRIES);
    let newest = order
        .first()
        .and_then(|&i| site.entries[i].updated)
        .map(|d| d.to_string())
        .unwrap_or_else(|| "1970-01-01".into());
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n  <title>{}</title>\n  <subtitle>{}</subtitle>\n  <link href=\"{}\"/>\n  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}atom.xml\"/>\n  <id>{}</id>\n  <updated>{newest}T00:00:00Z</updated>\n  <generator uri=\"https://github.com/errata\" version=\"{}\">errata</generator>\n",
        xml(&site.config.language),
        xml(&site.config.title),
        xml(&site.config.description),
        xml(&base),
        xml(&base),
        xml(&base),
        env!("CARGO_PKG_VERSION"),
    );
    for &i in &order {
        let e = &site.entries[i];
        let url = format!("{base}{}", uri(&site.entry_url(i)));
        let updated = e
            .updated
            .map(|d| d.to_string())
            .unwrap_or_else(|| newest.clone());
        out.push_str(&format!(
            "  <entry>\n    <title>{}</title>\n    <link href=\"{}\"/>\n    <id>{}</id>\n    <updated>{updated}T00:00:00Z</updated>\n    <author><name>{}</name></author>\n    <category term=\"{}\"/>\n    <summary>{}</summary>\n  </entry>\n",
            xml(&e.title),
            xml(&url),
            xml(&url),
            xml(&site.config.title),
            xml(&e.category),
            xml(&e.summary_text),
        ));
    }
    out.push_str("</feed>\n");
    out
}

pub fn robots(site: &Site) -> String {
    format!(
        "User-agent: *\nAllow: /\n\nSitemap: {}sitemap.xml\n",
        site.config.base_url()
    )
}

pub fn opensearch(site: &Site) -> String {
    let base = site.config.base_url();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:moz=\"http://www.mozilla.org/2006/browser/search/\">\n  <ShortName>{}</ShortName>\n  <Description>Search {} for an error message</Description>\n  <InputEncoding>UTF-8</InputEncoding>\n  <Image width=\"16\" height=\"16\" type=\"image/svg+xml\">{}static/favicon.svg</Image>\n  <Url type=\"text/html\" method=\"get\" template=\"{}search/?q={{searchTerms}}\"/>\n  <moz:SearchForm>{}search/</moz:SearchForm>\n</OpenSearchDescription>\n",
        xml(&site.config.title.chars().take(16).collect::<String>()),
        xml(&site.config.title),
        xml(&base),
        xml(&base),
        xml(&base),
    )
}

#[derive(Serialize)]
struct EntryJson<'a> {
    slug: &'a str,
    title: &'a str,
    url: String,
    category: &'a str,
    category_title: &'a str,
    severity: &'static str,
    kind: &'static str,
    tags: Vec<&'a str>,
    summary: &'a str,
    signatures: Vec<&'a str>,
    related: Vec<&'a str>,
    updated: Option<String>,
}

/// The lines of entries.json kept from one render to the next (`errata serve`). A line is
/// reused while its place holds the same loaded entry (the same `Arc`: its file is unchanged),
/// the same category title and the same related slugs, which are everything the line shows.
#[derive(Default)]
pub struct JsonLines(Mutex<KeptLines>);

#[derive(Default)]
struct KeptLines {
    lines: Vec<Option<JsonLine>>,
    /// What the lines were made with: every category's key and title, and the related
    /// lists. While the site shares these related lists, every slug in them is as it was.
    categories: Vec<(String, String)>,
    related: Option<Arc<Vec<Vec<usize>>>>,
}

struct JsonLine {
    entry: Arc<crate::load::Entry>,
    related: Vec<String>,
    line: Arc<str>,
}

pub fn entries_json(site: &Site, kept: &JsonLines) -> String {
    use rayon::prelude::*;
    let mut kept = kept.0.lock().unwrap_or_else(PoisonError::into_inner);
    let categories: Vec<(String, String)> = site
        .categories
        .iter()
        .map(|c| (c.key.clone(), c.title.clone()))
        .collect();
    if kept.categories != categories {
        kept.lines.clear();
        kept.categories = categories;
    }
    let same_related = kept
        .related
        .as_ref()
        .is_some_and(|r| Arc::ptr_eq(r, &site.related));
    kept.related = Some(site.related.clone());
    kept.lines.resize_with(site.entries.len(), || None);
    // One entry a line: compact for tools, still a readable diff. Serialised in parallel, and
    // only where the line kept from the last render no longer holds (most often only the
    // pointer to the entry is compared).
    kept.lines.par_iter_mut().enumerate().for_each(|(i, slot)| {
        let holds = |l: &JsonLine| {
            Arc::ptr_eq(&l.entry, &site.entries[i])
                && (same_related
                    || (l.related.len() == site.related[i].len()
                        && l.related
                            .iter()
                            .zip(&site.related[i])
                            .all(|(slug, &j)| site.entries[j].slug.as_str() == slug)))
        };
        if slot.as_ref().is_some_and(holds) {
            return;
        }
        let e = &site.entries[i];
        let related: Vec<&str> = site.related[i]
            .iter()
            .map(|&j| site.entries[j].slug.as_str())
            .collect();
        let entry = EntryJson {
            slug: e.slug.as_str(),
            title: &e.title,
            url: site.entry_url(i),
            category: &e.category,
            category_title: site.category_title(&e.category),
            severity: e.severity.as_str(),
            kind: e.kind.as_str(),
            tags: e.tags.iter().map(|t| t.as_str()).collect(),
            summary: &e.summary_text,
            signatures: e.signatures.iter().map(|s| s.text.as_str()).collect(),
            related: related.clone(),
            updated: e.updated.map(|d| d.to_string()),
        };
        *slot = Some(JsonLine {
            entry: e.clone(),
            related: related.into_iter().map(str::to_owned).collect(),
            line: serde_json::to_string(&entry).unwrap_or_default().into(),
        });
    });
    let kept = &kept.lines;
    let lines = kept.iter().flatten().map(|l| &l.line);
    let mut out = String::with_capacity(
        kept.iter()
            .flatten()
            .map(|l| l.line.len() + 2)
            .sum::<usize>()
            + 64,
    );
    out.push_str("{\"version\":1,\"entries\":[");
    for (k, line) in lines.enumerate() {
        out.push_str(if k == 0 { "\n" } else { ",\n" });
        out.push_str(line);
    }
    out.push_str("\n]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_pushed_as_display_writes_them() {
        for (y, m, d) in [
            (2026, 1, 9),
            (1999, 12, 31),
            (7, 3, 4),
            (0, 1, 1),
            (9999, 12, 31),
            (10000, 1, 1),
            (-5, 6, 7),
        ] {
            let date = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
            let mut out = String::from("x");
            push_date(&mut out, date);
            assert_eq!(out, format!("x{date}"));
        }
    }
}
