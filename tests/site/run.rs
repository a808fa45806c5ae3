//! `errata run` and `errata watch` with real child processes: small Python scripts the tests
//! write, run under the binary on the real `content/`. Checked: the child's output passed
//! through byte for byte, the exit status (a signal's too), the diagnosis equal to `errata
//! diagnose` on the same text, signals passed on to the whole process group, bounded memory on
//! a flood of output, a pseudo-terminal for the child, and a watched log appended to,
//! truncated and rotated.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::ERRATA;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `errata <subcommand> --root <repo>`, outside any CI environment.
fn errata(subcommand: &str) -> Command {
    let mut command = Command::new(ERRATA);
    command
        .arg(subcommand)
        .arg("--root")
        .arg(repo())
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null());
    command
}

/// A Python script in a temp dir.
fn script(dir: &Path, name: &str, code: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, code).unwrap();
    path
}

/// `errata run [args] -- python3 <script>`, to its end.
fn run_script(args: &[&str], script: &Path) -> Output {
    errata("run")
        .args(args)
        .arg("--")
        .arg("python3")
        .arg(script)
        .output()
        .expect("errata runs")
}

/// What the same text gives `errata diagnose --json`.
fn diagnose_json(text: &[u8]) -> serde_json::Value {
    let mut child = errata("diagnose")
        .arg("--json")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text).unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).expect("diagnose prints JSON")
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// `run --json`'s fields without the ones `diagnose --json` does not have.
fn as_diagnose_gives(mut told: serde_json::Value) -> serde_json::Value {
    let object = told.as_object_mut().unwrap();
    for key in ["page", "command", "status", "log"] {
        object.remove(key);
    }
    told
}

const RANK3_OUT: &str =
    "epoch 0 step 10 loss 2.31\n\x1b[32mcolour kept\x1b[0m\rprogress 50%\rprogress 100%\n";
const RANK3_ERR: &str = "[rank3]: Traceback (most recent call last):
[rank3]:   File \"/workspace/train.py\", line 4, in <module>
[rank3]:     from flash_attn import flash_attn_func
[rank3]: ModuleNotFoundError: No module named 'flash_attn'
";

/// A traceback on rank 3, then exit 3: output passed through unchanged, the diagnosis after
/// it on stderr, the status kept, and `--json` equal to `errata diagnose` on the same text.
#[test]
fn a_failing_rank_is_diagnosed_after_its_own_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("out.txt"), RANK3_OUT).unwrap();
    std::fs::write(dir.path().join("err.txt"), RANK3_ERR).unwrap();
    let child = script(
        dir.path(),
        "train.py",
        "import sys, time, pathlib\nhere = pathlib.Path(__file__).parent\nsys.stdout.buffer.write((here / 'out.txt').read_bytes())\nsys.stdout.flush()\ntime.sleep(0.3)\nsys.stderr.buffer.write((here / 'err.txt').read_bytes())\nsys.exit(3)\n",
    );
    let json = dir.path().join("diagnosis.json");
    let out = run_script(&["--json", json.to_str().unwrap()], &child);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(
        out.stdout,
        RANK3_OUT.as_bytes(),
        "stdout passed through byte for byte"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let (own, told) = stderr.split_at(RANK3_ERR.len());
    assert_eq!(own, RANK3_ERR, "stderr passed through byte for byte first");
    assert!(told.starts_with("\nerrata: `python3 "), "{told}");
    assert!(told.contains("exited with status 3"), "{told}");
    assert!(told.contains("1. diagnosis: FlashAttention"), "{told}");
    assert!(
        told.contains("first failing line 6 (rank 3): ModuleNotFoundError"),
        "{told}"
    );
    assert!(
        told.contains("https://errata.example.org/compilation/flash-attention-build-errors/"),
        "{told}"
    );
    let written = read_json(&json);
    assert_eq!(written["status"], 3);
    assert_eq!(written["command"][0], "python3");
    assert_eq!(
        written["page"],
        "https://errata.example.org/compilation/flash-attention-build-errors/"
    );
    let text = format!("{RANK3_OUT}{RANK3_ERR}");
    assert_eq!(as_diagnose_gives(written), diagnose_json(text.as_bytes()));
}

/// A run that succeeds prints nothing of errata's, and removes a diagnosis file left from
/// an earlier failed run.
#[test]
fn a_run_that_succeeds_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let child = script(
        dir.path(),
        "ok.py",
        "import sys\nprint('RuntimeError: this is only printed')\nsys.stderr.write('warning: done\\n')\n",
    );
    let json = dir.path().join("diagnosis.json");
    std::fs::write(&json, "{}").unwrap();
    let out = run_script(&["--json", json.to_str().unwrap()], &child);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"RuntimeError: this is only printed\n");
    assert_eq!(out.stderr, b"warning: done\n");
    assert!(!json.exists(), "a stale diagnosis is removed");
}

/// Binary output and a last line without its newline pass through as they are; the unfinished
/// line is still read.
#[test]
fn binary_output_and_a_last_line_without_newline_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    let child = script(
        dir.path(),
        "bin.py",
        "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 64 + b'\\x00\\xff\\xfe')\nsys.stdout.flush()\nsys.stderr.write(\"ModuleNotFoundError: No module named 'flash_attn'\")\nsys.exit(1)\n",
    );
    let json = dir.path().join("d.json");
    let out = run_script(&["--json", json.to_str().unwrap()], &child);
    assert_eq!(out.status.code(), Some(1));
    let mut expected: Vec<u8> = (0..=255u8).collect::<Vec<_>>().repeat(64);
    expected.extend_from_slice(b"\x00\xff\xfe");
    assert_eq!(out.stdout, expected);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("ModuleNotFoundError: No module named 'flash_attn'\nerrata: "),
        "{stderr}"
    );
    let written = read_json(&json);
    assert_eq!(written["outcome"], "diagnosis", "{written:#}");
    assert_eq!(
        written["entries"][0]["slug"],
        "flash-attention-build-errors"
    );
}

/// A child killed by SIGKILL: errata exits 128 + 9, and reads the shell's `Killed` as the log
/// a person would paste has it.
#[test]
fn a_child_killed_by_a_signal_gives_128_plus_the_signal() {
    let dir = tempfile::tempdir().unwrap();
    let child = script(
        dir.path(),
        "killed.py",
        "import os, signal\nprint('loading checkpoint shards', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n",
    );
    let json = dir.path().join("d.json");
    let out = run_script(&["--json", json.to_str().unwrap()], &child);
    assert_eq!(out.status.code(), Some(137), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("was killed by SIGKILL"), "{stderr}");
    let written = read_json(&json);
    assert_eq!(written["status"], 137);
    assert_eq!(written["first_failure"]["text"], "Killed", "{written:#}");
    assert_eq!(
        written["entries"][0]["slug"], "cpu-ram-exhaustion",
        "{written:#}"
    );
}

/// SIGTERM to errata goes to the child's whole group; a child that ignores it, and the
/// grandchild it started, are killed once `--kill-after` has passed. No orphan is left.
#[test]
fn a_child_that_ignores_sigterm_is_not_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let code = format!(
        "import signal, subprocess, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\np = subprocess.Popen(['sleep', '300'])\nopen({:?}, 'w').write(str(p.pid))\nprint('ready', flush=True)\ntime.sleep(300)\n",
        pid_file.to_str().unwrap()
    );
    let child = script(dir.path(), "stubborn.py", &code);
    let json = dir.path().join("d.json");
    let mut errata = errata("run")
        .args([
            "--kill-after",
            "1",
            "--json",
            json.to_str().unwrap(),
            "--",
            "python3",
        ])
        .arg(&child)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(errata.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "ready\n");
    let grandchild: i32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    let started = Instant::now();
    // SAFETY: a plain kill(2) of the errata process this test started.
    assert_eq!(unsafe { libc::kill(errata.id() as i32, libc::SIGTERM) }, 0);
    let status = wait_for(&mut errata, Duration::from_secs(20));
    assert_eq!(status, Some(137), "killed by SIGKILL after --kill-after");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "SIGKILL came only after the grace"
    );
    assert!(
        !Path::new(&format!("/proc/{grandchild}")).exists(),
        "the grandchild is gone too"
    );
    let mut stderr = String::new();
    errata
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(stderr.contains("errata passed on signal 15"), "{stderr}");
    // errata's own SIGKILL is no evidence of the kernel's OOM killer.
    let written = read_json(&json);
    assert_ne!(written["first_failure"]["text"], "Killed", "{written:#}");
}

fn wait_for(child: &mut Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("still running after {limit:?}");
}

/// 200 MB of output: passed through whole, in bounded memory, and the error at its end is
/// read whatever was skipped in the middle.
#[test]
fn a_flood_of_output_passes_through_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let child = script(
        dir.path(),
        "flood.py",
        "import sys\nline = b'step %d loss 1.2345 lr 3e-4 tokens/s 123456 ' + b'x' * 60 + b'\\n'\nout = sys.stdout.buffer\nfor i in range(2_000_000):\n    out.write(line % i)\nout.flush()\nsys.stderr.write(\"ModuleNotFoundError: No module named 'flash_attn'\\n\")\nsys.exit(1)\n",
    );
    let json = dir.path().join("d.json");
    let mut errata = errata("run")
        .args(["--json", json.to_str().unwrap(), "--", "python3"])
        .arg(&child)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = errata.id();
    let peak = std::thread::spawn(move || peak_rss_kb(pid));
    let mut stdout = errata.stdout.take().unwrap();
    let (mut bytes, mut lines, mut buf) = (0u64, 0u64, vec![0u8; 1 << 16]);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        bytes += n as u64;
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    assert_eq!(errata.wait().unwrap().code(), Some(1));
    let expected: u64 = (0..2_000_000u64)
        .map(|i| 103 + i.to_string().len() as u64)
        .sum();
    assert_eq!((bytes, lines), (expected, 2_000_000));
    let peak = peak.join().unwrap();
    assert!(
        peak < 300 * 1024,
        "errata's peak RSS was {peak} KB for 200 MB of output"
    );
    let written = read_json(&json);
    assert_eq!(
        written["entries"][0]["slug"], "flash-attention-build-errors",
        "{written:#}"
    );
}

/// The highest VmRSS of a process, sampled until it ends.
fn peak_rss_kb(pid: u32) -> u64 {
    let mut peak = 0;
    while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
        let rss = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0);
        peak = peak.max(rss);
        std::thread::sleep(Duration::from_millis(20));
    }
    peak
}

/// On a terminal the child still sees a terminal: `script` gives errata one.
#[test]
fn on_a_terminal_the_child_sees_a_terminal() {
    let command = format!(
        "{} run --root {} -- python3 -c 'import sys; print(sys.stdout.isatty(), sys.stderr.isatty())'",
        ERRATA,
        repo().display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script(1), from util-linux, runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("True True"), "{text:?}");
    // And through a pipe it sees a pipe.
    let piped = errata("run")
        .args([
            "--",
            "python3",
            "-c",
            "import sys; print(sys.stdout.isatty())",
        ])
        .output()
        .unwrap();
    assert_eq!(piped.stdout, b"False\n");
}

/// Under GitHub Actions the failure is also an `::error` annotation with the entry's page,
/// and `--on-failure` gets the JSON on its stdin.
#[test]
fn github_actions_and_the_on_failure_command_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let child = script(
        dir.path(),
        "fail.py",
        "import sys\nsys.stderr.write(\"ModuleNotFoundError: No module named 'flash_attn'\\n\")\nsys.exit(1)\n",
    );
    let hook_out = dir.path().join("hook.json");
    let out = errata("run")
        .env("GITHUB_ACTIONS", "true")
        .args([
            "--on-failure",
            &format!("cat > '{}'", hook_out.display()),
            "--",
            "python3",
        ])
        .arg(&child)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let annotation = stdout
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        annotation.starts_with("::error title=errata%3A FlashAttention"),
        "{annotation}"
    );
    assert!(
        annotation
            .contains("%0Ahttps://errata.example.org/compilation/flash-attention-build-errors/"),
        "{annotation}"
    );
    let hooked = read_json(&hook_out);
    assert_eq!(hooked["status"], 1);
    assert_eq!(hooked["entries"][0]["slug"], "flash-attention-build-errors");
}

/// A command that does not exist: the shell's 127, and a message naming it.
#[test]
fn a_command_that_cannot_start_is_named() {
    let out = errata("run")
        .args(["--", "no-such-trainer-xyz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start `no-such-trainer-xyz`"),
        "{stderr}"
    );
}

/// A process that leaves COMMAND's group (`setsid`, as a daemon does) and keeps its output
/// streams open does not hold errata: COMMAND's end is told within seconds (a quiet daemon)
/// or ten (one that keeps printing), not when the
/// daemon ends.
#[test]
fn a_daemon_holding_the_output_open_does_not_hold_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let job = script(
        dir.path(),
        "job.py",
        "import subprocess, sys\n\
subprocess.Popen(['setsid', 'sleep', '60'])\n\
subprocess.Popen(['setsid', 'sh', '-c', 'while sleep 0.05; do echo still here; done'], stdout=sys.stdout)\n\
print('Traceback (most recent call last):', file=sys.stderr)\n\
print('  File \"/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 300, in _lazy_init', file=sys.stderr)\n\
print('RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the \\'spawn\\' start method', file=sys.stderr)\n\
sys.exit(1)\n",
    );
    let started = Instant::now();
    let out = run_script(&[], &job);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("cuda-reinit-forked-subprocess"), "{told}");
    // The daemon is the test's to end.
    let _ = Command::new("pkill").args(["-f", "^sleep 60$"]).status();
    let _ = Command::new("pkill")
        .args(["-f", "while sleep 0.05; do echo still here"])
        .status();
}

/// errata killed outright (SIGKILL, which it cannot pass on) still leaves no COMMAND running:
/// on Linux the kernel ends COMMAND with it.
#[cfg(target_os = "linux")]
#[test]
fn a_command_ends_when_errata_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let job = script(
        dir.path(),
        "job.py",
        &format!(
            "import os, time\nopen({:?}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n",
            pid_file.display().to_string()
        ),
    );
    let mut errata = errata("run")
        .arg("--")
        .arg("python3")
        .arg(&job)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file) {
            if let Ok(pid) = text.trim().parse::<u32>() {
                break pid;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the job never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    errata.kill().unwrap();
    errata.wait().unwrap();
    let gone = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
        })
    };
    let killed = Instant::now();
    while !gone(pid) && killed.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = !gone(pid);
    if left {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    assert!(!left, "the job outlived errata");
}
