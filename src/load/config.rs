//! The site configuration, `errata.yaml`.
//!
//! Takes the file's text; yields a [`Config`] with the site title, base URL, categories (in
//! the order written), the repository used for edit links and the folder of cases whose threads
//! the failure pages show. Unknown keys are refused with a
//! suggestion, like the front matter.

use indexmap::IndexMap;
use serde::Deserialize;

use super::front_matter::ParseFailure;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "default_base_url")]
    pub base_url: String,
    #[serde(default = "default_language")]
    pub language: String,
    /// e.g. `https://github.com/org/errata`; edit links point at `{repository}/edit/{branch}/{file}`.
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default = "default_branch")]
    pub branch: String,
    /// A folder under `themes/` of the site; templates there override the built-in theme.
    #[serde(default = "default_theme")]
    pub theme: String,
    /// Cards on each page of a list (all failures, a category, a tag); more go on
    /// `…/page/2/` and after.
    #[serde(default = "default_paginate_by")]
    pub paginate_by: usize,
    pub categories: IndexMap<String, CategoryConfig>,
    /// A folder of diagnosis cases (e.g. `bench/cases`), relative to the site root: each
    /// failure page shows the public threads among them that report it.
    #[serde(default)]
    pub reports: Option<String>,
    /// What `reports` holds, read by the load stage (not a key of the file).
    #[serde(skip)]
    pub threads: std::sync::Arc<super::reports::Reports>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryConfig {
    pub title: String,
    #[serde(default)]
    pub description: String,
}

const CONFIG_FIELDS: [&str; 10] = [
    "title",
    "description",
    "base_url",
    "language",
    "repository",
    "branch",
    "theme",
    "paginate_by",
    "categories",
    "reports",
];

/// Names a category cannot take, because the site's own pages live there.
pub const RESERVED_PATHS: [&str; 5] = ["tags", "failures", "search", "static", "entries"];

/// `base_url` when errata.yaml sets none: `errata serve`'s address.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:1111/";

fn default_base_url() -> String {
    DEFAULT_BASE_URL.into()
}
fn default_language() -> String {
    "en".into()
}
fn default_branch() -> String {
    "main".into()
}
fn default_theme() -> String {
    "default".into()
}
fn default_paginate_by() -> usize {
    100
}

impl Config {
    pub fn parse(text: &str) -> Result<Config, ParseFailure> {
        let config: Config = serde_yaml_ng::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            let raw = e.to_string();
            let message = raw.split(" at line ").next().unwrap_or(&raw).to_owned();
            let hint = message
                .strip_prefix("unknown field `")
                .and_then(|rest| rest.split('`').next())
                .and_then(|field| crate::diagnostic::did_you_mean(field, CONFIG_FIELDS))
                .map(|s| format!("did you mean `{s}`?"));
            ParseFailure {
                line,
                column,
                message,
                hint,
            }
        })?;
        if config.paginate_by == 0 {
            return Err(ParseFailure {
                line: key_line(text, "paginate_by"),
                column: 1,
                message: "`paginate_by` must be at least 1".into(),
                hint: Some("it is the number of cards on each page of a list (default 100)".into()),
            });
        }
        for (key, value) in [
            ("base_url", Some(config.base_url.as_str())),
            ("repository", config.repository.as_deref()),
        ] {
            if let Some(value) = value.filter(|v| !is_web_url(v)) {
                return Err(ParseFailure {
                    line: key_line(text, key),
                    column: 1,
                    message: format!("`{key}` must be an http(s) URL, not `{value}`"),
                    hint: Some(format!(
                        "it goes into every page's links; write e.g. `{key}: https://example.org/`"
                    )),
                });
            }
        }
        for key in config.categories.keys() {
            let clean = super::types::kebab(key);
            if &clean != key || RESERVED_PATHS.contains(&key.as_str()) {
                let line = text
                    .lines()
                    .position(|l| l.trim_start().starts_with(&format!("{key}:")))
                    .map_or(1, |i| i + 1);
                return Err(ParseFailure {
                    line,
                    column: 1,
                    message: format!("category key `{key}` cannot be used"),
                    hint: Some(if RESERVED_PATHS.contains(&key.as_str()) {
                        format!(
                            "`{key}` is a path of the site itself; reserved: {}",
                            RESERVED_PATHS.join(", ")
                        )
                    } else {
                        format!("category keys are kebab-case, e.g. `{clean}`")
                    }),
                });
            }
        }
        Ok(config)
    }

    /// The base URL with exactly one trailing slash.
    pub fn base_url(&self) -> String {
        format!("{}/", self.base_url.trim_end_matches('/'))
    }
}

/// `http://` or `https://` and a host: what may go into an `href` of every page.
pub fn is_web_url(value: &str) -> bool {
    let lower = value.trim().to_ascii_lowercase();
    ["https://", "http://"].iter().any(|scheme| {
        lower
            .strip_prefix(scheme)
            .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'))
    })
}

/// The 1-based line where the top-level `key` is written, or 1.
pub(super) fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(&format!("{key}:")))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_keeps_category_order() {
        let c = Config::parse("title: t\ncategories:\n  zeta: {title: Z}\n  alpha: {title: A}\n")
            .unwrap();
        assert_eq!(c.categories.keys().collect::<Vec<_>>(), ["zeta", "alpha"]);
        assert_eq!(c.base_url(), "http://127.0.0.1:1111/");
    }

    #[test]
    fn unknown_key_suggests() {
        let e = Config::parse("title: t\nbase_ulr: x\ncategories: {}\n").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean `base_url`?"));
        assert_eq!(e.line, 2);
    }

    #[test]
    fn paginate_by_defaults_and_refuses_zero() {
        let c = Config::parse("title: t\ncategories: {}\n").unwrap();
        assert_eq!(c.paginate_by, 100);
        let c = Config::parse("title: t\npaginate_by: 7\ncategories: {}\n").unwrap();
        assert_eq!(c.paginate_by, 7);
        let e = Config::parse("title: t\npaginate_by: 0\ncategories: {}\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn urls_must_be_http() {
        for (text, line) in [
            (
                "title: t\nbase_url: \"javascript:alert(1)\"\ncategories: {}\n",
                2,
            ),
            (
                "title: t\ncategories: {}\nrepository: \"javascript:alert(1)\"\n",
                3,
            ),
            (
                "title: t\nrepository: //evil.example/x\ncategories: {}\n",
                2,
            ),
            ("title: t\nbase_url: \"https:///x\"\ncategories: {}\n", 2),
        ] {
            let e = Config::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}");
            assert!(e.message.contains("http(s) URL"), "{}", e.message);
        }
        let c = Config::parse(
            "title: t\nbase_url: HTTPS://x.org/\nrepository: https://github.com/o/r\ncategories: {}\n",
        );
        assert!(c.is_ok());
    }

    #[test]
    fn reserved_category() {
        let e = Config::parse("title: t\ncategories:\n  tags: {title: T}\n").unwrap_err();
        assert_eq!(e.line, 3);
    }
}
