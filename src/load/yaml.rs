//! Parsing a split file's front matter, reporting every field's error rather than the first.
//!
//! Takes a [`Split`]; yields its [`RawFrontMatter`], or a [`Rejected`] with one
//! [`ParseFailure`] per bad field, each at its own line and column. serde stops at the first
//! error, so after a field's type error (or an unknown or duplicate key) the lines of that
//! top-level key are blanked and the YAML parsed again, up to [`MAX_FAILURES`] times. A YAML
//! syntax error ends the search: what follows it cannot be trusted.

use super::front_matter::{
    ParseFailure, RawFrontMatter, Split, CUE_FIELDS, FIELDS, SIGNATURE_FIELDS,
};

/// The most errors reported for one file's front matter; each costs a parse of the YAML.
pub const MAX_FAILURES: usize = 20;

/// Why front matter was refused: every failure found, and what parsed once the bad keys were
/// left out, so the other fields can still be checked.
#[derive(Debug, Default)]
pub struct Rejected {
    pub failures: Vec<ParseFailure>,
    /// The front matter without the bad keys, when it then parsed.
    pub rest: Option<RawFrontMatter>,
    /// The file lines (first, last; 1-based) of the keys left out.
    pub skipped: Vec<(usize, usize)>,
}

impl Rejected {
    fn one(failure: ParseFailure) -> Rejected {
        Rejected {
            failures: vec![failure],
            ..Rejected::default()
        }
    }

    /// Whether a 1-based file line lies in a key that was left out.
    pub fn skips(&self, line: usize) -> bool {
        self.skipped.iter().any(|&(a, b)| (a..=b).contains(&line))
    }
}

/// Parses the YAML of a split file. Each error is reported at its own line and column.
pub fn parse(split: &Split) -> Result<RawFrontMatter, Rejected> {
    let yaml = &split.text[split.yaml.clone()];
    let empty = |line| ParseFailure {
        line,
        column: 1,
        message: "front matter is empty".into(),
        hint: Some("required: title, category, severity, summary".into()),
    };
    if yaml.trim().is_empty() {
        return Err(Rejected::one(empty(split.yaml_line.saturating_sub(1))));
    }
    let mut lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let mut rejected = Rejected::default();
    loop {
        let text: String = lines.concat();
        let error = match serde_yaml_ng::from_str::<Option<RawFrontMatter>>(&text) {
            Ok(Some(raw)) if rejected.failures.is_empty() => return Ok(raw),
            Ok(None) if rejected.failures.is_empty() => {
                return Err(Rejected::one(empty(split.yaml_line)))
            }
            Ok(rest) => {
                rejected.rest = rest;
                return Err(rejected);
            }
            Err(e) => e,
        };
        let mut failure = yaml_failure(&error, split.yaml_line);
        let recoverable = is_field_error(&failure.message);
        if let Some(key) = between(&failure.message, "duplicate field `", "`") {
            // serde points at the first occurrence; the mistake is the one after it.
            let first = failure.line - split.yaml_line;
            if let Some((line, column)) = duplicate_of(&lines, first, failure.column, key) {
                (failure.line, failure.column) = (line + split.yaml_line, column);
            }
        }
        let key_lines = recoverable
            .then(|| top_level_range(&lines, failure.line - split.yaml_line))
            .flatten();
        rejected.failures.push(failure);
        let Some((first, last)) = key_lines else {
            return Err(rejected);
        };
        if rejected.failures.len() >= MAX_FAILURES {
            return Err(rejected);
        }
        for line in &mut lines[first..=last] {
            *line = if line.ends_with('\n') { "\n" } else { "" };
        }
        rejected
            .skipped
            .push((first + split.yaml_line, last + split.yaml_line));
    }
}

/// Whether an error is about one field's value or key (not the YAML's syntax), so the rest
/// of the front matter can still be read once that key is left out.
fn is_field_error(message: &str) -> bool {
    if message.contains("limit exceeded") {
        return false;
    }
    let data = [
        "unknown field",
        "duplicate field",
        "invalid type",
        "invalid value",
        "invalid length",
        "unknown variant",
    ];
    data.iter().any(|d| message.starts_with(d))
        || FIELDS.iter().any(|f| {
            message
                .strip_prefix(f)
                .is_some_and(|rest| rest.starts_with([':', '.', '[']))
        })
}

/// The first and last line (0-based, in the YAML) of the top-level key holding `line`.
fn top_level_range(lines: &[&str], line: usize) -> Option<(usize, usize)> {
    let is_key = |l: &str| l.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    let first = (0..=line.min(lines.len().checked_sub(1)?))
        .rev()
        .find(|&i| is_key(lines[i]))?;
    let last = (first + 1..lines.len())
        .find(|&i| is_key(lines[i]))
        .map_or(lines.len() - 1, |next| next - 1);
    Some((first, last))
}

/// The 0-based line and 1-based column of the second `key:` at `column` after line `first`.
fn duplicate_of(lines: &[&str], first: usize, column: usize, key: &str) -> Option<(usize, usize)> {
    let found = lines.iter().enumerate().skip(first + 1).find(|(_, l)| {
        let mut chars = l.char_indices();
        let Some((byte, _)) = chars.nth(column.saturating_sub(1)) else {
            return false;
        };
        let before_is_indent = l[..byte].chars().all(|c| c == ' ' || c == '-');
        let rest = l[byte..].strip_prefix(key).unwrap_or("x");
        before_is_indent && rest.trim_start_matches(' ').starts_with(':')
    });
    found.map(|(i, _)| (i, column))
}

fn yaml_failure(error: &serde_yaml_ng::Error, first_line: usize) -> ParseFailure {
    let (line, column) = error
        .location()
        .map(|l| (l.line() + first_line - 1, l.column()))
        .unwrap_or((first_line, 1));
    let raw = error.to_string();
    // serde_yaml appends " at line N column M"; the position is reported separately.
    let message = match raw.find(" at line ") {
        Some(i) => raw[..i].to_owned(),
        None => raw,
    };
    let failure = |message: String, hint: Option<&str>| ParseFailure {
        line,
        column,
        message,
        hint: hint.map(str::to_owned),
    };
    if let Some(field) = between(&message, "unknown field `", "`") {
        let hint = unknown_field_hint(&message, field);
        return failure(format!("unknown field `{field}`"), Some(&hint));
    }
    if message.contains("repetition limit exceeded") || message.contains("recursion limit exceeded")
    {
        return failure(
            "front matter expands too far (YAML aliases or nesting)".into(),
            Some("front matter needs no anchors or aliases; write the values out"),
        );
    }
    const DATE: &str = "dates are written YYYY-MM-DD, e.g. `updated: 2026-11-29`";
    if message.starts_with("updated")
        || message.contains("premature end of input")
        || message.contains("input contains invalid characters")
    {
        return failure(message, Some(DATE));
    }
    let hint = if message.contains("mapping values are not allowed") {
        Some("a value that contains `: ` must be quoted")
    } else if message.contains("invalid type") {
        Some(type_hint(&message))
    } else {
        None
    };
    failure(message, hint)
}

fn unknown_field_hint(message: &str, field: &str) -> String {
    let candidates: &[&str] = if message.contains("`symptom`") {
        &["symptom", "why"]
    } else if message.contains("`url`") {
        &["title", "url"]
    } else if message.contains("`raised_in`") {
        &SIGNATURE_FIELDS
    } else if message.contains("`frames`") {
        &CUE_FIELDS
    } else {
        &FIELDS
    };
    match crate::diagnostic::did_you_mean(field, candidates.iter().copied()) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("known fields: {}", candidates.join(", ")),
    }
}

/// What a field holds, for a type error whose message starts with the field's name.
fn type_hint(message: &str) -> &'static str {
    let field = message.split([':', '.', '[']).next().unwrap_or_default();
    match field {
        "draft" => "`draft` is `true` or `false`",
        "tags" | "root_causes" | "affects" | "confirm" | "related" => {
            "this field is a list of text: `[a, b]`, or one `- item` per line"
        }
        "signatures" => "`signatures` is a list: `- \"the error text\"`, or `- text: ...` items",
        "symptoms" => "`symptoms` is a list of `- symptom: ...` and `why: ...` items",
        "references" => "`references` is a list of `- title: ...` and `url: ...` items",
        "cues" => "`cues` is a mapping with `frames:`, `lines:` or `findings:` lists",
        "title" | "slug" | "category" | "severity" | "kind" | "summary" | "fingerprint" | "fix" => {
            "this field is text; put it in quotes if YAML reads it as something else"
        }
        _ => "check the field's type: text, a list `[a, b]`, or a list of `key: value` items",
    }
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}
