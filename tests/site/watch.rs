//! `errata watch` on a log this test writes while watch runs: appended to, truncated and
//! rotated; a NCCL watchdog told while the job still hangs; `--exit-on-failure`.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::ERRATA;

const IMPORT_ERROR: &str = "Traceback (most recent call last):
  File \"/workspace/train.py\", line 4, in <module>
    from flash_attn import flash_attn_func
ModuleNotFoundError: No module named 'flash_attn'
";
const WATCHDOG: &str = "[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n";
const TOLD: &str = "shows a failure";

fn watch(log: &Path, extra: &[&str]) -> Child {
    Command::new(ERRATA)
        .arg("watch")
        .arg(log)
        .arg("--root")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .args(["--interval", "0.05"])
        .args(extra)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("errata watch starts")
}

fn append(log: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// Reads watch's stderr on a thread, so the test can wait for a count of reports.
struct Told {
    text: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Told {
    fn of(child: &mut Child) -> Told {
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = std::sync::Arc::clone(&text);
        let mut stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Told { text }
    }

    fn count(&self) -> usize {
        self.text.lock().unwrap().matches(TOLD).count()
    }

    /// Waits until `n` failures were told (or fails after 20 s).
    fn wait_for(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.count() < n {
            assert!(
                Instant::now() < deadline,
                "waited for {n} reports:\n{}",
                self.all()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn all(&self) -> String {
        self.text.lock().unwrap().clone()
    }
}

/// A log that does not exist yet, then is appended to, truncated and rotated: each run's
/// failure is told once, and not again for a line that repeats it.
#[test]
fn appends_truncation_and_rotation_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    let mut child = watch(&log, &[]);
    let told = Told::of(&mut child);
    std::thread::sleep(Duration::from_millis(300));
    append(&log, "step 1 loss 2.31\nstep 2 loss 2.29\n");
    append(&log, IMPORT_ERROR);
    told.wait_for(1);
    // The same error again in the same run is not a new failure.
    append(&log, "ModuleNotFoundError: No module named 'flash_attn'\n");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(told.count(), 1, "{}", told.all());
    // Truncated: a new run in the same file.
    std::fs::write(&log, IMPORT_ERROR).unwrap();
    told.wait_for(2);
    // Rotated: moved away, and a new file in its place.
    std::fs::rename(&log, dir.path().join("train.log.1")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    append(&log, "step 1 loss 2.31\n");
    append(&log, WATCHDOG);
    told.wait_for(3);
    // SAFETY: a plain kill(2) of the errata process this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "a failure was told: exit 1");
    let all = told.all();
    assert!(
        all.contains("truncated; reading it again from the start"),
        "{all}"
    );
    assert!(all.contains("rotated"), "{all}");
    assert_eq!(
        all.matches("1. diagnosis: FlashAttention").count(),
        2,
        "{all}"
    );
    assert_eq!(
        all.matches("1. diagnosis: NCCL Collective Watchdog Timeout")
            .count(),
        1,
        "{all}"
    );
}

/// A job hanging in a collective: its watchdog's first line is told while the job still runs
/// (the log stays open, nothing more comes), and `--exit-on-failure` ends watch there.
#[test]
fn a_watchdog_is_told_while_the_job_still_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    std::fs::write(&log, "step 1 loss 2.31\n").unwrap();
    let mut child = watch(&log, &["--exit-on-failure"]);
    let told = Told::of(&mut child);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "no failure yet: still watching"
    );
    let mut open = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    open.write_all(WATCHDOG.as_bytes()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "watch did not end:\n{}",
            told.all()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(1));
    drop(open);
    told.wait_for(1);
    assert!(
        told.all().contains("NCCL Collective Watchdog Timeout"),
        "{}",
        told.all()
    );
}

/// A healthy log is never told, and an interrupted watch of it exits 0.
#[test]
fn a_healthy_log_is_not_told() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    let mut child = watch(&log, &[]);
    let told = Told::of(&mut child);
    for step in 0..20 {
        append(
            &log,
            &format!(
                "step {step} loss {:.3} lr 3e-4\n",
                2.0 - f64::from(step) * 0.01
            ),
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: a plain kill(2) of the errata process this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(told.count(), 0, "{}", told.all());
}
