//! The theme: templates and static files, the built-in default overlaid by the site's own.
//!
//! Takes the site's theme folder, if any; yields every template's text and every static
//! file's bytes, keyed by their path inside the theme. The default theme is compiled into the
//! binary, so an installed `errata` builds any site alone. A site file with the same name as
//! a default one replaces it.
//!
//! The files of the theme's `scripts/` folder are joined, in the order of their names, into
//! one static file, `errata.js`: a page loads the theme's script in one request and one tag,
//! while its parts stay small files a site can replace one at a time.

use std::collections::BTreeMap;
use std::path::Path;

use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "themes/default/"]
#[exclude = "*.swp"]
#[exclude = "screenshot.png"]
struct DefaultTheme;

#[derive(Debug, Clone, Default)]
pub struct ThemeFiles {
    /// `entry.html` -> its text.
    pub templates: BTreeMap<String, String>,
    /// `style.css` -> its bytes (paths under `static/`), with the joined scripts.
    pub statics: BTreeMap<String, Vec<u8>>,
}

/// The static file the theme's `scripts/` are joined into; it replaces a static file of the
/// same name.
const SCRIPTS_JOINED: &str = "errata.js";

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("cannot read theme file {path}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("theme template {name} is not UTF-8")]
    NotUtf8 { name: String },
}

pub fn load_theme(site_theme: Option<&Path>) -> Result<ThemeFiles, ThemeError> {
    let mut files = ThemeFiles::default();
    let mut scripts = BTreeMap::new();
    for path in DefaultTheme::iter() {
        if let Some(file) = DefaultTheme::get(&path) {
            add(&mut files, &mut scripts, &path, file.data.into_owned())?;
        }
    }
    if let Some(dir) = site_theme {
        for item in walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            if !item.file_type().is_file() || item.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let rel = super::display_path(dir, item.path())
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(item.path()).map_err(|source| ThemeError::Io {
                path: item.path().to_owned(),
                source,
            })?;
            add(&mut files, &mut scripts, &rel, bytes)?;
        }
    }
    if !scripts.is_empty() {
        files
            .statics
            .insert(SCRIPTS_JOINED.to_owned(), join_scripts(&scripts));
    }
    Ok(files)
}

impl ThemeFiles {
    /// Whether template `name` is the default theme's own: no site file replaced it.
    pub fn is_default_template(&self, name: &str) -> bool {
        let default = DefaultTheme::get(&format!("templates/{name}"));
        match (self.templates.get(name), default) {
            (Some(text), Some(file)) => text.as_bytes() == &*file.data,
            _ => false,
        }
    }
}

/// The scripts one after another, each ending in a line break; each is a self-contained
/// function call (`(function () { ... })();`), so the join needs no separator of its own.
fn join_scripts(scripts: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut joined = Vec::with_capacity(scripts.values().map(|s| s.len() + 1).sum());
    for bytes in scripts.values() {
        joined.extend_from_slice(bytes);
        if !bytes.ends_with(b"\n") {
            joined.push(b'\n');
        }
    }
    joined
}

fn add(
    files: &mut ThemeFiles,
    scripts: &mut BTreeMap<String, Vec<u8>>,
    path: &str,
    bytes: Vec<u8>,
) -> Result<(), ThemeError> {
    if let Some(name) = path.strip_prefix("templates/") {
        let text = String::from_utf8(bytes).map_err(|_| ThemeError::NotUtf8 {
            name: name.to_owned(),
        })?;
        files.templates.insert(name.to_owned(), text);
    } else if let Some(name) = path.strip_prefix("static/") {
        files.statics.insert(name.to_owned(), bytes);
    } else if let Some(name) = path.strip_prefix("scripts/") {
        if name.ends_with(".js") {
            scripts.insert(name.to_owned(), bytes);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(files: &ThemeFiles) -> String {
        String::from_utf8(files.statics[SCRIPTS_JOINED].clone()).unwrap()
    }

    #[test]
    fn a_replaced_template_is_not_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("templates")).unwrap();
        std::fs::write(dir.path().join("templates/entry.html"), "{{ entry.title }}").unwrap();
        let files = load_theme(Some(dir.path())).unwrap();
        assert!(!files.is_default_template("entry.html"));
        assert!(files.is_default_template("base.html"));
        assert!(!files.is_default_template("no-such.html"));
        assert!(load_theme(None).unwrap().is_default_template("entry.html"));
    }

    #[test]
    fn the_default_scripts_are_joined_core_first_and_start_last() {
        let files = load_theme(None).unwrap();
        let js = joined(&files);
        let parts = DefaultTheme::iter()
            .filter(|p| p.starts_with("scripts/"))
            .count();
        assert_eq!(parts, 7);
        let core = js
            .find("window.errata = {")
            .expect("the core part is joined");
        let start = js.find("part 7 of 7").expect("the starting part is joined");
        assert!(core < start && js.starts_with("/* errata default theme, part 1 of 7"));
        let alone = |k: &String| k.starts_with("errata-") && k.ends_with(".js");
        assert!(!files.statics.keys().any(alone), "no part is served alone");
    }

    #[test]
    fn a_site_replaces_one_part_and_adds_another_in_name_order() {
        let tmp = tempfile::tempdir().unwrap();
        let scripts = tmp.path().join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        std::fs::write(scripts.join("errata-site.js"), "/* the site's own */").unwrap();
        std::fs::write(scripts.join("zz-extra.js"), "/* added */\n").unwrap();
        std::fs::write(scripts.join("notes.txt"), "not a script").unwrap();
        let js = joined(&load_theme(Some(tmp.path())).unwrap());
        assert!(!js.contains("part 6 of 7"), "the default part is replaced");
        let own = js
            .find("/* the site's own */\n")
            .expect("ends with a line break");
        let added = js.find("/* added */").unwrap();
        let start = js.find("part 7 of 7").unwrap();
        assert!(own < start && start < added, "name order");
        assert!(!js.contains("not a script"));
        assert!(js.ends_with("/* added */\n"));
    }
}
