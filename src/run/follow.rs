//! Following a file that another process writes, as `tail -F` does.
//!
//! Each [`Follower::poll`] reads what was added since the last one. When the path names
//! another file than the one open (the log was rotated: moved away and created anew), the old
//! file is read to its end first and the new one from its start; when the file got shorter
//! (truncated), it is read again from its start. A path that does not exist yet, or not for
//! the moment (between a rotation's move and create), is waited for. Polling, not file
//! events: it works the same on network file systems, where training logs often live.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use same_file::Handle;

/// What happened to the file since the last poll, besides new bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The path exists (again) and is open, read from its start.
    Opened,
    /// The path names a new file; the old one was read to its end.
    Rotated,
    /// The file got shorter: it is read again from its start.
    Truncated,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Change::Opened => "opened",
            Change::Rotated => "replaced by a new file (rotated); reading the new one",
            Change::Truncated => "truncated; reading it again from the start",
        })
    }
}

#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    open: Option<Handle>,
    offset: u64,
}

/// What a poll hands on, in the order it happened.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Bytes(&'a [u8]),
    Change(Change),
}

impl Follower {
    pub fn new(path: &Path) -> Follower {
        Follower {
            path: path.to_owned(),
            open: None,
            offset: 0,
        }
    }

    /// Hands what was added since the last poll to `each`, in chunks, and each change where
    /// it happened; yields the number of bytes read.
    pub fn poll(&mut self, each: &mut impl FnMut(Piece)) -> io::Result<u64> {
        let mut bytes = self.read_on(each)?;
        let current = match Handle::from_path(&self.path) {
            Ok(handle) => handle,
            // Not there (yet, or between a rotation's move and create): keep what is open.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(bytes),
            Err(e) => return Err(e),
        };
        if self.open.as_ref() != Some(&current) {
            let change = if self.open.is_some() {
                Change::Rotated
            } else {
                Change::Opened
            };
            each(Piece::Change(change));
            self.open = Some(current);
            self.offset = 0;
        } else if self.len()? < self.offset {
            each(Piece::Change(Change::Truncated));
            self.offset = 0;
        }
        bytes += self.read_on(each)?;
        Ok(bytes)
    }

    fn len(&mut self) -> io::Result<u64> {
        match &mut self.open {
            Some(handle) => Ok(handle.as_file_mut().metadata()?.len()),
            None => Ok(0),
        }
    }

    /// Reads the open file from the offset to its current end.
    fn read_on(&mut self, each: &mut impl FnMut(Piece)) -> io::Result<u64> {
        let Some(handle) = &mut self.open else {
            return Ok(0);
        };
        let file: &mut File = handle.as_file_mut();
        file.seek(SeekFrom::Start(self.offset))?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut read = 0;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            each(Piece::Bytes(&buf[..n]));
            read += n as u64;
        }
        self.offset += read;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn poll(f: &mut Follower) -> (String, Vec<Change>) {
        let mut text = Vec::new();
        let mut changes = Vec::new();
        f.poll(&mut |piece| match piece {
            Piece::Bytes(b) => text.extend_from_slice(b),
            Piece::Change(c) => changes.push(c),
        })
        .unwrap();
        (String::from_utf8(text).unwrap(), changes)
    }

    #[test]
    fn appends_truncation_and_rotation_are_followed() {
        let dir = std::env::temp_dir().join(format!("errata-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("train.log");
        let _ = std::fs::remove_file(&path);
        let mut f = Follower::new(&path);
        assert_eq!(poll(&mut f), (String::new(), vec![]));
        std::fs::write(&path, "one\n").unwrap();
        assert_eq!(poll(&mut f), ("one\n".into(), vec![Change::Opened]));
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        log.write_all(b"two\n").unwrap();
        assert_eq!(poll(&mut f), ("two\n".into(), vec![]));
        assert_eq!(poll(&mut f), (String::new(), vec![]));
        std::fs::write(&path, "3\n").unwrap();
        assert_eq!(poll(&mut f), ("3\n".into(), vec![Change::Truncated]));
        // Rotation: the old file gets a last line after its move, then a new file appears.
        log.write_all(b"last of old\n").unwrap();
        std::fs::rename(&path, dir.join("train.log.1")).unwrap();
        assert_eq!(poll(&mut f), ("last of old\n".into(), vec![]));
        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(poll(&mut f), ("new\n".into(), vec![Change::Rotated]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
