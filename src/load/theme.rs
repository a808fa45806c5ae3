//! The theme: templates and static files, the built-in default overlaid by the site's own.
//!
//! Takes the site's theme folder, if any; yields every template's text and every static
//! file's bytes, keyed by their path inside the theme. The default theme is compiled into the
//! binary, so an installed `errata` builds any site alone. A site file with the same name as
//! a default one replaces it.

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
    /// `style.css` -> its bytes (paths under `static/`).
    pub statics: BTreeMap<String, Vec<u8>>,
}

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
    for path in DefaultTheme::iter() {
        if let Some(file) = DefaultTheme::get(&path) {
            add(&mut files, &path, file.data.into_owned())?;
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
            add(&mut files, &rel, bytes)?;
        }
    }
    Ok(files)
}

fn add(files: &mut ThemeFiles, path: &str, bytes: Vec<u8>) -> Result<(), ThemeError> {
    if let Some(name) = path.strip_prefix("templates/") {
        let text = String::from_utf8(bytes).map_err(|_| ThemeError::NotUtf8 {
            name: name.to_owned(),
        })?;
        files.templates.insert(name.to_owned(), text);
    } else if let Some(name) = path.strip_prefix("static/") {
        files.statics.insert(name.to_owned(), bytes);
    }
    Ok(())
}
