//! COMMAND as a child process, on Unix.
//!
//! The child runs in a process group of its own, so that a signal errata gets (SIGINT, SIGTERM,
//! SIGHUP) reaches every process COMMAND started, torchrun's workers included, and so that
//! nothing of it is left running once errata returns. Each of errata's output streams that is
//! a terminal becomes a pseudo-terminal of the child's own, so that COMMAND still sees a
//! terminal (colours, progress bars) while errata reads a copy; the others are pipes.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::pty::openpty;
use nix::sys::signal::{killpg, Signal};
use nix::sys::termios::{tcgetattr, tcsetattr, OutputFlags, SetArg};
use nix::unistd::Pid;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use super::Running;

/// How often the signal thread looks for signals and for the end of the child.
const POLL: Duration = Duration::from_millis(20);
/// Processes COMMAND left behind when it exited get SIGTERM, then SIGKILL after this long.
const LEFTOVER_GRACE: Duration = Duration::from_secs(2);

/// Starts `argv` in its own process group. Its stdin is errata's, except a terminal: a child
/// in a background group that reads the terminal would be stopped (SIGTTIN) for good, so it
/// reads from /dev/null instead.
pub fn spawn(argv: &[OsString]) -> io::Result<Running> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command given"))?;
    let mut command = Command::new(program);
    command.args(args).process_group(0);
    let errata = std::process::id();
    // SAFETY: the closure makes only async-signal-safe calls (see `parent::end_with`).
    unsafe {
        command.pre_exec(move || super::parent::end_with(errata));
    }
    if io::stdin().is_terminal() {
        command.stdin(Stdio::null());
    }
    let out = stream(&io::stdout())?;
    let err = stream(&io::stderr())?;
    command.stdout(out.child).stderr(err.child);
    let mut process = command.spawn()?;
    // The child's ends of the pseudo-terminals: held here, their reads would never end.
    drop(command);
    let stdout = source(out.master, process.stdout.take());
    let stderr = source(err.master, process.stderr.take());
    let group = Group(Pid::from_raw(process.id() as i32));
    Ok(Running {
        process,
        stdout,
        stderr,
        group,
    })
}

/// One output stream of the child: what it writes to, and errata's end if a pseudo-terminal.
struct Stream {
    child: Stdio,
    master: Option<OwnedFd>,
}

fn stream(ours: &(impl IsTerminal + AsRawFd)) -> io::Result<Stream> {
    if !ours.is_terminal() {
        return Ok(Stream {
            child: Stdio::piped(),
            master: None,
        });
    }
    let pty = openpty(window(ours.as_raw_fd()).as_ref(), None)?;
    // The child's bytes as it wrote them: without output processing a `\n` is not made
    // `\r\n` here (errata's own terminal still does that when it shows them).
    let mut modes = tcgetattr(&pty.slave)?;
    modes.output_flags.remove(OutputFlags::OPOST);
    tcsetattr(&pty.slave, SetArg::TCSANOW, &modes)?;
    Ok(Stream {
        child: Stdio::from(pty.slave),
        master: Some(pty.master),
    })
}

/// The size of the terminal on `fd`, for the child's own (so progress bars fit).
fn window(fd: i32) -> Option<nix::pty::Winsize> {
    let mut size = nix::pty::Winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct given, which outlives the call.
    let got = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0;
    got.then_some(size)
}

fn source(
    master: Option<OwnedFd>,
    pipe: Option<impl Read + Send + 'static>,
) -> Box<dyn Read + Send> {
    match (master, pipe) {
        (Some(master), _) => Box::new(Master(File::from(master))),
        (None, Some(pipe)) => Box::new(pipe),
        (None, None) => Box::new(io::empty()),
    }
}

/// A pseudo-terminal's master: once every process has closed the child's end, reading gives
/// EIO, which is the end of the output.
struct Master(File);

impl Read for Master {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.raw_os_error() == Some(libc::EIO) => Ok(0),
            other => other,
        }
    }
}

/// The child's process group.
#[derive(Debug, Clone, Copy)]
pub struct Group(Pid);

impl Group {
    fn signal(self, signal: Signal) -> bool {
        killpg(self.0, signal).is_ok()
    }

    /// True while any process of the group runs.
    fn alive(self) -> bool {
        killpg(self.0, None).is_ok()
    }

    /// SIGTERM to whatever is left, then SIGKILL after `grace`.
    fn end(self, grace: Duration) {
        if !self.alive() {
            return;
        }
        self.signal(Signal::SIGTERM);
        let deadline = Instant::now() + grace;
        while self.alive() && Instant::now() < deadline {
            std::thread::sleep(POLL);
        }
        self.signal(Signal::SIGKILL);
    }
}

/// Passes errata's SIGINT, SIGTERM and SIGHUP on to the child's group while it runs.
pub struct Forwarder {
    done: Arc<AtomicBool>,
    thread: JoinHandle<Option<i32>>,
}

/// Starts forwarding. A group still running `kill_after` after the first signal gets SIGKILL:
/// a child that ignores SIGTERM is not left behind.
pub fn forward_signals(group: Group, kill_after: Duration) -> io::Result<Forwarder> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let thread = std::thread::spawn(move || {
        let mut first: Option<(i32, Instant)> = None;
        while !stop.load(Ordering::Acquire) {
            for number in signals.pending() {
                if let Ok(signal) = Signal::try_from(number) {
                    group.signal(signal);
                }
                first.get_or_insert((number, Instant::now()));
            }
            if first.is_some_and(|(_, at)| at.elapsed() >= kill_after) {
                group.signal(Signal::SIGKILL);
            }
            std::thread::sleep(POLL);
        }
        signals.handle().close();
        first.map(|(number, _)| number)
    });
    Ok(Forwarder { done, thread })
}

impl Forwarder {
    /// Stops forwarding; yields the first signal forwarded, if any.
    pub fn stop(self) -> Option<i32> {
        self.done.store(true, Ordering::Release);
        self.thread.join().ok().flatten()
    }
}

/// Lowers the calling thread's scheduling priority as far as it goes (nice 19): the reading
/// of a copy of the output then runs on time the job leaves idle. On Linux the nice value is
/// a thread's own; elsewhere this lowers all of errata, which only passes output through.
pub fn yield_to_the_job() {
    // SAFETY: setpriority(2) changes a number the scheduler reads; no memory is involved.
    // Failure (not permitted) leaves the priority as it was, which is harmless.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
}

/// Waits for the child, then ends what it left running in its group.
pub fn wait(process: &mut Child, group: Group) -> io::Result<ExitStatus> {
    let status = process.wait()?;
    group.end(LEFTOVER_GRACE);
    Ok(status)
}

/// errata's own exit status for the child's: its code, or 128 + the signal that killed it.
pub fn exit_code(status: ExitStatus) -> u8 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, Some(signal)) => 128u8.wrapping_add(signal as u8),
        (None, None) => 1,
    }
}

/// How the child ended, in words: "exited with status 1", "was killed by SIGKILL".
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => {
            let name = Signal::try_from(signal)
                .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned());
            let core = if status.core_dumped() {
                " (core dumped)"
            } else {
                ""
            };
            format!("was killed by {name}{core}")
        }
        (None, None) => "ended".into(),
    }
}

/// The line a shell prints when a command it ran is killed by a signal (bash's wording, from
/// the C library's signal descriptions): the log a person would paste has it, so the
/// diagnosis reads it too. None for an exit, and for SIGINT (a shell prints nothing).
pub fn shell_report(status: ExitStatus) -> Option<String> {
    let words = match Signal::try_from(status.signal()?).ok()? {
        Signal::SIGKILL => "Killed",
        Signal::SIGABRT => "Aborted",
        Signal::SIGSEGV => "Segmentation fault",
        Signal::SIGBUS => "Bus error",
        Signal::SIGFPE => "Floating point exception",
        Signal::SIGILL => "Illegal instruction",
        Signal::SIGTERM => "Terminated",
        Signal::SIGHUP => "Hangup",
        _ => return None,
    };
    let core = if status.core_dumped() {
        " (core dumped)"
    } else {
        ""
    };
    Some(format!("{words}{core}"))
}
