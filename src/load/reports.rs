//! Reports: the public threads where readers hit each failure.
//!
//! Takes the folder that `reports:` in `errata.yaml` names (the diagnosis cases of
//! `bench/cases`: one `*.case` file per public thread, and a `classes.json` that maps each
//! case's class to the entries that explain it); yields [`Reports`], each entry's threads in
//! file order. Only a case's header is read (`url:`, `class:`, `title:`, up to the `---` line),
//! never its log. The build stays offline: the threads are not fetched.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::diagnostic::Problem;

/// A public thread that reports a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Thread {
    pub url: String,
    /// The case's one-line title, in the site's own words.
    pub title: String,
    /// `owner/name` of the repository the thread is in, when the URL is GitHub's.
    pub repository: Option<String>,
}

/// The reported threads of each entry, by slug.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reports {
    by_entry: BTreeMap<String, Vec<Thread>>,
}

impl Reports {
    /// The threads that report the entry `slug`, in the order of their files.
    pub fn of(&self, slug: &str) -> &[Thread] {
        self.by_entry.get(slug).map_or(&[], Vec::as_slice)
    }

    /// Every slug that the cases name, for the check that each is an entry.
    pub fn slugs(&self) -> impl Iterator<Item = &str> {
        self.by_entry.keys().map(String::as_str)
    }
}

/// Reads the cases of `dir` (shown in problems as `shown`); a case or class file that cannot
/// be read is a problem at its line, and the rest are still read.
pub fn read_reports(dir: &Path, shown: &str) -> (Reports, Vec<Problem>) {
    let mut problems = Vec::new();
    let classes = match read_classes(dir, shown) {
        Ok(classes) => classes,
        Err(problem) => return (Reports::default(), vec![problem]),
    };
    let mut files: Vec<_> = match std::fs::read_dir(dir) {
        Ok(read) => read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "case"))
            .collect(),
        Err(e) => {
            let problem = Problem::error(shown, 1, 1, format!("cannot read the folder: {e}"));
            return (Reports::default(), vec![problem]);
        }
    };
    files.sort();
    let mut reports = Reports::default();
    for path in files {
        let name = format!(
            "{shown}/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        match read_case(&path, &name, &classes) {
            Ok(Some((slugs, thread))) => {
                for slug in slugs {
                    reports
                        .by_entry
                        .entry(slug.clone())
                        .or_default()
                        .push(thread.clone());
                }
            }
            Ok(None) => {}
            Err(problem) => problems.push(problem),
        }
    }
    (reports, problems)
}

/// `classes.json`: each class with the slugs of the entries that explain it (keys that start
/// with `_` are notes).
fn read_classes(dir: &Path, shown: &str) -> Result<BTreeMap<String, Vec<String>>, Problem> {
    let path = dir.join("classes.json");
    let name = format!("{shown}/classes.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Problem::error(&name, 1, 1, format!("cannot read it: {e}")).with_hint(
            "the reports folder holds `classes.json`: each class with the entries that explain it",
        )
    })?;
    let value: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| Problem::error(&name, e.line(), e.column(), e.to_string()))?;
    let mut classes = BTreeMap::new();
    for (class, slugs) in value {
        if class.starts_with('_') {
            continue;
        }
        let slugs: Vec<String> = serde_json::from_value(slugs).map_err(|_| {
            let line = line_of(&text, &format!("\"{class}\""));
            Problem::error(
                &name,
                line,
                1,
                format!("class `{class}` is not a list of slugs"),
            )
            .with_hint("write `\"class\": [\"entry-slug\", ...]`")
        })?;
        classes.insert(class, slugs);
    }
    Ok(classes)
}

/// One case's header: the entries its class names and its thread, or `None` for a case no
/// entry explains (class `none`).
fn read_case(
    path: &Path,
    name: &str,
    classes: &BTreeMap<String, Vec<String>>,
) -> Result<Option<(Vec<String>, Thread)>, Problem> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Problem::error(name, 1, 1, format!("cannot read it: {e}")))?;
    let mut fields: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (number, line) in text.lines().enumerate().take_while(|(_, l)| *l != "---") {
        if let Some((key, value)) = line.split_once(':') {
            fields.insert(key.trim(), (number + 1, value.trim()));
        }
    }
    let field = |key: &str| {
        fields
            .get(key)
            .map(|&(_, v)| v)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                Problem::error(name, 0, 0, format!("the case has no `{key}:`")).with_hint(
                    "a case starts with `url:`, `class:`, `difficulty:` and `title:`, then `---`",
                )
            })
    };
    let (url, class, title) = (field("url")?, field("class")?, field("title")?);
    if class == "none" {
        return Ok(None);
    }
    let Some(slugs) = classes.get(class) else {
        let line = fields.get("class").map_or(1, |&(l, _)| l);
        return Err(Problem::error(
            name,
            line,
            8,
            format!("class `{class}` is not in classes.json"),
        )
        .with_hint("add it to classes.json with the entries that explain it"));
    };
    let thread = Thread {
        url: url.to_owned(),
        title: title.to_owned(),
        repository: github_repository(url),
    };
    Ok(Some((slugs.clone(), thread)))
}

/// `owner/name` of a `https://github.com/owner/name/...` URL.
fn github_repository(url: &str) -> Option<String> {
    let rest = url.strip_prefix("https://github.com/")?;
    let mut parts = rest.split('/');
    let (owner, name) = (parts.next()?, parts.next()?);
    (!owner.is_empty() && !name.is_empty()).then(|| format!("{owner}/{name}"))
}

/// The 1-based line of the first line holding `needle`, or 1.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    const CLASSES: &str = r#"{"_doc": "x", "oom": ["cuda-oom", "spike"], "nan": ["nan-loss"]}"#;

    fn case(url: &str, class: &str) -> String {
        format!("url: {url}\nclass: {class}\ndifficulty: easy\ntitle: T {url}\n---\nclass: nan\n")
    }

    #[test]
    fn threads_by_entry_in_file_order_and_none_skipped() {
        let dir = folder(&[
            ("classes.json", CLASSES),
            ("b.case", &case("https://github.com/o/r/issues/2", "oom")),
            ("a.case", &case("https://github.com/o/r/issues/1", "oom")),
            ("c.case", &case("https://github.com/p/q/issues/3", "none")),
            ("notes.md", "not a case"),
        ]);
        let (reports, problems) = read_reports(dir.path(), "cases");
        assert!(problems.is_empty(), "{problems:?}");
        let urls: Vec<_> = reports.of("spike").iter().map(|t| t.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://github.com/o/r/issues/1",
                "https://github.com/o/r/issues/2"
            ]
        );
        assert_eq!(reports.of("cuda-oom")[0].repository.as_deref(), Some("o/r"));
        // The log's own `class: nan` line is not read as the header's.
        assert!(reports.of("nan-loss").is_empty());
        assert_eq!(reports.slugs().collect::<Vec<_>>(), ["cuda-oom", "spike"]);
    }

    #[test]
    fn a_bad_case_is_a_problem_at_its_line_and_the_rest_are_read() {
        let dir = folder(&[
            ("classes.json", CLASSES),
            ("a.case", &case("https://github.com/o/r/issues/1", "oops")),
            (
                "b.case",
                "url: https://github.com/o/r/issues/2\nclass: oom\n---\n",
            ),
            ("c.case", &case("https://example.org/t/3", "nan")),
        ]);
        let (reports, problems) = read_reports(dir.path(), "cases");
        let messages: Vec<_> = problems
            .iter()
            .map(|p| (p.file.to_str().unwrap(), p.line, p.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                ("cases/a.case", 2, "class `oops` is not in classes.json"),
                ("cases/b.case", 0, "the case has no `title:`"),
            ]
        );
        assert_eq!(reports.of("nan-loss")[0].repository, None);
    }

    #[test]
    fn missing_or_malformed_classes_is_one_problem() {
        let dir = folder(&[("a.case", &case("https://github.com/o/r/issues/1", "oom"))]);
        let (reports, problems) = read_reports(dir.path(), "cases");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].file, std::path::Path::new("cases/classes.json"));
        assert_eq!(reports, Reports::default());
        let dir = folder(&[("classes.json", "{\n  \"oom\": \"cuda-oom\"\n}")]);
        let (_, problems) = read_reports(dir.path(), "cases");
        assert_eq!(problems[0].line, 2);
        assert!(problems[0].message.contains("not a list"), "{problems:?}");
    }
}
