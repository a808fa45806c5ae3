//! Syntax highlighting of code blocks at build time, so pages need no highlighting script.
//!
//! Takes a code block's language token and text, and what is left of its page's [`Budget`];
//! yields HTML with one `<span>` per run of tokens of one colour, its class one of
//! [`palette`]'s short classes, highlighted while the budget lasts and up to a line longer
//! than [`LONG_LINE`], escaped plain text from there. The stylesheet for those classes, light
//! and dark, comes from [`palette::stylesheet`]. The syntax
//! set is loaded once per process and shared by all threads; each distinct block is
//! highlighted once and then served from a cache, and so is each line parsed in a given
//! parser state (`import torch`, `}`, `export NCCL_DEBUG=INFO` recur across
//! entries; syntect's regex matching was most of a build's time).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use syntect::parsing::{ParseState, ScopeStack, ScopeStackOp, SyntaxSet};
use syntect::util::LinesWithEndings;

use super::palette::{self, CLASSES};

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn cache() -> &'static Mutex<HashMap<(String, String), Block>> {
    static CACHE: OnceLock<Mutex<HashMap<(String, String), Block>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Blocks the block cache keeps, and lines each thread's line cache keeps; past that a
/// cache is emptied and starts again, so a site of unique code does not hold all of it.
const BLOCK_LIMIT: usize = 4_096;
const LINE_LIMIT: usize = 20_000;

/// A line's parse: the parser state it starts in, the scope operations, the state after.
type ParsedLine = (
    ParseState,
    std::rc::Rc<Vec<(usize, ScopeStackOp)>>,
    ParseState,
);
type LineCache = (usize, HashMap<(String, String), Vec<ParsedLine>>);

thread_local! {
    // Per thread: a parser state holds the regex engine's match regions, which are not Send.
    static LINES: std::cell::RefCell<LineCache> = Default::default();
}

/// `line` parsed from `state` (which it advances), from the cache when this syntax has seen
/// the line in the same state before.
fn parse_line(
    syntax: &str,
    state: &mut ParseState,
    line: &str,
    set: &SyntaxSet,
) -> Option<std::rc::Rc<Vec<(usize, ScopeStackOp)>>> {
    let key = (syntax.to_owned(), line.to_owned());
    let hit = LINES.with_borrow(|(_, lines)| {
        let (_, ops, after) = lines
            .get(&key)?
            .iter()
            .find(|(before, _, _)| before == state)?;
        Some((ops.clone(), after.clone()))
    });
    if let Some((ops, after)) = hit {
        *state = after;
        return Some(ops);
    }
    let before = state.clone();
    let ops = std::rc::Rc::new(state.parse_line(line, set).ok()?);
    LINES.with_borrow_mut(|(count, lines)| {
        if *count >= LINE_LIMIT {
            lines.clear();
            *count = 0;
        }
        *count += 1;
        lines
            .entry(key)
            .or_default()
            .push((before, ops.clone(), state.clone()));
    });
    Some(ops)
}

/// Common names people give fences that syntect knows by another token.
fn token(lang: &str) -> &str {
    match lang {
        "shell" | "console" | "sh" | "zsh" => "bash",
        "py" | "python3" | "pycon" => "python",
        "yml" => "yaml",
        "jsonc" => "json",
        "c++" | "cuda" => "cpp",
        other => other,
    }
}

/// Highlighted HTML one page may grow to, shared by all its code blocks; past it, blocks are
/// shown plain. Highlighting at most about doubles a block, but a 6 MB block, or 2,000 blocks
/// of 4 KB, would still make pages of many megabytes that no reader scrolls; a real page's
/// code highlights to a few tens of kilobytes and stays whole.
pub const PAGE_BUDGET: usize = 1024 * 1024;

/// The longest line highlighted: at a longer one (a minified file, a pasted one-line log) the
/// rest of its block is shown plain, since syntect's time on one line can grow with its square.
pub const LONG_LINE: usize = 4096;

/// What is left of one page's highlighting budget ([`PAGE_BUDGET`]), used up by each block's
/// highlighted HTML.
#[derive(Debug)]
pub struct Budget(std::cell::Cell<usize>);

impl Default for Budget {
    fn default() -> Budget {
        Budget(std::cell::Cell::new(PAGE_BUDGET))
    }
}

/// A block's `<pre>` element, and how much of it is highlighted HTML (what a page's budget
/// pays for).
type Block = (String, usize);

/// The whole `<pre>` element for one code block, highlighted while `budget` lasts.
pub fn code_block(lang: &str, code: &str, budget: &Budget) -> String {
    let lang = lang
        .split([' ', ',', '{'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let left = budget.0.get();
    let key = (lang, code.to_owned());
    let hit = cache().lock().ok().and_then(|c| c.get(&key).cloned());
    let (html, spent) = match hit {
        Some((html, spent)) if spent <= left => (html, spent),
        _ => {
            let (lang, code) = &key;
            let (block, whole) = render_block(lang, code, left);
            // Only a block the budget did not cut looks the same on every page.
            if whole {
                if let Ok(mut c) = cache().lock() {
                    if c.len() >= BLOCK_LIMIT {
                        c.clear();
                    }
                    c.insert(key, block.clone());
                }
            }
            block
        }
    };
    budget.0.set(left - spent.min(left));
    html
}

/// [`code_block`] without the cache: the block, and whether `limit` left it as it is without
/// one.
fn render_block(lang: &str, code: &str, limit: usize) -> (Block, bool) {
    let (inner, spent, whole) = match highlight(lang, code, limit) {
        Some((html, spent, whole)) => (html, spent, whole),
        None => (escape(code), 0, true),
    };
    let lang_attr = if lang.is_empty() {
        String::new()
    } else {
        format!(" data-lang=\"{}\"", escape(lang))
    };
    let html = format!("<pre class=\"highlight\"{lang_attr}><code>{inner}</code></pre>\n");
    ((html, spent), whole)
}

/// The block's HTML, highlighted line by line until its highlighted HTML reaches `limit` or a
/// line is longer than [`LONG_LINE`], and escaped from there; with the highlighted part's size
/// and whether `limit` did not stop it. `None` for a language not highlighted.
fn highlight(lang: &str, code: &str, limit: usize) -> Option<(String, usize, bool)> {
    if lang.is_empty() || lang == "text" || lang == "txt" || lang == "log" {
        return None;
    }
    let set = syntaxes();
    let syntax = set.find_syntax_by_token(token(lang))?;
    let mut state = ParseState::new(syntax);
    let mut runs = Runs {
        html: String::with_capacity((code.len() * 2).min(limit + LONG_LINE * 2)),
        ..Runs::default()
    };
    let mut done = 0;
    let mut whole = true;
    for line in LinesWithEndings::from(code) {
        if runs.html.len() >= limit {
            whole = false;
            break;
        }
        if line.len() > LONG_LINE {
            break;
        }
        let ops = parse_line(&syntax.name, &mut state, line, set)?;
        runs.line(line, &ops)?;
        done += line.len();
    }
    runs.close();
    let mut html = runs.html;
    let spent = html.len();
    html.push_str(&escape(&code[done..]));
    Some((html, spent, whole))
}

/// Highlighted HTML being written: the scopes open at the end of what is written, the class
/// of the span left open, and white space after it not yet written, so that a run of tokens
/// of one class, spaces between them included, is one span.
#[derive(Default)]
struct Runs {
    html: String,
    scopes: ScopeStack,
    open: usize,
    space: String,
}

impl Runs {
    /// One line with its scope operations (byte offsets into it).
    fn line(&mut self, line: &str, ops: &[(usize, ScopeStackOp)]) -> Option<()> {
        let mut at = 0;
        for (i, op) in ops {
            self.text(&line[at..*i]);
            at = *i;
            self.scopes.apply(op).ok()?;
        }
        self.text(&line[at..]);
        Some(())
    }

    /// Text under the current scopes; the white space around it stays out of a new span.
    fn text(&mut self, text: &str) {
        let body = text.trim();
        if body.is_empty() {
            self.space(text);
            return;
        }
        let start = text.len() - text.trim_start().len();
        let class = palette::class_of(self.scopes.as_slice());
        if class == self.open {
            self.space(&text[..start]);
            let space = std::mem::take(&mut self.space);
            self.html.push_str(&space);
        } else {
            self.close();
            self.html.push_str(&text[..start]);
            if class != 0 {
                self.html.push_str("<span class=");
                self.html.push_str(CLASSES[class].name);
                self.html.push('>');
                self.open = class;
            }
        }
        push_escaped(&mut self.html, body);
        self.space(&text[start + body.len()..]);
    }

    /// White space, which shows no colour: after an open span it waits, to join the span if
    /// the next text does.
    fn space(&mut self, text: &str) {
        if self.open == 0 {
            self.html.push_str(text);
        } else {
            self.space.push_str(text);
        }
    }

    /// Ends the open span, and writes the white space after it.
    fn close(&mut self) {
        if self.open != 0 {
            self.html.push_str("</span>");
            self.open = 0;
        }
        let space = std::mem::take(&mut self.space);
        self.html.push_str(&space);
    }
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    push_escaped(&mut out, s);
    out
}

/// Appends `s` to `out` with `&<>"'` escaped.
fn push_escaped(out: &mut String, s: &str) {
    // Copies the runs between special characters whole: Tera calls this on every string an
    // expression yields (an `{% if %}` on a page's HTML included), so it is a hot path.
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line seen before in another parser state (code, then inside a string) is not
    /// given the other state's parse: each block highlights as it would on a fresh thread.
    #[test]
    fn a_cached_line_is_used_only_in_the_state_it_was_parsed_in() {
        let code = "x = 1\n";
        let in_string = "s = \"\"\"\nx = 1\n\"\"\"\n";
        let fresh = |c: &'static str| {
            std::thread::spawn(move || highlight("python", c, PAGE_BUDGET))
                .join()
                .unwrap()
        };
        let (alone_code, alone_string) = (fresh(code), fresh(in_string));
        // On one thread, each after the other has filled the cache with the shared line.
        let (a, b) = std::thread::spawn(move || {
            (
                highlight("python", code, PAGE_BUDGET),
                highlight("python", in_string, PAGE_BUDGET),
            )
        })
        .join()
        .unwrap();
        let (c, d) = std::thread::spawn(move || {
            (
                highlight("python", in_string, PAGE_BUDGET),
                highlight("python", code, PAGE_BUDGET),
            )
        })
        .join()
        .unwrap();
        assert_eq!(a, alone_code);
        assert_eq!(b, alone_string);
        assert_eq!(c, alone_string);
        assert_eq!(d, alone_code);
        assert_ne!(alone_code, alone_string);
        assert!(alone_string.unwrap().0.contains("<span class=s>"));
    }

    #[test]
    fn escapes_the_five_characters_and_keeps_the_rest() {
        assert_eq!(escape("a<b>&\"c'é—<"), "a&lt;b&gt;&amp;&quot;c&#39;é—&lt;");
        assert_eq!(escape(""), "");
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
    }

    #[test]
    fn python_gets_classes() {
        let html = code_block(
            "python",
            "import torch\nx = torch.zeros(1)\n",
            &Budget::default(),
        );
        assert!(
            html.starts_with("<pre class=\"highlight\" data-lang=\"python\"><code>"),
            "{html}"
        );
        assert!(html.contains("<span class=k>import</span>"), "{html}");
        assert!(!html.contains("<script"));
    }

    #[test]
    fn a_huge_block_is_highlighted_up_to_a_budget_then_plain() {
        let line = "x = {'a': [1, 2.5, None], \"b\": f(y) + g[0] * 3}  # c < d\n";
        let code = line.repeat(6_000_000 / line.len());
        let html = code_block("python", &code, &Budget::default());
        assert!(
            html.len() < 3 * code.len(),
            "{} bytes of HTML for {} of code",
            html.len(),
            code.len()
        );
        assert!(
            html.starts_with(
                "<pre class=\"highlight\" data-lang=\"python\"><code>x = {<span class="
            ),
            "{}",
            &html[..200]
        );
        assert!(
            html.ends_with("# c &lt; d\n</code></pre>\n"),
            "the tail is kept, escaped"
        );
        assert_eq!(
            html.matches("<span").count(),
            html.matches("</span>").count()
        );
        // Every byte of the code is there: tags out and entities back give the code again.
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.trim_end_matches('\n').chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        let text = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        let first_difference = text.bytes().zip(code.bytes()).position(|(a, b)| a != b);
        assert_eq!(
            first_difference,
            None,
            "{:?}",
            &text[first_difference.unwrap_or(0)..][..80.min(text.len())]
        );
        assert_eq!(text.len(), code.len());
    }

    /// Tags out and entities back: the text a block's HTML shows.
    fn shown_text(html: &str) -> String {
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn the_blocks_of_a_page_share_one_budget() {
        let block = "x = {'a': [1, 2.5, None], \"b\": f(y) + g[0] * 3}  # c < d\n".repeat(60);
        let budget = Budget::default();
        let blocks: Vec<String> = (0..2_000)
            .map(|_| code_block("python", &block, &budget))
            .collect();
        let total: usize = blocks.iter().map(String::len).sum();
        assert!(
            total < 3 * block.len() * blocks.len(),
            "{total} bytes of HTML for {} of code",
            block.len() * blocks.len()
        );
        assert!(
            blocks[0].contains("<span"),
            "the first block is highlighted"
        );
        let last = blocks.last().unwrap();
        assert!(!last.contains("<span"), "past the budget, blocks are plain");
        assert!(last.starts_with("<pre class=\"highlight\" data-lang=\"python\"><code>x = "));
        assert_eq!(shown_text(last).trim_end(), block.trim_end());
        // The same block on a page of its own is highlighted again (the cache does not lend
        // a page another page's budget, nor the other way round).
        assert_eq!(code_block("python", &block, &Budget::default()), blocks[0]);
    }

    #[test]
    fn a_line_too_long_to_highlight_is_plain() {
        let line = "x = [1, 'a', None] + ".repeat(2_000_000 / 21);
        let code = format!("import os\n{line}\nprint(x)\n");
        let html = code_block("python", &code, &Budget::default());
        let (head, tail) = html
            .split_once(&escape(&line[..40]))
            .expect("the line is shown");
        assert!(
            head.contains("<span"),
            "the lines before it are highlighted"
        );
        assert!(
            !tail.contains("<span"),
            "the long line and what follows are plain"
        );
        assert_eq!(shown_text(&html).trim_end(), code.trim_end());
    }

    /// The fenced code blocks of the project's own entries, with their language.
    fn content_blocks() -> Vec<(String, String)> {
        let mut out = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content");
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let mut parts = text.split("\n```");
                    parts.next();
                    while let (Some(open), Some(_)) = (parts.next(), parts.next()) {
                        if let Some((lang, code)) = open.split_once('\n') {
                            out.push((lang.trim().to_owned(), format!("{code}\n")));
                        }
                    }
                }
            }
        }
        out
    }

    /// The entries' code, highlighted: one span per run of one class, never nested, and at
    /// most 2.5 times the bytes of the code it shows, in every language the entries use.
    #[test]
    fn highlighting_the_entries_code_costs_at_most_two_and_a_half_times_its_bytes() {
        let blocks = content_blocks();
        let mut by_lang: HashMap<String, (usize, usize)> = HashMap::new();
        for (lang, code) in &blocks {
            let Some((html, _, _)) = highlight(lang, code, PAGE_BUDGET) else {
                continue;
            };
            assert!(!html.contains("<span class=>"), "{html}");
            let mut depth = 0;
            for piece in html.split('<').skip(1) {
                if piece.starts_with("span") {
                    depth += 1;
                    assert_eq!(depth, 1, "a span inside a span: {html}");
                } else if piece.starts_with("/span") {
                    depth -= 1;
                }
            }
            assert_eq!(shown_text(&html), *code);
            if std::env::var_os("ERRATA_SHOW_HIGHLIGHT").is_some() {
                eprintln!("{lang}:\n{html}");
            }
            let sum = by_lang.entry(lang.clone()).or_default();
            sum.0 += html.len();
            sum.1 += escape(code).len();
        }
        assert!(by_lang.len() >= 3, "{by_lang:?}");
        for (lang, (html, code)) in &by_lang {
            assert!(
                *html as f64 <= 2.5 * *code as f64,
                "{lang}: {html} bytes of HTML for {code} of code"
            );
        }
    }

    #[test]
    fn unknown_language_is_escaped_text() {
        let html = code_block("nope", "<script>alert(1)</script>", &Budget::default());
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn dark_rules_are_scoped() {
        let css = palette::stylesheet();
        assert!(
            css.contains("html[data-theme=\"dark\"] pre.highlight .k"),
            "{}",
            &css[..500.min(css.len())]
        );
    }
}
