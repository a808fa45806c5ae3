//! Tests of tracebacks a paste cut: above their frames, or after their last frame.

use super::*;

/// A paste cut above a traceback's frames still holds a traceback: the `raise` statement
/// printed under the last frame is code, and the exception line below it is the failure.
#[test]
fn frames_without_their_header_are_a_traceback() {
    let log = "[...]\n  File \"/opt/lib/xformers/ops/fmha/dispatch.py\", line 76, in _run_priority_list\n    raise NotImplementedError(msg)\nNotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n";
    let report = read_log(log);
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:"]
    );
    // Frames with no exception after them end at the next line, read as any other.
    let report = read_log(
        "  File \"/srv/train.py\", line 9, in main\n    step()\nepoch 3 done\nRuntimeError: boom\n",
    );
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["RuntimeError: boom"]);
}

/// A traceback cut right after its last frame's `raise` or `assert` statement: the statement
/// is all the log shows of the exception, and it is read as the error. A `raise` in an earlier
/// frame is code as ever.
#[test]
fn a_cut_tracebacks_last_raise_stands_for_its_exception() {
    let frames = "Traceback (most recent call last):\n  File \"/usr/lib/python3.8/multiprocessing/reduction.py\", line 164, in recvfds\n    raise RuntimeError('received %d items of ancdata' %\n";
    let report = read_log(frames);
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["raise RuntimeError('received %d items of ancdata' %"]
    );
    let deeper =
        format!("{frames}  File \"/srv/io.py\", line 3, in read\n    data = sock.recv(8)\n");
    assert!(read_log(&deeper)
        .error_lines
        .iter()
        .all(|l| !l.text.starts_with("raise")));
}
