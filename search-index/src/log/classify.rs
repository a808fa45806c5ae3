//! What a cleaned line of a log is: an exception, another error, a warning, a traceback frame
//! ([`super::frame`]), or a consequence of an earlier error.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use super::clean::Level;
use super::frame::is_frame;
use super::LineKind;

/// Markers of a line that carries an error, most specific first. Checked on the cleaned line;
/// a line that begins with the word `Error` (`Error while creating shared memory segment ...`,
/// NCCL's warning without its prefix) carries one too.
pub const ERROR_MARKERS: [&str; 51] = [
    "Error:",
    "Error(",
    "Exception:",
    "error:",
    "ERROR",
    "CUDA error",
    "NCCL WARN",
    "NCCL error",
    "ncclSystemError",
    "ncclInternalError",
    "ncclUnhandledCudaError",
    "ncclInvalidUsage",
    "ncclRemoteError",
    "Killed",
    "exitcode: -9",
    "exitcode : -9",
    "SIGKILL",
    "Signal 9",
    "OOMKilled",
    "exit code -9",
    "exit code 137",
    "exit status 137",
    "return code = -9",
    "Segmentation fault",
    // ROCm's HSA runtime, before it aborts the process: `Memory access fault by GPU node-2
    // (Agent handle: 0x...) on address 0x.... Reason: Page not present or supervisor privilege.`
    "Memory access fault by GPU",
    "core dumped",
    // A notebook's or a runner's own report that the process died (`Your session crashed
    // after using all available RAM.`); not `crashed` alone (`restarting crashed workers`).
    "session crashed",
    "kernel crashed",
    "process crashed",
    "has crashed",
    "Bus error",
    "Assertion",
    "assert",
    "Watchdog caught",
    "timed out",
    "Timeout",
    "out of memory",
    "Out of memory",
    "OOM",
    "overflow",
    "Overflow",
    "not supported",
    "undefined symbol",
    "No module named",
    "Missing key",
    "Unexpected key",
    "size mismatch",
    "Skipping step",
    // nvidia-smi's report of a GPU NVML can no longer open (`Unable to determine the device
    // handle for GPU0000:05:00.0: Unknown Error`), printed without an error mark.
    "Unable to determine the device handle",
    // The NVIDIA kernel driver's report of a GPU error in the kernel log (`NVRM: Xid
    // (PCI:0000:02:00): 79, pid=..., GPU has fallen off the bus.`), printed without an error
    // mark: an Xid is the driver's record of an error, the GPU's own or one a program caused.
    "NVRM: Xid",
    // The message of a C++ exception nothing caught, printed by the runtime after `terminate
    // called after throwing an instance of '...'`: ONNX Runtime's, XLA's and NCCL's aborts say
    // what failed only here.
    "what():",
];

/// How far before a `nan` or `inf` the word it is the value of may start (`loss=nan`,
/// `grad_norm: inf`, `Loss is NaN`), in bytes.
const NAN_VALUE_REACH: usize = 24;

/// Lines that mention a numeric failure: a loss or norm that is NaN or Inf. The value must be
/// the loss's, the norm's or the gradient's, close after its name: a configuration printed as
/// `{'gradient_clipping': 1.0, 'steps_per_print': inf}` has no infinite loss.
fn is_nan_line(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let named = |w: &str| lower.contains(w);
    let whole_word = |i: usize, w: &str| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + w.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    };
    let value_of_a_loss = |i: usize| {
        let mut start = i.saturating_sub(NAN_VALUE_REACH);
        while !lower.is_char_boundary(start) {
            start -= 1;
        }
        ["loss", "grad", "norm"]
            .iter()
            .any(|w| lower[start..i].contains(w))
    };
    let nan_value = ["nan", "inf"]
        .iter()
        .any(|w| (lower.match_indices(w)).any(|(i, _)| whole_word(i, w) && value_of_a_loss(i)));
    nan_value
        || (named("non-finite") && (named("loss") || named("grad") || named("norm")))
        || named("nan values")
}

/// The kind of a line outside a traceback, if it carries an error.
pub fn classify(text: &str) -> Option<LineKind> {
    if text.starts_with("Exception raised from") || text.starts_with("frame #") || is_frame(text) {
        return None;
    }
    if exception_head(text) {
        return Some(exception_kind(text));
    }
    if is_nan_line(text) {
        return Some(LineKind::Error);
    }
    if has_any_marker(text) || is_tool_diagnostic(text) || text.starts_with("Error ") {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("warning")
            || lower.contains("warning:")
            || lower.contains("userwarning")
            || lower.contains("futurewarning")
        {
            return Some(LineKind::Warning);
        }
        return Some(LineKind::Error);
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("warning") || lower.contains("warning:") {
        return Some(LineKind::Warning);
    }
    None
}

/// Whether `text` holds one of [`ERROR_MARKERS`], other than inside an environment variable's
/// setting (`HYDRA_FULL_ERROR=1`, `NCCL_ASYNC_ERROR_HANDLING=1`): a name that mentions errors is
/// not one. One automaton finds every marker in one pass (the reader asks this of every line).
fn has_any_marker(text: &str) -> bool {
    static MARKERS: OnceLock<AhoCorasick> = OnceLock::new();
    let markers = MARKERS.get_or_init(|| {
        AhoCorasick::new(ERROR_MARKERS).expect("the error markers build an automaton")
    });
    markers
        .find_overlapping_iter(text)
        .any(|m| !inside_a_setting(text, m.start()))
}

/// Whether the marker found at `at` is part of a setting's name (`NCCL_ASYNC_ERROR_HANDLING=1`).
fn inside_a_setting(text: &str, at: usize) -> bool {
    let name = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
    let start = text[..at].trim_end_matches(name).len();
    let end = at
        + text[at..]
            .find(|c: char| !name(c))
            .unwrap_or(text.len() - at);
    text[end..].starts_with('=') && text[start..end].contains('_')
}

/// A compiler driver's diagnostic: the tool's name, `fatal` or `error`, a colon after a space
/// (CUDA's tools pad the word: `ptxas fatal   : Value 'sm_110a' is not defined for option
/// 'gpu-name'`, `nvcc fatal   : Unsupported gpu architecture 'compute_89'`, `ptxas error   :
/// Entry function ... uses too much shared data`) and a message, which `error:` does not find.
/// A metric (`train error : 0.25`) is no message.
fn is_tool_diagnostic(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let (Some(tool), Some(severity), Some(":"), Some(message)) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return false;
    };
    let named =
        (tool.bytes()).all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b));
    named
        && matches!(severity, "fatal" | "error")
        && message.starts_with(|c: char| c.is_alphabetic() || c == '\'' || c == '`')
}

/// The kind of a line, given the level its logger's prefix named: an ERROR record carries an
/// error whatever its words (a worker's `Exception in worker ...`), a WARNING record a warning
/// (detectron2's `Skip loading parameter ...`); a WARNING, INFO or DEBUG record is at most a
/// warning whatever its words (torch's `NOTE: Redirects are currently not supported in Windows
/// or MacOs.`, DeepSpeed's routine `OVERFLOW! ... Skipping step`), unless it is an exception
/// line or a NaN loss, which trainers log at INFO.
pub fn classify_at(text: &str, level: Option<Level>, indented: bool) -> Option<LineKind> {
    let kind = classify(text);
    match level {
        Some(Level::Error)
            if kind.is_none()
                && !indented
                && !is_frame(text)
                && !text.starts_with("Exception raised from") =>
        {
            Some(LineKind::Error)
        }
        Some(Level::Warning) if kind.is_none() && !indented && !is_frame(text) => {
            Some(LineKind::Warning)
        }
        Some(Level::Info | Level::Warning)
            if kind == Some(LineKind::Error) && !is_nan_line(text) =>
        {
            Some(LineKind::Warning)
        }
        _ => kind,
    }
}

/// How the name of an exception class ends.
pub const EXCEPTION_ENDINGS: [&str; 8] = [
    "Error",
    "Exception",
    "Failed",
    "Interrupt",
    "Exit",
    "Warning",
    "Fault",
    "Failure",
];

/// `RuntimeError: ...`, `torch.OutOfMemoryError: ...`, `_pickle.UnpicklingError: ...`,
/// `torch._dynamo.exc.BackendCompilerFailed: ...`, `AssertionError`.
pub fn exception_head(text: &str) -> bool {
    let head_end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    let head = &text[..head_end];
    let follows = &text[head_end..];
    if head.is_empty() || !(follows.is_empty() || follows.starts_with(':')) {
        return false;
    }
    let last = head.rsplit('.').next().unwrap_or(head);
    EXCEPTION_ENDINGS
        .iter()
        .any(|s| last.ends_with(s) && last.len() > s.len())
        || matches!(last, "Error" | "Exception")
}

/// The exception a debugger's pop-up names on a line of its own, its message on the next:
/// VS Code's `Exception has occurred: RuntimeError` (or its translations, `发生异常:
/// RuntimeError`) copied from the pop-up. Yields the exception's name.
pub fn popup_exception(text: &str) -> Option<&str> {
    const MAX_PREFIX: usize = 40;
    let (prefix, name) = text.rsplit_once(": ")?;
    let plain_prefix = !prefix.is_empty()
        && prefix.chars().count() <= MAX_PREFIX
        && !prefix.contains(':')
        && !prefix.chars().any(|c| c.is_ascii_digit());
    let name = name.trim_end();
    (plain_prefix && !name.contains(' ') && exception_head(name) && !name.ends_with(':'))
        .then_some(name)
}

/// The exception line, outside a traceback, whose message is on the next line: a debugger's
/// pop-up ([`popup_exception`]), or the exception's name alone, as Python prints a message that
/// begins with a newline (`RuntimeError: ` then safetensors' indented message). Yields the
/// exception's name with its colon, to join the message to.
pub fn message_below(text: &str) -> Option<String> {
    if let Some(name) = popup_exception(text) {
        return Some(format!("{name}:"));
    }
    (text.ends_with(':') && exception_head(text)).then(|| text.to_owned())
}

/// Whether an error line ends by announcing the lines below it (xformers' `` `cutlassF` is not
/// supported because:`` over its reasons): they go on its message, as an exception's do.
pub fn announces_what_follows(text: &str) -> bool {
    text.trim_end().ends_with(':')
}

/// An exception line's kind: a warning's class is a warning.
pub fn exception_kind(text: &str) -> LineKind {
    if is_warning_class(text) {
        LineKind::Warning
    } else {
        LineKind::Exception
    }
}

pub fn is_warning_class(text: &str) -> bool {
    let head = text.split(':').next().unwrap_or(text);
    head.ends_with("Warning")
}

/// A launcher's report that a child process failed (torchrun's `ChildFailedError` and
/// `failed (exitcode: 1)`, DeepSpeed's `exits with return code`, srun's `error:` lines,
/// mpirun's and pdsh's summaries, a Kubeflow job's or a CI step's status): a consequence of
/// the child's own error, even where the log does not show that error. srun's report that a
/// task ran out of memory names the cause, and is no summary.
pub fn is_launcher_summary(text: &str) -> bool {
    const MARKERS: [&str; 27] = [
        "ChildFailedError",
        "terminated with exit code",
        "Root Cause (first observed failure)",
        "failed (exitcode",
        "Sending process",
        "closing signal SIGTERM",
        "elastic.multiprocessing",
        "exits with return code",
        "srun: error:",
        "SignalException",
        "exited on signal",
        "processes exited with non-zero status",
        "Per user-direction, the job has been aborted",
        "ssh exited with exit code",
        "replica(s) failed",
        "Process completed with exit code",
        // Ray Train's and the XLA coordination service's reports that a worker or task failed,
        // and the wrappers of Horovod and Lightning that stop the rest after it.
        "Training failed due to worker errors",
        "The Ray Train run failed",
        "another task died",
        "stopped sending heartbeats",
        "remote task has failed, got preempted, or crashed",
        "This was caused by an exception on one of the ranks",
        "Terminating remaining workers after failure of Process",
        "Forcefully terminating all other processes",
        // Ray's report that an actor's worker process died: the cause is in that worker's own
        // output, or in what killed it.
        "The actor died unexpectedly before finishing this task",
        "The actor is dead because its worker process has died",
        // PaddlePaddle's launcher, when one trainer exits non-zero: `ABORT!!! Out of all 4
        // trainers, the trainer process with rank=[1] was aborted. Please check its log.`
        "was aborted. Please check its log",
    ];
    MARKERS.iter().any(|m| text.contains(m))
        && !(text.contains("srun: error:") && text.contains("Out Of Memory"))
}

/// A message that only announces an exception printed after it: PyTorch re-raises a
/// worker's or a replica's exception as `Caught RuntimeError in DataLoader worker process 0.`
/// (or `in replica 1 on device 1`, `in pin memory thread for device 0`), then prints the
/// `Original Traceback` whose last line is the failure itself; Hydra writes `Error executing
/// job with overrides: [...]` (the job's command-line overrides, no error of their own) before
/// it re-raises the job's exception; TensorFlow's `ValueError: in user code:` heads the frames
/// of a traced function, under which the function's own error is printed indented; an
/// exception group (`... (2 sub-exceptions)`) is followed by each of its exceptions.
pub fn is_relay_of_what_follows(text: &str) -> bool {
    if text.starts_with("Error executing job with overrides:") {
        return true;
    }
    if exception_head(text) && text.ends_with(": in user code:") {
        return true;
    }
    // An exception group's own line: `ExceptionGroup: unhandled errors in a TaskGroup (1
    // sub-exception)`; its sub-exceptions' tracebacks follow it.
    let group = (text.split_whitespace().next()).is_some_and(|w| w.ends_with("ExceptionGroup:"));
    if group || exception_head(text) && text.ends_with(" sub-exceptions)") {
        return true;
    }
    const PLACES: [&str; 3] = [
        " in DataLoader worker process",
        " in replica ",
        " in pin memory thread",
    ];
    let Some(at) = text.find("Caught ") else {
        return false;
    };
    let rest = &text[at + "Caught ".len()..];
    let name = rest.find(' ').map_or(rest, |end| &rest[..end]);
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && PLACES.iter().any(|p| rest[name.len()..].starts_with(p))
}

/// Errors that follow from an earlier one: launcher summaries, aborts, other ranks' timeouts,
/// Slurm's `***` banner for a step it cancelled (after a failure, or at a time limit, which no
/// entry explains either way). Slurm's report that the step ran out of memory,
/// `slurmstepd: error: Detected 1 oom-kill event(s)`, says why the processes before it died.
pub fn is_collateral(text: &str) -> bool {
    const MARKERS: [&str; 10] = [
        "Some NCCL operations have failed or timed out",
        "To avoid data inconsistency",
        "NCCL communicator was aborted",
        "Watchdog caught collective operation timeout",
        "ProcessGroupNCCL's watchdog",
        "Received SIGTERM",
        "process group has been destroyed",
        "The server socket has failed to listen",
        "terminate called after throwing",
        "slurmstepd: error: ***",
    ];
    is_launcher_summary(text) || MARKERS.iter().any(|m| text.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::read_log;

    /// Slurm prints after the program's own output both why it stopped a step and that it
    /// cancelled it: only the cancellation follows from the failure.
    #[test]
    fn slurms_memory_report_explains_and_its_cancel_banner_follows() {
        let log = "RuntimeError: DataLoader worker (pid(s) 3418) exited unexpectedly\nslurmstepd: error: Detected 1 oom-kill event(s) in StepId=88.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.\nslurmstepd: error: *** STEP 88.0 ON node7 CANCELLED AT 2024-03-01T10:00:00 ***\n";
        let collateral: Vec<bool> = (read_log(log).error_lines.iter())
            .map(|l| l.collateral)
            .collect();
        assert_eq!(collateral, [false, false, true]);
    }

    #[test]
    fn a_re_raise_of_a_workers_exception_is_collateral_to_it() {
        for text in [
            "RuntimeError: Caught RuntimeError in DataLoader worker process 0.",
            "ValueError: Caught ValueError in replica 1 on device 1.",
            "RuntimeError: Caught RuntimeError in pin memory thread for device 0.",
            "Error executing job with overrides: ['trainer.devices=2', '+batch_size=1']",
            "ValueError: in user code:",
            "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
            "exceptiongroup.BaseExceptionGroup: multiple errors (2 sub-exceptions)",
        ] {
            assert!(is_relay_of_what_follows(text), "{text}");
        }
        for text in [
            "RuntimeError: DataLoader worker (pid(s) 8841) exited unexpectedly",
            "Caught signal 11 in worker",
            "ProcessGroupNCCL's watchdog caught collective operation timeout",
        ] {
            assert!(!is_relay_of_what_follows(text), "{text}");
        }
        let log = "Traceback (most recent call last):
  File \"train.py\", line 9, in <module>
    for batch in loader:
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File \"torch/utils/data/_utils/collate.py\", line 56, in default_collate
    return torch.stack(batch, 0, out=out)
RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [3, 256, 256] at entry 1
";
        let lines = read_log(log).error_lines;
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(lines[0].collateral, "{lines:#?}");
        assert!(!lines[1].collateral, "{lines:#?}");
        assert!(lines[1].context.contains("collate.py"), "{lines:#?}");
    }

    /// VS Code's exception pop-up, copied: the exception's name after the pop-up's words, its
    /// message on the next line; read as the exception line `RuntimeError: <message>`.
    #[test]
    fn a_debuggers_popup_names_the_exception_its_message_follows() {
        assert_eq!(
            popup_exception("Exception has occurred: RuntimeError"),
            Some("RuntimeError")
        );
        assert_eq!(
            popup_exception("发生异常: RuntimeError"),
            Some("RuntimeError")
        );
        for text in [
            "RuntimeError: CUDA error: out of memory",
            "epoch 3: ValueError",
            "loss: nan",
            "Exception has occurred: RuntimeError is raised",
        ] {
            assert_eq!(popup_exception(text), None, "{text}");
        }
        let log = "Exception has occurred: RuntimeError
mat1 and mat2 shapes cannot be multiplied (2708x7 and 256x256)
  File \"/srv/graph/models/edcoder.py\", line 246, in mask_attr_prediction
    rep = self.encoder_to_decoder(enc_rep)
";
        let lines = read_log(log).error_lines;
        assert_eq!(lines.len(), 1, "{lines:#?}");
        assert_eq!(
            lines[0].text,
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2708x7 and 256x256)"
        );
        assert_eq!(lines[0].line, 1);
    }

    #[test]
    fn a_compiler_drivers_padded_diagnostic_is_an_error_line() {
        for text in [
            "ptxas fatal   : Value 'sm_110a' is not defined for option 'gpu-name'",
            "ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'",
            "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
            "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 max)",
        ] {
            assert_eq!(classify(text), Some(LineKind::Error), "{text}");
        }
        for text in [
            "train error : 0.25",
            "ptxas info    : Used 32 registers",
            "Fatal : errors are reported at the end",
        ] {
            assert_eq!(classify(text), None, "{text}");
        }
    }

    /// nvidia-smi reports a GPU it cannot open, the kernel driver a GPU error (an Xid), and the
    /// C++ runtime an uncaught exception's message, without an error mark.
    #[test]
    fn nvidia_smis_lost_gpu_and_an_uncaught_exception_are_error_lines() {
        for text in [
            "Unable to determine the device handle for GPU0000:05:00.0: Unknown Error",
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=2314, name=python, GPU has fallen off the bus.",
            "  what():  Barrier timed out. Barrier_id: PjRT_Client_Connect",
        ] {
            assert_eq!(classify(text), Some(LineKind::Error), "{text}");
        }
        // The driver's other lines about a GPU are no errors.
        let serial = "NVRM: GPU Board Serial Number: 1234567890123";
        assert_eq!(classify(serial), None);
    }

    #[test]
    fn an_environment_variable_that_names_errors_is_no_error() {
        for text in [
            "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
            "export NCCL_ASYNC_ERROR_HANDLING=1",
        ] {
            assert_eq!(classify(text), None, "{text}");
        }
        for text in [
            "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "HYDRA_FULL_ERROR=1 ERROR while loading the config",
            "[ERROR] launch failed",
        ] {
            assert_eq!(classify(text), Some(LineKind::Error), "{text}");
        }
    }

    #[test]
    fn every_launchers_summary_is_one_and_a_named_cause_is_not() {
        for text in [
            "mpirun noticed that process rank 3 with PID 4121 on node gpu07 exited on signal 9 (Killed).",
            "mpirun detected that one or more processes exited with non-zero status, thus causing",
            "gpu07: ssh exited with exit code 1",
            "PyTorchJob train-llm is failed because 1 Worker replica(s) failed.",
            "Error: Process completed with exit code 1.",
            "srun: error: gpu07: task 3: Exited with exit code 1",
            "ray.train.v2.api.exceptions.WorkerGroupError: Training failed due to worker errors:",
            "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause.",
            "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
            "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.",
            "ABORT!!! Out of all 4 trainers, the trainer process with rank=[1] was aborted. Please check its log.",
        ] {
            assert!(is_launcher_summary(text), "{text}");
        }
        assert!(!is_launcher_summary(
            "srun: error: gpu07: task 0: Out Of Memory"
        ));
    }

    #[test]
    fn a_line_that_begins_with_the_word_error_carries_one() {
        let line = "Error while creating shared memory segment /dev/shm/nccl-Qm4TxW (size 7340384)";
        assert_eq!(classify(line), Some(LineKind::Error));
        assert_eq!(classify("Errors are logged to errors.txt"), None);
    }

    #[test]
    fn a_warning_record_is_a_warning_whatever_its_words() {
        let log = "WARNING [12/01 10:00:00 fvcore.common.checkpoint]: Skip loading parameter 'head.weight' to the model due to incompatible shapes: (81, 1024) in the checkpoint but (2, 1024) in the model!\n";
        let lines = read_log(log).error_lines;
        assert_eq!(lines.len(), 1, "{lines:#?}");
        assert_eq!(lines[0].kind, LineKind::Warning);
        assert!(lines[0].text.starts_with("Skip loading parameter"));
    }
}
