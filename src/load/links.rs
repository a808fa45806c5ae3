//! Finding `[text](@/slug)` links in an entry's Markdown body.
//!
//! Takes a body; yields each internal link with its slug, optional `#anchor` and 1-based
//! position in the body. Links inside code are not links and are skipped by the parser.
//! Found when the file loads (and kept by the load cache); the link stage checks the slugs.

use pulldown_cmark::{Event, Parser, Tag};

/// One `@/slug` link found in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
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

pub fn internal_links(body: &str) -> Vec<InternalLink> {
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(body, super::markdown::options()).into_offset_iter() {
        if let Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) = event {
            if let Some((slug, anchor)) = parse_target(&dest_url) {
                let offset = body[range.start..range.end]
                    .find("@/")
                    .map_or(range.start, |o| range.start + o);
                let before = &body[..offset];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
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
}
