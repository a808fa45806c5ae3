//! Tests of tracebacks: those a paste cut (above their frames, or after their last frame), and
//! what counts as their frames.

use super::*;

/// The texts of the error lines read in `log`.
fn error_texts(log: &str) -> Vec<String> {
    (read_log(log).error_lines.iter())
        .map(|l| l.text.clone())
        .collect()
}

/// A paste cut above a traceback's frames still holds a traceback: the `raise` statement
/// printed under the last frame is code, and the exception line below it is the failure.
#[test]
fn frames_without_their_header_are_a_traceback() {
    let log = "[...]\n  File \"/opt/lib/xformers/ops/fmha/dispatch.py\", line 76, in _run_priority_list\n    raise NotImplementedError(msg)\nNotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n";
    assert_eq!(
        error_texts(log),
        ["NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:"]
    );
    // Frames with no exception after them end at the next line, read as any other.
    let log =
        "  File \"/srv/train.py\", line 9, in main\n    step()\nepoch 3 done\nRuntimeError: boom\n";
    assert_eq!(error_texts(log), ["RuntimeError: boom"]);
}

/// A traceback cut right after its last frame's `raise` or `assert` statement: the statement
/// is all the log shows of the exception, and it is read as the error (Python's markers under
/// it change nothing). A `raise` in an earlier frame is code as ever.
#[test]
fn a_cut_tracebacks_last_raise_stands_for_its_exception() {
    let frames = "Traceback (most recent call last):\n  File \"/usr/lib/python3.8/multiprocessing/reduction.py\", line 164, in recvfds\n    raise RuntimeError('received %d items of ancdata' %\n";
    assert_eq!(
        error_texts(frames),
        ["raise RuntimeError('received %d items of ancdata' %"]
    );
    let asserted = "[...]\n  File \"/opt/ds/zero/partition_parameters.py\", line 284, in free_param\n    assert not param.ds_active_sub_modules, param.ds_summary()\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n";
    assert_eq!(
        error_texts(asserted),
        ["assert not param.ds_active_sub_modules, param.ds_summary()"]
    );
    let deeper =
        format!("{frames}  File \"/srv/io.py\", line 3, in read\n    data = sock.recv(8)\n");
    assert!(error_texts(&deeper).iter().all(|t| !t.starts_with("raise")));
}

/// A `raise` statement counts only while its traceback is the one the log ends in: once the
/// exception line came, a chained traceback cut after its header does not bring it back.
#[test]
fn a_raise_whose_exception_came_is_no_cut_error() {
    let log = "Traceback (most recent call last):\n  File \"/srv/io.py\", line 3, in read\n    raise KeyError('k')\nKeyError: 'k'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n";
    assert_eq!(error_texts(log), ["KeyError: 'k'"]);
}

/// Frames whose header was cut, then a whole traceback: the header opens a traceback of its
/// own, and the frames' cues wait for an exception line like any traceback's.
#[test]
fn cut_frames_then_a_whole_traceback() {
    let log = "[...]\n  File \"/srv/a.py\", line 1, in f\n    g()\nTraceback (most recent call last):\n  File \"/srv/b.py\", line 2, in h\n    k()\nValueError: bad value\n";
    assert_eq!(error_texts(log), ["ValueError: bad value"]);
}

/// `errata watch` counts a traceback's last `raise` as an error found while it is the last
/// line; once the exception line comes, that line is the error instead.
#[test]
fn a_cut_raise_counts_for_watch_until_its_exception_comes() {
    let mut reader = LogReader::default();
    reader.line("Traceback (most recent call last):");
    reader.line("  File \"/srv/io.py\", line 3, in read");
    reader.line("    raise RuntimeError('disk gone')");
    assert_eq!(reader.errors_found(), 1);
    let so_far = reader.snapshot();
    assert_eq!(
        so_far.error_lines[0].text,
        "raise RuntimeError('disk gone')"
    );
    reader.line("RuntimeError: disk gone");
    assert_eq!(reader.errors_found(), 1);
    let texts: Vec<String> = (reader.finish().error_lines.iter())
        .map(|l| l.text.clone())
        .collect();
    assert_eq!(texts, ["RuntimeError: disk gone"]);
}

/// A traceback's exception line is its message, not a frame: a function it names (`while
/// checking arguments for cudnn_convolution`) is no frame cue, where the same name in a frame is.
#[test]
fn a_frame_cue_in_the_exception_line_is_not_in_a_frame() {
    use super::cues::{CueKind, CueSet};
    let cues = CueSet::new(&[("cudnn_convolution".to_owned(), CueKind::Frame)]);
    let message = "RuntimeError: Expected tensor for argument #1 'input' to have the same type as tensor for argument #2 'weight' (while checking arguments for cudnn_convolution)\n";
    let log = format!("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    y = conv(x)\n{message}");
    let report = read_log_with(&log, LogReader::watching(&cues));
    assert!(report.cue_hits.is_empty(), "{report:?}");
    let framed = format!("Traceback (most recent call last):\n  File \"x/conv.py\", line 9, in cudnn_convolution\n{message}");
    let report = read_log_with(&framed, LogReader::watching(&cues));
    assert_eq!(report.cue_hits.len(), 1, "{report:?}");
}
