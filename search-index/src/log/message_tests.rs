//! Tests of how the log reader finds an exception's message: on the lines after it, on the
//! line its traceback starts on, or with the whole traceback flattened onto one line.

use super::*;

/// vLLM logs a worker's exception as one line ending in the traceback it prints: the message
/// before `Traceback` is a line of its own, even when the traceback is cut.
#[test]
fn a_message_that_ends_in_a_traceback_is_read() {
    let report = read_log(
        "(VllmWorkerProcess pid=5121) ERROR 11-03 14:20:08 multiproc_worker_utils.py:240] Exception in worker VllmWorkerProcess while processing method load_model: Cannot re-initialize CUDA in forked subprocess, Traceback (most recent call last):\n\
         (VllmWorkerProcess pid=5121) ERROR 11-03 14:20:08 multiproc_worker_utils.py:240]   File \"/srv/llm/vllm/worker/model_runner.py\", line 88, in load_model\n",
    );
    let first = &report.error_lines[0];
    assert!(
        first
            .text
            .ends_with("Cannot re-initialize CUDA in forked subprocess"),
        "{first:?}"
    );
    assert_eq!(first.kind, LineKind::Error);
}

/// `RuntimeError:` with its message on the next, indented lines (a multi-line message).
#[test]
fn an_empty_exception_takes_its_message_from_the_next_line() {
    let report = read_log(
        "Traceback (most recent call last):\n  File \"save.py\", line 3, in <module>\n    save_file(t)\nRuntimeError:\n            Some tensors share memory, this will lead to duplicate memory on disk\n\nstep 26 done\n",
    );
    let exception = report
        .error_lines
        .iter()
        .find(|l| l.kind == LineKind::Exception)
        .expect("the exception line");
    assert_eq!(
        exception.text,
        "RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk"
    );
    // At the end of a log, the exception line is kept alone.
    let alone =
        read_log("Traceback (most recent call last):\n  File \"a.py\", line 1\nRuntimeError:\n");
    assert_eq!(alone.error_lines[0].text, "RuntimeError:");
}

/// The plain lines right after an exception line are kept apart as its possible continuation,
/// at most three and only of its own rank; the line itself is unchanged.
#[test]
fn the_lines_after_an_exception_may_continue_its_message() {
    let report = read_log(
        "RuntimeError: CUDA out of memory. Tried to allocate 7.31 GiB
(GPU 0; 11.92 GiB total capacity; 307.86 MiB already allocated; 4.36 GiB free; 6.80 GiB cached)
one
two
three
",
    );
    let e = &report.error_lines[0];
    assert_eq!(
        e.text,
        "RuntimeError: CUDA out of memory. Tried to allocate 7.31 GiB"
    );
    assert_eq!(
        e.continued,
        "(GPU 0; 11.92 GiB total capacity; 307.86 MiB already allocated; 4.36 GiB free; 6.80 GiB cached) one two"
    );
    assert!(e.with_continuation().ends_with("cached) one two"));
    // Another rank's line, or an error line, is not a continuation.
    let report = read_log(
        "[rank0]: ValueError: bad value
[rank1]: step 10 loss 2.0
[rank0]: RuntimeError: another
",
    );
    assert_eq!(report.error_lines[0].continued, "");
}

/// An error line that ends by announcing the lines below it (xformers' reasons an attention
/// operator cannot run) is continued by them, as an exception is; one that says all it has to
/// say is not.
#[test]
fn an_error_line_ending_in_a_colon_is_continued() {
    let report = read_log(
        "`cutlassF-pt` is not supported because:
    bf16 is only supported on A100+ GPUs
",
    );
    let e = &report.error_lines[0];
    assert_eq!(e.continued, "bf16 is only supported on A100+ GPUs");
    assert_eq!(e.continuation.len(), 1);
    let report = read_log(
        "`cutlassF-pt` is not supported on this device
    bf16 is only supported on A100+ GPUs
",
    );
    assert_eq!(report.error_lines[0].continued, "");
}

/// A traceback that a paste flattened onto one line still yields its exception line, with its
/// frames as the context; a plain traceback header is unchanged.
#[test]
fn a_traceback_on_one_line_is_read() {
    let report = read_log(
        "Evaluating on the test split\nTraceback (most recent call last): File \"test.py\", line 138, in <module> out = model.beam_search(x, beam_size=5) File \"/work/models/captioning.py\", line 151, in beam_search logprob, idx = torch.sort(seq_logprob.view(b_s, -1), -1) RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.\n",
    );
    assert_eq!(report.error_lines.len(), 1, "{report:#?}");
    let e = &report.error_lines[0];
    assert_eq!(e.kind, LineKind::Exception);
    assert!(
        e.text
            .starts_with("RuntimeError: view size is not compatible"),
        "{}",
        e.text
    );
    assert!(e.context.contains("in beam_search"), "{}", e.context);
    let report = read_log("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: boom\n");
    assert_eq!(report.error_lines[0].text, "ValueError: boom");
}

/// An exception's name alone outside a traceback, its message on the next lines (Python prints
/// a message that begins with a newline so): the message is joined to it.
#[test]
fn a_message_that_begins_with_a_newline_is_joined_to_its_exception() {
    let report = read_log(
        "RuntimeError: 
            Some tensors share memory, this will lead to duplicate memory on disk
            A potential way to correctly save your model is to use `save_model`.
",
    );
    let e = &report.error_lines[0];
    assert_eq!(e.kind, LineKind::Exception);
    assert_eq!(
        e.text,
        "RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk"
    );
}

/// A message printed on the line a traceback starts on, with no error mark of its own (a tool's
/// result printed as a dict, its traceback escaped inside it), is kept as a plain line: with no
/// error line in the log, it stands in.
#[test]
fn a_message_before_a_traceback_on_its_line_stands_in() {
    let report = read_log(
        "$ python rl_quickstart.py
{'status': 'error', 'message': 'op failed: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for \\'BFloat16\\'', 'traceback': 'Traceback (most recent call last):\\n  File \"tool.py\", line 119, in run\\n    return self._handle_train(parameters)\\n  Fil
",
    );
    assert!(
        (report.error_lines.iter())
            .any(|l| l.kind == LineKind::Context && l.text.contains("not implemented for")),
        "{:#?}",
        report.error_lines
    );
}

/// glog's thread id and source line after the level (`E     374 tensorflow/x.cc:1010] ...`, as
/// TensorFlow's and XLA's C++ logs print them) are a prefix: the message after them is read, an
/// error by its level.
#[test]
fn a_glog_thread_id_and_source_line_are_a_prefix() {
    let report = read_log("2021-07-02 01:00:00.000000: E     374 tensorflow/stream_executor/cuda/cuda_driver.cc:1010] failed to synchronize the stop event: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n");
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["failed to synchronize the stop event: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"],
        "{report:?}"
    );
}

/// torch's own records (since 2.4) are glog's shape with a Python file, and their level is
/// glog's: an `E` record is an error whatever its words, as a logger's `ERROR` record is; the
/// `.py:` of the file does not make the head a source location (`[engine.py:120:error]`).
#[test]
fn a_glog_record_from_a_python_file_keeps_its_level() {
    let report = read_log("W0501 10:00:00.100000 140 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default\nE0501 10:05:00.123000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python3\n");
    let lines: Vec<(&str, LineKind)> = (report.error_lines.iter())
        .map(|l| (l.text.as_str(), l.kind))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default",
                LineKind::Warning
            ),
            (
                "failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python3",
                LineKind::Error
            ),
        ],
        "{report:?}"
    );
}

/// A record its logger leveled a warning is a warning, whatever words it holds, as an INFO
/// record is: torch's `W ... redirects.py:29] NOTE: Redirects are currently not supported in
/// Windows or MacOs.`, printed at every launch there, had been the first failure of the log
/// for its `not supported`. An exception line keeps its kind.
#[test]
fn a_warning_record_with_an_error_word_is_a_warning() {
    let report = read_log("W0416 09:12:47.318000 21744 .venv\\Lib\\site-packages\\torch\\distributed\\elastic\\multiprocessing\\redirects.py:29] NOTE: Redirects are currently not supported in Windows or MacOs.\n[WARNING] cuda kernel failed to compile, falling back\nstep 1 loss 2.3\nValueError: bad value for x\n");
    let kinds: Vec<LineKind> = report.error_lines.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        [LineKind::Warning, LineKind::Warning, LineKind::Exception],
        "{report:?}"
    );
}
