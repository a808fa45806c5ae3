//! COMMAND as a child process, where there are no Unix process groups or signals: pipes for
//! its output, and Ctrl-C left to the console, which sends it to the child as well.

use std::ffi::OsString;
use std::io::{self, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use super::Running;

pub fn spawn(argv: &[OsString]) -> io::Result<Running> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command given"))?;
    let mut process = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout: Box<dyn Read + Send> = match process.stdout.take() {
        Some(pipe) => Box::new(pipe),
        None => Box::new(io::empty()),
    };
    let stderr: Box<dyn Read + Send> = match process.stderr.take() {
        Some(pipe) => Box::new(pipe),
        None => Box::new(io::empty()),
    };
    Ok(Running {
        process,
        stdout,
        stderr,
        group: Group,
    })
}

/// No process group here.
#[derive(Debug, Clone, Copy)]
pub struct Group;

/// Nothing to forward.
pub struct Forwarder;

pub fn forward_signals(_group: Group, _kill_after: Duration) -> io::Result<Forwarder> {
    Ok(Forwarder)
}

impl Forwarder {
    pub fn stop(self) -> Option<i32> {
        None
    }
}

/// No portable way to lower one thread's priority here.
pub fn yield_to_the_job() {}

pub fn wait(process: &mut Child, _group: Group) -> io::Result<ExitStatus> {
    process.wait()
}

pub fn exit_code(status: ExitStatus) -> u8 {
    status.code().map_or(1, |code| code as u8)
}

pub fn describe(status: ExitStatus) -> String {
    status.code().map_or_else(
        || "ended".into(),
        |code| format!("exited with status {code}"),
    )
}

pub fn shell_report(_status: ExitStatus) -> Option<String> {
    None
}
