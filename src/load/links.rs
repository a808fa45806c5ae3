//! Finding `[text](@/slug)` links, and links with an unsafe scheme, in an entry's body.
//!
//! Takes a body; yields each internal link with its slug, optional `#anchor` and 1-based
//! position in the body, and each link or image whose URL [`safe_url`] refuses (the page drops
//! its href; the author is warned). Links inside code are not links and are skipped by the
//! parser. Found when the file loads (and kept by the load cache); the link stage checks the
//! slugs and reports the unsafe ones.

use pulldown_cmark::{Event, Parser, Tag};

/// One `@/slug` link found in a body.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InternalLink {
    pub slug: String,
    pub anchor: Option<String>,
    /// 1-based, relative to the body's first line.
    pub line: usize,
    pub column: usize,
}

/// Splits `@/slug#anchor` into its parts; `None` for other destinations.
pub fn parse_target(dest: &str) -> Option<(&str, Option<&str>)> {
    let rest = dest.strip_prefix("@/")?;
    let rest = rest.trim_end_matches(".md");
    Some(match rest.split_once('#') {
        Some((slug, anchor)) => (slug.trim_end_matches('/'), Some(anchor)),
        None => (rest.trim_end_matches('/'), None),
    })
}

/// A link or image in a body whose URL's scheme is not allowed: the page drops its href.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnsafeLink {
    pub url: String,
    /// Whether it is an image's source rather than a link's target.
    pub image: bool,
    /// 1-based, relative to the body's first line.
    pub line: usize,
    pub column: usize,
}

impl UnsafeLink {
    /// The scheme as written, e.g. `javascript`, for messages (never the whole URL).
    pub fn scheme(&self) -> String {
        let cleaned: String = self.url.chars().filter(|c| !c.is_control()).collect();
        let scheme = cleaned.trim().split(':').next().unwrap_or_default();
        scheme.chars().take(40).collect()
    }
}

/// 1-based line and column of a byte offset.
fn position(body: &str, offset: usize) -> (usize, usize) {
    let before = &body[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

pub fn internal_links(body: &str) -> Vec<InternalLink> {
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(body, super::markdown::options()).into_offset_iter() {
        if let Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) = event {
            if let Some((slug, anchor)) = parse_target(&dest_url) {
                let offset = body[range.start..range.end]
                    .find("@/")
                    .map_or(range.start, |o| range.start + o);
                let (line, column) = position(body, offset);
                out.push(InternalLink {
                    slug: slug.to_owned(),
                    anchor: anchor.map(str::to_owned),
                    line,
                    column,
                });
            }
        }
    }
    out
}

/// Every link and image of `body` whose URL [`safe_url`] refuses, at the URL.
pub fn unsafe_links(body: &str) -> Vec<UnsafeLink> {
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(body, super::markdown::options()).into_offset_iter() {
        let (dest_url, image) = match event {
            Event::Start(Tag::Link { dest_url, .. }) => (dest_url, false),
            Event::Start(Tag::Image { dest_url, .. }) => (dest_url, true),
            _ => continue,
        };
        if safe_url(&dest_url) || dest_url.starts_with("@/") {
            continue;
        }
        let text = &body[range.start..range.end];
        let offset = text
            .rfind(&*dest_url)
            .map_or(range.start, |o| range.start + o);
        let (line, column) = position(body, offset);
        out.push(UnsafeLink {
            url: dest_url.into_string(),
            image,
            line,
            column,
        });
    }
    out
}

/// True for relative URLs, fragments and the http, https and mailto schemes.
pub fn safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .collect();
    let lower = cleaned.to_ascii_lowercase();
    match lower.find(':') {
        None => true,
        Some(colon) => {
            let before = &lower[..colon];
            if before.contains(['/', '?', '#']) {
                return true;
            }
            matches!(before, "http" | "https" | "mailto")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_outside_code() {
        let body = "See [spikes](@/activation-memory-spike#why).\n\n`[x](@/not-a-link)`\n\n```\n[y](@/nor-this)\n```\n\nand [z](@/other).\n";
        let links = internal_links(body);
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].slug, "activation-memory-spike");
        assert_eq!(links[0].anchor.as_deref(), Some("why"));
        assert_eq!((links[0].line, links[0].column), (1, 14));
        assert_eq!((links[1].slug.as_str(), links[1].line), ("other", 9));
    }

    #[test]
    fn finds_unsafe_links_at_their_url() {
        let body = "Fine [a](https://x.org) [b](#top) [c](@/slug).\n\n`[d](javascript:no)`\n\nBad [e](javascript:alert(1)) and ![f](data:image/png;base64,xx).\n";
        let found = unsafe_links(body);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].line, found[0].column), (5, 9));
        assert_eq!(found[0].scheme(), "javascript");
        assert!(!found[0].image && found[1].image);
        assert_eq!(found[1].scheme(), "data");
    }
}
