//! Faults while building: an output folder that cannot be written, a full disk, a build killed
//! halfway (SIGKILL, SIGINT), two builds at once, a swap cut in half, an unreadable file and a
//! 50 MB file. In every case the previous site stays complete, and the next build is clean.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{leftovers, run, tree, Run, ERRATA};

/// A generated site of 40 entries under `<tmp>/site`, built once into `<tmp>/public`.
struct Built {
    tmp: tempfile::TempDir,
    root: PathBuf,
    output: PathBuf,
    first: BTreeMap<String, Vec<u8>>,
}

impl Built {
    fn new() -> Built {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("site");
        super::incremental::write_site(&root);
        let output = tmp.path().join("public");
        let built = Built {
            tmp,
            root,
            output,
            first: BTreeMap::new(),
        };
        built.build().assert_exit(0);
        let first = tree(&built.output);
        assert!(first.contains_key("index.html") && first.contains_key("search/errata.bundle"));
        Built { first, ..built }
    }

    fn command(&self) -> Command {
        let mut c = Command::new(ERRATA);
        c.arg("build")
            .arg("--root")
            .arg(&self.root)
            .arg("--output")
            .arg(&self.output)
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_ACTIONS");
        c
    }

    fn build(&self) -> Run {
        run(self.command())
    }

    /// The previous site is there, whole and unchanged, and nothing is left beside it.
    fn assert_previous_intact(&self) {
        super::assert_same_tree(&self.first, &tree(&self.output));
    }

    fn assert_no_leftovers(&self) {
        let left = leftovers(self.tmp.path(), "public");
        assert!(left.is_empty(), "left beside the output: {left:?}");
    }

    /// Starts a build and waits until it is writing its temporary folder.
    fn start_writing(&self) -> Child {
        let mut child = self
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let temp = self.tmp.path().join(format!(".public.tmp-{}", child.id()));
        let deadline = Instant::now() + Duration::from_secs(60);
        while !temp.join("index.html").exists() && !temp.join("404.html").exists() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the build ended ({status}) before it was seen writing");
            }
            assert!(Instant::now() < deadline, "the build never started writing");
            std::thread::sleep(Duration::from_micros(200));
        }
        child
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// Runs the binary as an unprivileged user when the tests run as root, so file modes apply
/// (root reads and writes through them). The binary is copied where that user can run it.
fn unprivileged(built: &Built, mut command: Command) -> Run {
    if is_root() {
        let bin = built.tmp.path().join("errata-unprivileged");
        if !bin.exists() {
            fs::copy(ERRATA, &bin).unwrap();
        }
        fs::set_permissions(built.tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let make = || {
            let mut c = Command::new(&bin);
            c.args(command.get_args());
            for (k, v) in command.get_envs() {
                match v {
                    Some(v) => c.env(k, v),
                    None => c.env_remove(k),
                };
            }
            c.uid(65534).gid(65534);
            c
        };
        // A test thread that forks while the copy is open for writing holds it open in its
        // child until that child execs: running the copy then fails with "text file busy"
        // for a moment. Try again, briefly.
        for _ in 0..50 {
            match make().output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => panic!("cannot run the errata binary: {e}"),
                Ok(out) => {
                    return Run {
                        code: out.status.code(),
                        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                    }
                }
            }
        }
        command = make();
    }
    run(command)
}

#[test]
fn a_build_killed_while_writing_leaves_the_previous_site() {
    let built = Built::new();
    let child = built.start_writing();
    let mut child = child;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    built.assert_previous_intact();
    // The next build removes what the killed one left and succeeds.
    built.build().assert_exit(0);
    built.assert_no_leftovers();
    built.assert_previous_intact(); // same content, same bytes
}

#[test]
fn ctrl_c_while_writing_stops_and_cleans_up() {
    a_signal_while_writing_stops_and_cleans_up("INT");
}

/// `kill` (SIGTERM, as CI runners and process managers stop a job) ends a build as Ctrl-C does.
#[test]
fn sigterm_while_writing_stops_and_cleans_up() {
    a_signal_while_writing_stops_and_cleans_up("TERM");
}

fn a_signal_while_writing_stops_and_cleans_up(name: &str) {
    let built = Built::new();
    let mut child = built.start_writing();
    signal(&child, name);
    let status = child.wait().unwrap();
    // Either the signal landed while writing (exit 130 from the handler, temporary folder
    // removed) or the build had already finished its last file and swapped (exit 0); never
    // killed by the signal itself, which would leave the temporary folder behind.
    assert!(
        matches!(status.code(), Some(130) | Some(0)),
        "unexpected exit {status}"
    );
    built.assert_no_leftovers();
    built.assert_previous_intact();
}

#[test]
fn ctrl_c_before_writing_exits_at_once_and_writes_nothing() {
    let built = Built::new();
    let mut child = built.command().stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(30));
    signal(&child, "INT");
    let started = Instant::now();
    let status = child.wait().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "Ctrl-C took {:?}",
        started.elapsed()
    );
    assert!(
        matches!(status.code(), Some(130) | Some(0)),
        "exit {status}"
    );
    built.assert_no_leftovers();
    built.assert_previous_intact();
}

#[test]
fn a_second_build_at_once_is_refused_clearly() {
    let built = Built::new();
    let mut first = built.start_writing();
    let second = built.build();
    second
        .assert_exit(2)
        .stderr_has("another errata build is writing");
    assert!(first.wait().unwrap().success());
    built.assert_no_leftovers();
    built.assert_previous_intact();
}

#[test]
fn a_swap_cut_in_half_is_put_back() {
    // Killed between moving the old output aside and moving the new one in: no output, the
    // old site beside it. The next build puts it back before anything else.
    let built = Built::new();
    fs::rename(&built.output, built.tmp.path().join(".public.old-4242")).unwrap();
    built.build().assert_exit(0);
    built.assert_no_leftovers();
    built.assert_previous_intact();
}

#[test]
fn an_output_folder_that_cannot_be_written_keeps_the_previous_site() {
    let built = Built::new();
    // The build writes its temporary folder beside the output: make that parent read-only.
    let parent = built.tmp.path();
    let run_it = || unprivileged(&built, built.command());
    fs::set_permissions(parent, fs::Permissions::from_mode(0o555)).unwrap();
    let result = run_it();
    fs::set_permissions(parent, fs::Permissions::from_mode(0o755)).unwrap();
    result
        .assert_exit(2)
        .stderr_has("cannot write")
        .stderr_has("Permission denied");
    built.assert_previous_intact();
    built.assert_no_leftovers();
}

#[test]
fn a_full_disk_keeps_the_previous_site() {
    // A file-size limit (SIGXFSZ ignored) makes writes fail with EFBIG, as a full disk fails
    // them with ENOSPC: the build stops at the first file that does not fit.
    let built = Built::new();
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 256; exec \"$@\"")
        .arg("sh")
        .arg(ERRATA)
        .args(built.command().get_args())
        .env("NO_COLOR", "1");
    run(shell)
        .assert_exit(2)
        .stderr_has("cannot write")
        .stderr_has("File too large");
    built.assert_previous_intact();
    built.assert_no_leftovers();
}

#[test]
fn an_unreadable_file_is_reported_with_a_hint() {
    let built = Built::new();
    let file = built.root.join("content/memory/entry-04.md");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o000)).unwrap();
    let mut check = Command::new(ERRATA);
    check
        .arg("check")
        .arg("--root")
        .arg(&built.root)
        .env("NO_COLOR", "1");
    let result = unprivileged(&built, check);
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    result
        .assert_exit(1)
        .stderr_has("error: content/memory/entry-04.md: cannot read: permission denied")
        .stderr_has("hint: check the file's permissions");
    built.assert_previous_intact();
}

#[test]
fn a_50_megabyte_file_is_refused_unread() {
    let built = Built::new();
    let file = built.root.join("content/memory/huge.md");
    let f = fs::File::create(&file).unwrap();
    f.set_len(50_000_000).unwrap(); // sparse: the size is what matters
    drop(f);
    let started = Instant::now();
    built
        .build()
        .assert_exit(1)
        .stderr_has("error: content/memory/huge.md: file is 50.0 MB; an entry may be at most 8 MB")
        .stderr_has("hint: split it into several entries");
    assert!(started.elapsed() < Duration::from_secs(30));
    built.assert_previous_intact();
}

/// A device or a UTF-16 log is refused at its first bytes with a hint, not read until memory
/// runs out or echoed as NUL bytes.
#[test]
fn diagnose_refuses_what_is_not_a_text_log() {
    diagnose_file(Path::new("/dev/zero"))
        .assert_exit(2)
        .stderr_has("/dev/zero: the log is not text");
    let tmp = tempfile::tempdir().unwrap();
    let utf16 = tmp.path().join("utf16.log");
    let bytes: Vec<u8> = "torch.OutOfMemoryError: CUDA out of memory.\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    fs::write(&utf16, bytes).unwrap();
    diagnose_file(&utf16)
        .assert_exit(2)
        .stderr_has("looks UTF-16 encoded")
        .stderr_has("iconv -f UTF-16 -t UTF-8");
}

/// `errata diagnose FILE` on the repository's own content.
fn diagnose_file(file: &Path) -> Run {
    let mut c = Command::new(ERRATA);
    c.arg("diagnose")
        .arg(file)
        .arg("--root")
        .arg(env!("CARGO_MANIFEST_DIR"));
    run(c)
}
