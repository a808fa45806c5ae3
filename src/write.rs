//! The write stage, the only code that writes the built site.
//!
//! Takes the rendered outputs and an output folder; writes every file into a temporary folder
//! beside the output, then swaps it in with renames, so readers and a failed build never see a
//! half-written site. Refuses paths that would leave the output folder, a second build writing
//! the same output at the same time (a lock file beside it), and replacing a folder that errata
//! did not write (a marker file tells). Ctrl-C while writing stops at the next file and removes
//! the temporary folder; a build killed outright leaves it, and the next build removes it (and
//! puts the old output back if the kill fell between the two renames of the swap).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::render::Output;

/// The file errata leaves in every output folder it writes, so it never replaces another folder.
pub const MARKER: &str = ".errata-output";

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("output path `{path}` would leave the output folder")]
    UnsafePath { path: String },
    #[error("{output} exists and was not written by errata; refusing to replace it (remove it or pick another --output)")]
    NotOurs { output: PathBuf },
    #[error("{output} is not a folder")]
    NotAFolder { output: PathBuf },
    #[error("{folder} is read-only; refusing to replace {output} (make it writable, e.g. `chmod -R u+w {output}`, or pick another --output)")]
    ReadOnly { output: PathBuf, folder: PathBuf },
    #[error("the output {output} contains the site's own files; pick another --output")]
    ContainsSite { output: PathBuf },
    #[error("the output {output} is inside the site's {folder}/, which the next build would read; pick another --output")]
    InsideSources {
        output: PathBuf,
        folder: &'static str,
    },
    #[error("another errata build is writing {output} (lock {lock} is held)")]
    Locked { output: PathBuf, lock: PathBuf },
    #[error("interrupted; the previous output is unchanged")]
    Interrupted,
    #[error("cannot write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_owned(),
        source,
    }
}

static WRITING: AtomicBool = AtomicBool::new(false);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// For a Ctrl-C handler: asks a write under way to stop. Returns false when no write is under
/// way, so the caller may simply exit (nothing is half-written).
pub fn interrupt() -> bool {
    INTERRUPTED.store(true, Ordering::SeqCst);
    WRITING.load(Ordering::SeqCst)
}

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Marks a write under way for as long as it lives.
struct Writing;

impl Writing {
    fn start() -> Writing {
        WRITING.store(true, Ordering::SeqCst);
        Writing
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        WRITING.store(false, Ordering::SeqCst);
    }
}

/// A relative path made only of normal components, without NUL or backslash.
pub fn is_safe_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && !path.contains('\\')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// What was written.
#[derive(Debug, Clone)]
pub struct WriteReport {
    pub files: usize,
    pub bytes: u64,
    /// The previous output, moved aside, when it could not be deleted (a read-only folder
    /// inside it), and why.
    pub left_behind: Option<(PathBuf, String)>,
}

/// The lock on an output folder, held from the start of a build to its end, so a second
/// build of the same output is refused at once instead of racing the first.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
    output: PathBuf,
    parent: PathBuf,
    name: String,
}

impl OutputLock {
    /// The output folder, absolute.
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// Takes the lock file beside `output` (creating the parent folder if needed).
    pub fn acquire(output: &Path) -> Result<OutputLock, WriteError> {
        let output = absolute(output);
        let name = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "public".into());
        let parent = output
            .parent()
            .map(Path::to_owned)
            .unwrap_or_else(|| PathBuf::from("."));
        fs::create_dir_all(&parent).map_err(io_at(&parent))?;
        let lock_path = parent.join(format!(".{name}.lock"));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_at(&lock_path))?;
        match file.try_lock() {
            Ok(()) => Ok(OutputLock {
                _file: file,
                output,
                parent,
                name,
            }),
            Err(fs::TryLockError::WouldBlock) => Err(WriteError::Locked {
                output,
                lock: lock_path,
            }),
            Err(fs::TryLockError::Error(source)) => Err(WriteError::Io {
                path: lock_path,
                source,
            }),
        }
    }
}

/// Writes the site atomically into the locked output. `site_root` is never replaced or entered.
pub fn write_site(
    lock: &OutputLock,
    site_root: &Path,
    files: &[Output],
) -> Result<WriteReport, WriteError> {
    let staging = Staging::begin(lock, site_root)?;
    for file in files {
        staging.write(file)?;
    }
    staging.commit()
}

/// Replaces `files` in the locked output, which errata wrote, in place: each is written to a
/// temporary file beside it and renamed over it, so no file is ever half-written, but the
/// folder is not swapped whole. For a cached build (`errata build --cache`), which changes a
/// few files of a site it knows; every other file stays as it is.
pub fn patch(lock: &OutputLock, files: &[Output]) -> Result<WriteReport, WriteError> {
    let output = &lock.output;
    if !output.join(MARKER).is_file() {
        return Err(WriteError::NotOurs {
            output: output.clone(),
        });
    }
    let _writing = Writing::start();
    let mut bytes = 0;
    for file in files {
        if interrupted() {
            return Err(WriteError::Interrupted);
        }
        if !is_safe_relative(&file.path) || file.path == MARKER {
            return Err(WriteError::UnsafePath {
                path: file.path.clone(),
            });
        }
        let path = output.join(&file.path);
        let dir = path.parent().unwrap_or(output);
        fs::create_dir_all(dir).map_err(io_at(dir))?;
        let temp = dir.join(format!(".errata-tmp-{}", std::process::id()));
        if let Err(source) = fs::write(&temp, &file.bytes).and_then(|()| fs::rename(&temp, &path)) {
            let _ = fs::remove_file(&temp);
            return Err(WriteError::Io { path, source });
        }
        bytes += file.bytes.len() as u64;
    }
    Ok(WriteReport {
        files: files.len(),
        bytes,
        left_behind: None,
    })
}

/// The temporary folder a build writes into, beside the output, swapped in whole by
/// [`Staging::commit`]. Files may be written from several threads as they are rendered, so a
/// build never holds the whole site in memory. Dropped without a commit (an error, Ctrl-C), it
/// removes itself and the output stays as it was.
pub struct Staging<'a> {
    lock: &'a OutputLock,
    temp: PathBuf,
    files: AtomicUsize,
    bytes: AtomicU64,
    committed: bool,
    _writing: Writing,
}

impl<'a> Staging<'a> {
    /// Checks the output folder and creates the temporary folder.
    pub fn begin(lock: &'a OutputLock, site_root: &Path) -> Result<Staging<'a>, WriteError> {
        let (output, parent, name) = (&lock.output, &lock.parent, lock.name.as_str());
        let site_root = absolute(site_root);
        if site_root.starts_with(output) {
            return Err(WriteError::ContainsSite {
                output: output.clone(),
            });
        }
        for folder in ["content", "themes"] {
            if output.starts_with(site_root.join(folder)) {
                return Err(WriteError::InsideSources {
                    output: output.clone(),
                    folder,
                });
            }
        }
        match fs::symlink_metadata(output) {
            Ok(meta) if !meta.is_dir() => {
                return Err(WriteError::NotAFolder {
                    output: output.clone(),
                })
            }
            Ok(_) => {
                let empty = fs::read_dir(output)
                    .map_err(io_at(output))?
                    .next()
                    .is_none();
                if !empty && !output.join(MARKER).exists() {
                    return Err(WriteError::NotOurs {
                        output: output.clone(),
                    });
                }
                // Its files could be moved aside but not deleted: the build would leave a
                // copy it cannot remove beside the output.
                if let Some(folder) = read_only_folder(output) {
                    return Err(WriteError::ReadOnly {
                        output: output.clone(),
                        folder,
                    });
                }
            }
            Err(_) => {}
        }
        remove_leftovers(parent, name, output);
        let temp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        let writing = Writing::start();
        if temp.exists() {
            fs::remove_dir_all(&temp).map_err(io_at(&temp))?;
        }
        fs::create_dir_all(&temp).map_err(io_at(&temp))?;
        Ok(Staging {
            lock,
            temp,
            files: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            committed: false,
            _writing: writing,
        })
    }

    /// Writes one file; safe to call from several threads.
    pub fn write(&self, file: &Output) -> Result<(), WriteError> {
        if interrupted() {
            return Err(WriteError::Interrupted);
        }
        if !is_safe_relative(&file.path) || file.path == MARKER {
            return Err(WriteError::UnsafePath {
                path: file.path.clone(),
            });
        }
        let path = self.temp.join(&file.path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(io_at(dir))?;
        }
        let mut f = File::create(&path).map_err(io_at(&path))?;
        f.write_all(&file.bytes).map_err(io_at(&path))?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes
            .fetch_add(file.bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Adds the marker and swaps the folder in for the output.
    pub fn commit(mut self) -> Result<WriteReport, WriteError> {
        let marker = self.temp.join(MARKER);
        fs::write(
            &marker,
            "This folder is written by errata build and replaced whole on each build.\n",
        )
        .map_err(io_at(&marker))?;
        if interrupted() {
            return Err(WriteError::Interrupted);
        }
        let lock = self.lock;
        let left_behind = swap_in(
            &self.temp,
            &lock.output,
            &lock.parent,
            &lock.name,
            std::process::id(),
        )?;
        self.committed = true;
        Ok(WriteReport {
            files: self.files.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            left_behind,
        })
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.temp);
        }
    }
}

/// `path` made absolute, `.` and `..` resolved, and symlinks where the path exists: how an
/// output folder is named, so two names of one folder compare equal.
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    // Resolve `.` and `..` lexically, then symlinks where the path exists.
    let mut clean = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean.canonicalize().unwrap_or(clean)
}

/// The output folder itself, or the first folder inside it, that is read-only (symlinks are
/// not followed: removing one removes the link only).
fn read_only_folder(output: &Path) -> Option<PathBuf> {
    walkdir::WalkDir::new(output)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .find(|e| e.metadata().is_ok_and(|m| m.permissions().readonly()))
        .map(|e| e.into_path())
}

/// Temporary and old folders of builds that were killed. A build killed between moving the
/// old output aside and moving the new one in left no output: the old one is put back.
fn remove_leftovers(parent: &Path, name: &str, output: &Path) {
    let Ok(items) = fs::read_dir(parent) else {
        return;
    };
    let (tmp, old) = (format!(".{name}.tmp-"), format!(".{name}.old-"));
    let mut found: Vec<(String, PathBuf)> = items
        .filter_map(Result::ok)
        .map(|i| (i.file_name().to_string_lossy().into_owned(), i.path()))
        .filter(|(n, _)| n.starts_with(&tmp) || n.starts_with(&old))
        .collect();
    found.sort();
    for (file_name, path) in found {
        let restorable = file_name.starts_with(&old) && path.join(MARKER).is_file();
        if restorable && fs::symlink_metadata(output).is_err() && fs::rename(&path, output).is_ok()
        {
            continue;
        }
        let _ = fs::remove_dir_all(path);
    }
}

/// Moves the old output aside, the new one in, then deletes the old one. If the second rename
/// fails the old output is put back. The old one, when it could not be deleted, and why.
fn swap_in(
    temp: &Path,
    output: &Path,
    parent: &Path,
    name: &str,
    pid: u32,
) -> Result<Option<(PathBuf, String)>, WriteError> {
    if !output.exists() {
        return fs::rename(temp, output)
            .map_err(io_at(output))
            .map(|()| None);
    }
    let old = parent.join(format!(".{name}.old-{pid}"));
    fs::rename(output, &old).map_err(io_at(output))?;
    if let Err(source) = fs::rename(temp, output) {
        let _ = fs::rename(&old, output);
        return Err(WriteError::Io {
            path: output.to_owned(),
            source,
        });
    }
    Ok(remove_tree(&old).err().map(|e| (old, e.to_string())))
}

/// Removes a replaced output folder, its top-level folders side by side: unlinking ten
/// thousand pages is the kernel's work, and one thread leaves the second core idle.
fn remove_tree(dir: &Path) -> io::Result<()> {
    use rayon::prelude::*;
    let children: Vec<PathBuf> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    children.par_iter().try_for_each(|path| {
        // A symlink is removed as a link, never followed.
        if fs::symlink_metadata(path)?.is_dir() {
            fs::remove_dir_all(path)
        } else {
            fs::remove_file(path)
        }
    })?;
    fs::remove_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_paths() {
        assert!(is_safe_relative("memory/x/index.html"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a\\b",
            "a\0b",
            "./a",
        ] {
            assert!(!is_safe_relative(bad), "{bad:?}");
        }
    }
}
