//! Tests of the log reader: cleaning, classifying, and whole logs.

use super::clean::is_level;
use super::*;

/// Found by the log_reader fuzz target: a glog-like level followed by a multi-byte
/// character sliced the string inside that character.
#[test]
fn glog_level_check_respects_char_boundaries() {
    assert!(!is_level("I12\u{20ac}"));
    assert!(is_level("I1201"));
    let report = read_log("I12\u{20ac} 10:00:00 worker.py:1] RuntimeError: boom\n");
    assert_eq!(report.lines_read, 1);
}

fn clean(s: &str) -> Option<(String, Option<u32>)> {
    clean_line(s).map(|l| (l.text, l.rank))
}

#[test]
fn strips_ansi_and_lost_escapes() {
    assert_eq!(
        clean("\u{1b}[31mRuntimeError\u{1b}[0m: boom").unwrap().0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean("[1;31mRuntimeError[0m: boom").unwrap().0,
        "RuntimeError: boom"
    );
}

#[test]
fn strips_timestamps() {
    for s in [
        "2024-03-01 12:00:01,123 RuntimeError: boom",
        "2024-03-01T12:00:01.123Z RuntimeError: boom",
        "[2024-03-01 12:00:01,123] RuntimeError: boom",
        "12:00:01 | RuntimeError: boom",
        "I0301 12:00:01.123456 4242 trainer.cc:10] RuntimeError: boom",
    ] {
        assert_eq!(clean(s).unwrap().0, "RuntimeError: boom", "{s}");
    }
}

#[test]
fn strips_rank_and_host_prefixes() {
    assert_eq!(
        clean("[rank3]: RuntimeError: boom").unwrap(),
        ("RuntimeError: boom".into(), Some(3))
    );
    assert_eq!(
        clean("[default5]:RuntimeError: boom").unwrap(),
        ("RuntimeError: boom".into(), Some(5))
    );
    assert_eq!(
        clean("[1,7]<stderr>:RuntimeError: boom").unwrap(),
        ("RuntimeError: boom".into(), Some(7))
    );
    assert_eq!(
        clean("[1,mpirank:3,algo-2]<stdout>: RuntimeError: boom").unwrap(),
        ("RuntimeError: boom".into(), Some(3))
    );
    assert_eq!(
        clean("worker-03: RuntimeError: boom").unwrap().0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean("10.40.8.11: [rank9]: RuntimeError: boom").unwrap(),
        ("RuntimeError: boom".into(), Some(9))
    );
    assert_eq!(
        clean("10.40.8.11: │ /srv/train.py:353 in <module>     │")
            .unwrap()
            .0,
        "/srv/train.py:353 in <module>"
    );
    assert_eq!(
        clean("10.40.8: RuntimeError: boom").unwrap().0,
        "10.40.8: RuntimeError: boom"
    );
    assert_eq!(
        clean("gpu-node-1:4242:4300 [2] NCCL WARN Call to connect failed").unwrap(),
        ("NCCL WARN Call to connect failed".into(), Some(2))
    );
    assert_eq!(clean("RuntimeError: boom").unwrap().0, "RuntimeError: boom");
    assert_eq!(
        clean("[2024-03-01 12:00:01,123] [INFO] [launch.py:12:main] RuntimeError: boom")
            .unwrap()
            .0,
        "RuntimeError: boom"
    );
}

#[test]
fn strips_quotes_boxes_and_bars() {
    assert_eq!(
        clean("> > RuntimeError: boom").unwrap().0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean("│ RuntimeError: boom                │").unwrap().0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean("╭──────── Traceback ────────╮").unwrap().0,
        "Traceback"
    );
    assert_eq!(
        clean(" 45%|████▌     | 45/100 [00:10<00:12,  4.50it/s]RuntimeError: boom")
            .unwrap()
            .0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean(" 45%|████▌     | 45/100 [00:10<00:12,  4.50it/s]"),
        None
    );
    assert_eq!(clean("```"), None);
}

#[test]
fn quoted_and_prefixed_tracebacks() {
    let log = "> Traceback (most recent call last):\n>   File \"a.py\", line 1, in <module>\n>     f()\n> RuntimeError: quoted boom\n";
    assert_eq!(
        read_log(log).error_lines[0].text,
        "RuntimeError: quoted boom"
    );
    let log = "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"a.py\", line 1\n[rank1]:     f()\n[rank1]: torch.distributed.DistBackendError: NCCL error\n[rank1]: ncclInternalError: Internal check failed.\n";
    let lines: Vec<(String, LineKind)> = read_log(log)
        .error_lines
        .into_iter()
        .map(|e| (e.text, e.kind))
        .collect();
    assert_eq!(
        lines[0],
        (
            "torch.distributed.DistBackendError: NCCL error".into(),
            LineKind::Exception
        )
    );
    assert_eq!(lines[1].0, "ncclInternalError: Internal check failed.");
}

#[test]
fn ipython_tracebacks() {
    let log = "RuntimeError    Traceback (most recent call last)\nCell In[3], line 9\n      7 x = 1\n---------> 9 f()\n\nFile ~/lib.py:12, in f()\n     11 def f():\n---> 12     raise RuntimeError(\"boom\")\n\nRuntimeError: boom\n";
    let report = read_log(log);
    assert_eq!(report.error_lines.len(), 1, "{report:?}");
    assert_eq!(report.error_lines[0].text, "RuntimeError: boom");
}

/// Before 7.0, IPython named each frame by its path and function on one line, at the header's
/// indent: a frame, not the failure.
#[test]
fn old_ipython_frames_are_frames() {
    let log = "ResourceExhaustedError    Traceback (most recent call last)\n/opt/py36/lib/python3.6/site-packages/tensorflow/python/client/session.py in _do_call(self, fn, *args)\n   1355     try:\n-> 1356       return fn(*args)\n\n/opt/py36/lib/python3.6/site-packages/tensorflow/python/client/session.py in _run_fn(feed_dict, fetch_list)\n-> 1341           options, feed_dict)\n\nResourceExhaustedError: OOM when allocating tensor with shape[16,112,112,147]\n";
    let report = read_log(log);
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["ResourceExhaustedError: OOM when allocating tensor with shape[16,112,112,147]"]
    );
}

/// `rich` draws a traceback in a box, each frame its file, line number and function, wrapped
/// when long (the function, or `in` and the function, on the next line), each source line
/// behind an arrow: all frames, and the failure is the exception line below the box.
#[test]
fn rich_tracebacks_frames_are_frames() {
    let log = "╭──── Traceback (most recent call last) ────╮\n│ /srv/proj/train.py:353 in <module>        │\n│                                            │\n│   352 if __name__ == \"__main__\":          │\n│ ❱ 353 │   main()                            │\n│                                            │\n│ /opt/venv/lib/python3.10/site-packages/transformers/trainer.py:1662 in │\n│ train                                      │\n│ /opt/venv/lib/python3.10/site-packages/click/core.py:1157 in __c │\n│ all__                                      │\n│ /opt/venv/lib/python3.10/site-packages/transformers/trainer.py:1731 │\n│ in _inner_training_loop                    │\n│ /opt/venv/lib/python3.10/site-packages/deepspeed/runtime/zero/partitioned_pa │\n│ ram_coordinator.py:203 in reset_step       │\n│ ❱ 1662 │   │   return inner_training_loop(  │\n│ /opt/venv/lib/python3.10/site-packages/deepspeed/runtime/config.py: │\n│ 891 in _batch_assertion                    │\n│ ❱ 891 │   │   │   f\"Check batch sizes\"     │\n╰────────────────────────────────────────────╯\nAssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 * 8 * 1\n";
    let report = read_log(log);
    let texts: Vec<&str> = report.error_lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with("AssertionError: Check batch"),
        "{texts:?}"
    );
}

/// Python 3.11 draws an exception group's traceback with bars down its left and separators
/// between its exceptions; the group's own line only announces them: the failure is the
/// exception inside.
#[test]
fn an_exception_groups_exception_is_the_failure() {
    let log = "  + Exception Group Traceback (most recent call last):\n  |   File \"/srv/app/serve.py\", line 88, in main\n  |     async with asyncio.TaskGroup() as tg:\n  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n    |   File \"/srv/app/engine.py\", line 41, in step\n    |     out = self.model(batch)\n    | RuntimeError: CUDA error: an illegal memory access was encountered\n    +------------------------------------\n";
    // As pasted, and quoted in a reply (`> ` before each line, then the bars).
    let quoted: String = log.lines().map(|l| format!("> {l}\n")).collect();
    for log in [log, quoted.as_str()] {
        let report = read_log(log);
        let lines: Vec<(&str, bool)> = (report.error_lines.iter())
            .map(|l| (l.text.as_str(), l.collateral))
            .collect();
        assert_eq!(
            lines,
            [
                (
                    "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
                    true
                ),
                (
                    "RuntimeError: CUDA error: an illegal memory access was encountered",
                    false
                )
            ],
            "{log}"
        );
    }
}

/// `logging.error(traceback.format_exc())` puts the record's head before the traceback's
/// header only: a level and a logger's name are no message of their own.
#[test]
fn a_log_records_head_before_a_traceback_is_no_failure() {
    for head in [
        "ERROR:root:",
        "[2024-05-01 10:00:00,123][__main__][ERROR] - ",
    ] {
        let log = format!("step 3\n{head}Traceback (most recent call last):\n  File \"/srv/train.py\", line 20, in <module>\n    main()\nRuntimeError: boom\n");
        let texts: Vec<String> = (read_log(&log).error_lines.iter())
            .map(|l| l.text.clone())
            .collect();
        assert_eq!(texts, ["RuntimeError: boom"], "{head}");
    }
    let log = "ERROR: training failed, see below: Traceback (most recent call last):\n  File \"/srv/train.py\", line 20, in <module>\nRuntimeError: boom\n";
    assert_eq!(read_log(log).error_lines.len(), 2);
}

#[test]
fn ipython_header_stands_in_for_a_cut_traceback() {
    let log =
        "XlaRuntimeError    Traceback (most recent call last)\nCell In[3], line 9\n----> 9 f()\n";
    let report = read_log(log);
    assert_eq!(report.error_lines.len(), 1);
    assert_eq!(
        (
            report.error_lines[0].line,
            report.error_lines[0].text.as_str()
        ),
        (1, "XlaRuntimeError")
    );
}

#[test]
fn final_exception_line_of_traceback() {
    let log = "step 1\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    loss.backward()\nRuntimeError: boom happened\nstep 2\n";
    let report = read_log(log);
    assert_eq!(report.lines_read, 6);
    assert_eq!(report.error_lines.len(), 1);
    assert_eq!(report.error_lines[0].line, 5);
    assert_eq!(report.error_lines[0].kind, LineKind::Exception);
}

#[test]
fn folds_repeats_across_ranks() {
    let log: String = (0..64).map(|r| format!("[rank{r}]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1234, unhandled system error\n")).collect();
    let report = read_log(&log);
    assert_eq!(report.error_lines.len(), 1);
    assert_eq!(report.error_lines[0].count, 64);
    assert_eq!(report.error_lines[0].ranks.len(), 64);
}

#[test]
fn marks_collateral_after_the_first_error() {
    let log = "[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n[rank0]: [E ProcessGroupNCCL.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n";
    let report = read_log(log);
    let kinds: Vec<(usize, bool)> = report
        .error_lines
        .iter()
        .map(|e| (e.line, e.collateral))
        .collect();
    assert_eq!(kinds, [(1, false), (2, true), (3, true)]);
}

#[test]
fn classifies() {
    assert_eq!(classify("Killed"), Some(LineKind::Error));
    assert_eq!(
        classify("{'loss': nan, 'grad_norm': nan, 'epoch': 0.1}"),
        Some(LineKind::Error)
    );
    assert_eq!(classify("UserWarning: something"), Some(LineKind::Warning));
    assert_eq!(classify("epoch 1 loss 0.25"), None);
    assert_eq!(classify("Information: infinite patience"), None);
    assert_eq!(
        classify("Your session crashed after using all available RAM."),
        Some(LineKind::Error)
    );
    assert_eq!(classify("restarting crashed workers: 0 of 4"), None);
    assert_eq!(classify("frame #3: c10::Error::Error() + 0x1"), None);
    assert_eq!(
        classify("_pickle.UnpicklingError: Weights only load failed."),
        Some(LineKind::Exception)
    );
}

#[test]
fn counts_lines_like_an_editor() {
    assert_eq!(read_log("").lines_read, 0);
    assert_eq!(read_log("a\nb\nc\n").lines_read, 3);
    assert_eq!(read_log("a\nb\nc").lines_read, 3);
    assert_eq!(read_log("\n").lines_read, 1);
}

#[test]
fn plain_lines_stand_in_when_there_is_no_error_line() {
    let report = read_log("ok\nThe driver on this machine is too old for that toolkit\nstep 2\n");
    assert_eq!(report.error_lines.len(), 1);
    assert_eq!(report.error_lines[0].kind, LineKind::Context);
    assert_eq!(report.error_lines[0].line, 2);
}

/// Three ranks' tracebacks cut after an IPython header naming the same exception: the earliest
/// is kept, whatever the hash order (the reader used to drain a `HashMap`, whose order differs
/// from one map to the next, and kept the first it met).
#[test]
fn cut_headers_of_several_ranks_give_one_answer() {
    let log = "[rank3]: XlaRuntimeError    Traceback (most recent call last)\n[rank1]: XlaRuntimeError    Traceback (most recent call last)\n[rank2]: XlaRuntimeError    Traceback (most recent call last)\n[rank3]: Cell In[3], line 9\n";
    let first = read_log(log);
    assert_eq!(first.error_lines.len(), 1, "{first:?}");
    assert_eq!(
        (
            first.error_lines[0].line,
            first.error_lines[0].ranks.as_slice()
        ),
        (1, &[3][..])
    );
    for _ in 0..50 {
        assert_eq!(read_log(log), first);
    }
}

/// Reading a line at a time gives what reading the whole text gives.
#[test]
fn a_line_at_a_time_equals_the_whole_text() {
    let log = "step 1\n[rank0]: Traceback (most recent call last):\n[rank0]:   File \"a.py\", line 1\n[rank1]: RuntimeError: other\n[rank0]: RuntimeError: boom\r[rank0]: RuntimeError: boom again\n";
    let mut reader = LogReader::default();
    for line in log.lines() {
        reader.line(line);
    }
    assert_eq!(reader.finish(), read_log(log));
}

/// tqdm's postfix (`loss=nan`) is kept when the bar is dropped: it is where a run's loss shows.
#[test]
fn a_progress_bars_postfix_is_kept() {
    assert_eq!(
        clean("Epoch 0:   2%|▏   | 20/1000 [00:20<16:20,  1.00it/s, v_num=1, loss=[nan.0]]")
            .unwrap()
            .0,
        "v_num=1, loss=[nan.0]"
    );
    assert_eq!(
        classify("v_num=1, loss=[nan.0]"),
        Some(LineKind::Error),
        "a nan loss is an error line"
    );
}

/// Ray's and vLLM's worker prefixes and a date without its year are prefixes, not text.
#[test]
fn worker_prefixes_and_month_day_dates() {
    assert_eq!(
        clean("(VllmWorkerProcess pid=5120) ERROR 11-03 14:20:07 multiproc_worker_utils.py:240] RuntimeError: boom")
            .unwrap()
            .0,
        "RuntimeError: boom"
    );
    assert_eq!(
        clean("(RayWorker pid=12) RuntimeError: boom").unwrap().0,
        "RuntimeError: boom"
    );
}

/// Cues in a traceback count once its exception line shows it is not collateral; a traceback
/// cut before its exception line keeps them.
#[test]
fn cues_of_collateral_tracebacks_are_dropped() {
    use super::cues::{CueKind, CueSet};
    let cues = CueSet::new(&[
        ("launcher/api.py".to_owned(), CueKind::Frame),
        ("_inductor/".to_owned(), CueKind::Frame),
    ]);
    let log = "RuntimeError: first\nTraceback (most recent call last):\n  File \"x/launcher/api.py\", line 1\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError:\nTraceback (most recent call last):\n  File \"x/_inductor/y.py\", line 2\n";
    let report = read_log_with(log, LogReader::watching(&cues));
    let hits: Vec<usize> = report.cue_hits.iter().map(|h| h.cue).collect();
    assert_eq!(hits, [1], "{report:?}");
}

/// A logger's level is read from the prefix it strips: an ERROR record carries an error
/// whatever its words, an INFO record's routine message is at most a warning, and an INFO
/// record of a NaN loss stays an error.
#[test]
fn the_loggers_level_decides_what_a_line_is() {
    let report = read_log(
        "(VllmWorkerProcess pid=5120) ERROR 11-03 14:20:07 worker_base.py:412] Worker init_device failed on this node\n\
         [2023-10-18 06:02:18,170] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536\n\
         2024-05-01 10:00:00,000 - INFO - step 12 loss=nan grad_norm=inf\n",
    );
    let kinds: Vec<LineKind> = report.error_lines.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        [LineKind::Error, LineKind::Warning, LineKind::Error],
        "{:#?}",
        report.error_lines
    );
    // Without its ERROR prefix the first line carries no error at all.
    let plain = read_log("Worker init_device failed on this node\n");
    assert!(plain
        .error_lines
        .iter()
        .all(|l| l.kind == LineKind::Context));
}

/// A traceback relayed inside another program's output (pip's) is indented as a whole: its
/// exception line is as deep as its header, not deeper.
#[test]
fn an_indented_traceback_ends_at_its_own_depth() {
    let report = read_log(
        "  error: subprocess-exited-with-error\n      Traceback (most recent call last):\n        File \"setup.py\", line 100, in <module>\n          build()\n      op_builder.builder.MissingCUDAException: CUDA_HOME does not exist\n      [end of output]\n",
    );
    assert!(
        report
            .error_lines
            .iter()
            .any(|l| l.kind == LineKind::Exception
                && l.text == "op_builder.builder.MissingCUDAException: CUDA_HOME does not exist"),
        "{:#?}",
        report.error_lines
    );
}

/// A line over the length kept loses its middle, not its end, where the verdict often is.
#[test]
fn a_long_line_keeps_its_end() {
    let args = "'--flag=value', ".repeat(300);
    let line = format!(
        "subprocess.CalledProcessError: Command '[{args}]' died with <Signals.SIGKILL: 9>."
    );
    let text = clean_line(&line).unwrap().text;
    assert!(text.len() <= 2_000, "{}", text.len());
    assert!(text.starts_with("subprocess.CalledProcessError: Command"));
    assert!(text.ends_with("died with <Signals.SIGKILL: 9>."), "{text}");
    assert!(text.contains(" … "));
}

/// `errata watch` diagnoses a log while it grows: a snapshot is what finishing there would
/// give, reading goes on after it, and the count of errors found only grows.
#[test]
fn a_snapshot_is_the_report_so_far_and_reading_goes_on() {
    let mut reader = LogReader::default();
    reader.line("step 1 loss 2.0");
    assert_eq!(reader.errors_found(), 0);
    reader.line("Traceback (most recent call last):");
    reader.line("  File \"train.py\", line 3, in <module>");
    // Inside a traceback: its exception line has not come yet.
    assert_eq!(reader.errors_found(), 0);
    reader.line("RuntimeError: CUDA error: an illegal memory access was encountered");
    let so_far = reader.snapshot();
    assert_eq!(reader.errors_found(), 1);
    assert_eq!(so_far.error_lines.len(), 1);
    reader.line("[rank1]: NCCL error: unhandled cuda error");
    assert_eq!(reader.errors_found(), 2);
    let whole = reader.finish();
    assert_eq!(whole.error_lines[0], so_far.error_lines[0]);
    assert_eq!(whole.error_lines.len(), 2);
}

#[test]
fn memory_stays_bounded_with_endless_headers_and_ranks() {
    use super::reader::MAX_RANKS;
    // One rank starting traceback after traceback, each naming another exception.
    let mut reader = LogReader::default();
    for i in 0..30_000 {
        reader.line(&format!("Error{i}    Traceback (most recent call last)"));
    }
    assert!(
        reader.errors_found() <= MAX_ERROR_LINES + 1,
        "{}",
        reader.errors_found()
    );
    // A header on each of more ranks than are kept apart.
    let mut reader = LogReader::default();
    for i in 0..30_000 {
        reader.line(&format!(
            "[rank{i}]: Error    Traceback (most recent call last)"
        ));
    }
    // Each kept rank waits for its exception, the rest share one state, and one header
    // per exception name is kept.
    assert!(
        reader.errors_found() <= MAX_RANKS + 2,
        "{}",
        reader.errors_found()
    );
}

/// IPython shortens its arrow as line numbers grow wider (`---->`, `-->`, `->`): each is a
/// frame's current line, not an error line, however its code reads.
#[test]
fn ipython_arrows_of_every_width_are_frames() {
    for line in [
        "----> 3 metrics = m.fit(df)",
        "--> 284 trainer.restore(ckpt_path)",
        "-> 1470 raise pickle.UnpicklingError(_get_wo_message(str(e))) from None",
    ] {
        assert!(frame::is_frame(line), "{line}");
        assert_eq!(classify(line), None, "{line}");
    }
    assert!(!frame::is_frame("-> see the docs"));
}

/// A NaN or Inf is a failing loss when it is the value of a loss, norm or gradient named just
/// before it; a configuration that prints `inf` for another setting is not.
#[test]
fn a_nan_must_be_the_value_of_a_loss() {
    for line in [
        "step 120 loss nan",
        "grad_norm: inf",
        "Loss is NaN at step 1200, stopping training",
        "{'loss': nan, 'grad_norm': nan, 'epoch': 0.1}",
    ] {
        assert_eq!(classify(line), Some(LineKind::Error), "{line}");
    }
    assert_eq!(
        classify("ds_config: {'gradient_accumulation_steps': 1, 'gradient_clipping': 1.0, 'steps_per_print': inf}"),
        None
    );
}

/// A container's logger that relays a job's output prints every line at INFO and drops the
/// indentation: the inner prefix's level is the line's, and a frame's source line stays one.
#[test]
fn a_relayed_log_keeps_its_own_levels_and_frames() {
    let relay = "I0201 18:09:47.885410 1402 run_docker.py:247]";
    let log = [
        "I0201 09:02:11.401877 1400 run.py:161] Predicting target_7",
        "2022-02-01 09:09:47.884911: E external/xla/client.cc:2085] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 37274034432 bytes.",
        "Traceback (most recent call last):",
        "File \"/app/run.py\", line 427, in <module>",
        "app.run(main)",
        "File \"/app/model.py\", line 167, in predict",
        "result = self.apply(self.params, feat)",
        "RuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 37274034432 bytes.",
    ]
    .map(|l| format!("{relay} {l}\n"))
    .concat();
    let lines = read_log(&log).error_lines;
    let texts: Vec<(&str, LineKind)> = lines.iter().map(|l| (l.text.as_str(), l.kind)).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0]
        .0
        .starts_with("external/xla/client.cc:2085] Execution of replica 0"));
    assert_eq!(texts[0].1, LineKind::Error);
    assert!(texts[1].0.starts_with("RuntimeError: RESOURCE_EXHAUSTED"));
    assert_eq!(texts[1].1, LineKind::Exception);
    assert!(lines[1].context.contains("result = self.apply"));
    // A source location names a function, not a level: the logger's own ERROR stands.
    let located = read_log("[2023-10-18 06:02:18,170] [ERROR] [engine.py:120:info] step failed\n");
    assert_eq!(located.error_lines[0].kind, LineKind::Error);
}

/// Ranks that print their tracebacks at once leave Python's markers stuck to the message; the
/// message is read without them, and a line of markers alone is still no line.
#[test]
fn a_message_among_caret_markers_is_read() {
    assert_eq!(
        clean("^^^:    ^^CUDA error: invalid device ordinal")
            .unwrap()
            .0,
        "CUDA error: invalid device ordinal"
    );
    assert_eq!(clean("    ^^^^^^^^^^^^^^"), None);
    assert_eq!(clean("~~~~^^^^^~~~"), None);
    assert_eq!(
        clean("2^31 - 1 is the limit").unwrap().0,
        "2^31 - 1 is the limit"
    );
    let report = read_log("  File \"gen.py\", line 92, in build\n    torch.cuda.set_device(local_rank)\n   ^^  ^ ^^  ^^^  ^^^^^RuntimeError  ^ ^\n^^^:    ^^CUDA error: invalid device ordinal\n");
    assert!(
        report
            .error_lines
            .iter()
            .any(|l| l.text == "CUDA error: invalid device ordinal"),
        "{report:#?}"
    );
}
