//! Checked values of the front matter: [`Slug`], [`Tag`], [`Severity`], [`Kind`].
//!
//! Each is built from a raw string with `parse` and can only hold a valid value, so later
//! stages never re-check them. Rejections carry a short reason for the problem message.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An entry's URL name: lowercase letters, digits and single dashes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct Slug(String);

impl TryFrom<String> for Slug {
    type Error = String;
    /// Read back (from the build cache) only as a valid slug.
    fn try_from(raw: String) -> Result<Slug, String> {
        Slug::parse(&raw)
    }
}

impl Slug {
    /// Accepts only an already-clean slug (`cuda-oom`); explicit `slug:` values go through here.
    pub fn parse(raw: &str) -> Result<Slug, String> {
        if raw.is_empty() {
            return Err("a slug cannot be empty".into());
        }
        if raw == "page" {
            return Err(
                "slug `page` is where a list's later pages go (`memory/page/2/`); choose another"
                    .into(),
            );
        }
        if raw.contains("..") || raw.contains('/') || raw.contains('\\') {
            return Err(format!("slug `{raw}` may not contain `..`, `/` or `\\`"));
        }
        let ok = raw
            .chars()
            .all(|c| (c.is_alphanumeric() && !c.is_uppercase()) || c == '-')
            && !raw.starts_with('-')
            && !raw.ends_with('-')
            && !raw.contains("--");
        if ok {
            Ok(Slug(raw.to_owned()))
        } else if kebab(raw).is_empty() {
            Err(format!(
                "slug `{raw}` has no letters or digits; write one such as `cuda-oom-batch-size`"
            ))
        } else {
            Err(format!(
                "slug `{raw}` must be lowercase letters, digits and single dashes (try `{}`)",
                kebab(raw)
            ))
        }
    }

    /// The default slug of a file stem: `CUDA OOM` becomes `cuda-oom`.
    pub fn from_stem(stem: &str) -> Result<Slug, String> {
        Slug::parse(&kebab(stem))
            .map_err(|_| format!("file name `{stem}` gives no usable slug; set `slug:`"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A normalised tag: `Activation Memory`, `activation_memory` and `activation-memory` are one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct Tag(String);

impl TryFrom<String> for Tag {
    type Error = String;
    /// Read back (from the build cache) only as a tag already in its normal form.
    fn try_from(raw: String) -> Result<Tag, String> {
        Tag::parse(&raw).and_then(|tag| {
            (tag.0 == raw)
                .then_some(tag)
                .ok_or_else(|| format!("tag `{raw}` is not in its normal form"))
        })
    }
}

impl Tag {
    pub fn parse(raw: &str) -> Result<Tag, String> {
        let tag = kebab(raw);
        if tag.is_empty() {
            return Err(format!("tag `{raw}` has no letters or digits"));
        }
        if tag.len() > 64 {
            return Err(format!("tag `{raw}` is longer than 64 characters"));
        }
        Ok(Tag(tag))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Lowercase kebab-case: letters and digits kept (Unicode letters lowercased), everything else
/// a single dash, camelCase split, no dash at either end.
pub fn kebab(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut prev_lower = false;
    for c in raw.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !out.ends_with('-') {
                out.push('-');
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            out.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// How bad a failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const NAMES: [&'static str; 4] = ["low", "medium", "high", "critical"];

    pub fn parse(raw: &str) -> Option<Severity> {
        match raw {
            "low" => Some(Severity::Low),
            "medium" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            "critical" => Some(Severity::Critical),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Severity::NAMES[self as usize]
    }
}

/// A failure entry explains an error; a guide teaches a tool and has no signatures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Failure,
    Guide,
}

impl Kind {
    pub const NAMES: [&'static str; 2] = ["failure", "guide"];

    pub fn parse(raw: &str) -> Option<Kind> {
        match raw {
            "failure" => Some(Kind::Failure),
            "guide" => Some(Kind::Guide),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Kind::NAMES[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_normalise_to_one() {
        for raw in [
            "Activation Memory",
            "activation_memory",
            "activation-memory",
            " activationMemory ",
        ] {
            assert_eq!(
                Tag::parse(raw).unwrap().as_str(),
                "activation-memory",
                "{raw}"
            );
        }
        assert!(Tag::parse("--").is_err());
    }

    #[test]
    fn slugs() {
        assert_eq!(Slug::parse("cuda-oom").unwrap().as_str(), "cuda-oom");
        assert!(Slug::parse("Cuda").is_err());
        assert!(Slug::parse("../etc").is_err());
        assert!(Slug::parse("a--b").is_err());
        let dot = Slug::parse(".").unwrap_err();
        assert!(
            dot.contains("no letters or digits") && dot.contains("`cuda-"),
            "{dot}"
        );
        assert_eq!(
            Slug::from_stem("CUDA OOM (v2)").unwrap().as_str(),
            "cuda-oom-v2"
        );
        assert!(Slug::from_stem("...").is_err());
        assert_eq!(
            Slug::from_stem("Fehler über Speicher").unwrap().as_str(),
            "fehler-über-speicher"
        );
    }

    #[test]
    fn kebab_keeps_unicode_letters() {
        assert_eq!(kebab("Fehler über Speicher"), "fehler-über-speicher");
    }
}
