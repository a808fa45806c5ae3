//! Diagnosis evidence beyond the error line, on the real `content/` with logs the project
//! writes: frame and line cues, the defining words of a signature, a tqdm postfix that turns
//! `nan`, a process killed with SIGKILL, and the three outcomes. Out-of-memory failures are in
//! `memory.rs`.

use std::path::PathBuf;

use errata_search::diagnose::{Diagnosis, Outcome};
use errata_search::{diagnose, Searcher};

fn searcher() -> Searcher {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let checked = errata::pipeline::check(&root, false, None).expect("content/ checks");
    Searcher::from_documents(&errata::search::documents(&checked.site)).expect("indexes")
}

pub(crate) fn diagnosed(log: &str) -> Diagnosis {
    diagnose(&searcher(), log).expect("a sound index")
}

pub(crate) fn top(d: &Diagnosis) -> &str {
    d.entries.first().map_or("(nothing)", |e| e.slug.as_str())
}
/// A traceback cut before its last line: only the frames tell, and they are in Inductor.
#[test]
fn a_cut_traceback_is_read_from_its_frames() {
    let log = "step 120 loss 1.92
Traceback (most recent call last):
  File \"/opt/venv/lib/python3.11/site-packages/torch/_dynamo/output_graph.py\", line 1446, in _call_user_compiler
    compiled_fn = compiler_fn(gm, self.example_inputs())
  File \"/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py\", line 1312, in compile_fx
    return compile_fx_inner(
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "torch-compile-inductor-errors", "{d:#?}");
    assert_ne!(
        d.outcome,
        Outcome::Diagnosis,
        "frames alone are not a diagnosis"
    );
}

/// A launcher's traceback after the real error: its frames are collateral and point nowhere.
#[test]
fn a_launchers_traceback_adds_no_cue() {
    let log = "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered
Traceback (most recent call last):
  File \"/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py\", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "cuda-illegal-memory-access", "{d:#?}");
    assert_eq!(d.outcome, Outcome::Diagnosis);
    assert!(d.entries.iter().all(|e| e.cues.is_empty()), "{d:#?}");
}

/// `No module named 'wandb'` shares most words with `No module named 'flash_attn'`, but not the
/// one that makes that signature mean something: no diagnosis.
#[test]
fn a_signature_without_its_defining_word_is_no_diagnosis() {
    let d = diagnosed("ModuleNotFoundError: No module named 'wandb'\n");
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    let d = diagnosed("ModuleNotFoundError: No module named 'flash_attn'\n");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "flash-attention-build-errors");
}

/// A loss that turns `nan` in the postfix of a tqdm bar, with no error line at all.
#[test]
fn a_loss_that_turns_nan_in_a_progress_bar() {
    let log = "Epoch 0:   1%|          | 10/1000 [00:10<16:30,  1.00it/s, v_num=1, loss=2.310]
Epoch 0:   2%|▏         | 20/1000 [00:20<16:20,  1.00it/s, v_num=1, loss=[nan.0]]
Epoch 0:   3%|▎         | 30/1000 [00:30<16:10,  1.00it/s, v_num=1, loss=[nan.0]]
";
    let d = diagnosed(log);
    let nan_entries = [
        "loss-nan-mixed-precision",
        "fp16-gradient-overflow",
        "exploding-gradients",
    ];
    assert!(nan_entries.contains(&top(&d)), "{d:#?}");
    assert_eq!(d.first_failure.as_ref().map(|f| f.line), Some(2));
}

/// Killed with SIGKILL and no Python error before it: the host's OOM killer, and the reasoning.
#[test]
fn a_kill_without_a_python_error_is_the_host_running_out() {
    let log = "Loading checkpoint shards: 100%|##########| 4/4 [01:12<00:00, 18.1s/it]
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 4101 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 4100) of binary: /opt/venv/bin/python
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "cpu-ram-exhaustion", "{d:#?}");
    assert!(
        d.entries[0].reasons[0].contains("killed with SIGKILL"),
        "{d:#?}"
    );
}

/// A child killed with SIGKILL, reported by its parent's CalledProcessError at the end of a
/// long command line: the finding names host memory even though no line matched that entry.
#[test]
fn a_finding_alone_makes_a_candidate() {
    let args = "'--option=value', ".repeat(150);
    let log = format!(
        "loading model for process 0/1\nTraceback (most recent call last):\n  File \"/venv/bin/accelerate\", line 8, in <module>\n    sys.exit(main())\nsubprocess.CalledProcessError: Command '['/venv/bin/python', 'train.py', {args}]' died with <Signals.SIGKILL: 9>.\n"
    );
    let d = diagnosed(&log);
    assert_eq!(top(&d), "cpu-ram-exhaustion", "{d:#?}");
    assert!(!d.entries[0].reasons.is_empty());
}

/// Launcher frames are in every torchrun traceback: they cannot outrank the exception line's
/// full match.
#[test]
fn cues_alone_rank_below_a_full_match() {
    let log = "Traceback (most recent call last):
  File \"/venv/lib/python3.10/site-packages/torch/distributed/run.py\", line 803, in run
    elastic_launch(
  File \"/venv/lib/python3.10/site-packages/torch/distributed/launcher/api.py\", line 135, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File \"/venv/lib/python3.10/site-packages/torch/distributed/launcher/api.py\", line 259, in launch_agent
    result = agent.run()
torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "distributed-port-in-use", "{d:#?}");
}

/// Routine INFO warnings before a crash do not name the failure when the crash's traceback
/// points at another entry.
#[test]
fn routine_warnings_do_not_name_a_crash() {
    let log = "[2023-10-18 06:02:18,170] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1
step 0 loss 0.21
Traceback (most recent call last):
  File \"/venv/lib/python3.10/site-packages/deepspeed/runtime/zero/parameter_offload.py\", line 392, in _pre_forward_module_hook
    self.pre_sub_module_forward_function(module)
  File \"/venv/lib/python3.10/site-packages/deepspeed/runtime/zero/partitioned_param_coordinator.py\", line 310, in fetch_sub_module
    assert param.ds_status == ZeroParamStatus.AVAILABLE, param.ds_summary()
";
    // The traceback is cut before its exception line: its frames, not the warning, say what
    // crashed, and they name no failure.
    let frames_only = log.rsplit_once("    assert ").unwrap().0;
    let d = diagnosed(frames_only);
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "deepspeed-zero3-partition-errors", "{d:#?}");
    // Cut right after its last frame's assert statement, the statement is the failure.
    let d = diagnosed(log);
    assert_eq!(d.first_failure.as_ref().map(|f| f.line), Some(7), "{d:#?}");
    assert_eq!(top(&d), "deepspeed-zero3-partition-errors", "{d:#?}");
}

/// A bare exception name (a notebook's traceback cut after its header) shares only words such
/// as `runtime` and `error` with other entries' signatures: those say nothing of which entry it
/// is, so what decides is XLA's listing of the largest buffers, printed only when memory runs out.
#[test]
fn words_every_signature_has_make_no_candidate() {
    let log = "\tBuffer 7:
\t\tSize: 1.50GiB
\t\tXLA Label: fusion
\t\tShape: f32[8,4096,12288]
\t\t==========================

\tBuffer 8:
\t\tSize: 96.00MiB
\t\tEntry Parameter Subshape: f32[12288,2048]
\t\t==========================

---------------------------------------------------------------------------
XlaRuntimeError                           Traceback (most recent call last)
Cell In[7], line 3
      1 batch = next(loader)
----> 3 state, metrics = train_step(state, batch)
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "cuda-oom-batch-too-large", "{d:#?}");
    assert!(
        d.entries[0]
            .cues
            .iter()
            .any(|c| c.cue == "Entry Parameter Subshape:"),
        "{d:#?}"
    );
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A message made only of common words still points at its entry when the line holds the
/// whole signature: `CUDA error: out of memory` is every word of one. (It is a candidate, not a
/// diagnosis: an out-of-memory message has several causes.)
#[test]
fn a_whole_signature_of_common_words_still_counts() {
    let d = diagnosed("RuntimeError: CUDA error: out of memory\n");
    assert_eq!(top(&d), "cuda-oom-batch-too-large", "{d:#?}");
    assert_eq!(d.entries[0].evidence[0].coverage, 1.0, "{d:#?}");
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
}

/// Python's own words of failure share nothing specific: `[Errno 2] No such file or directory`
/// has `errno` and `no` in common with `OSError: [Errno 28] No space left on device`, which says
/// nothing of a full disk. The frames say where it was raised: DeepSpeed asking `bin/nvcc` for
/// the toolkit's version.
#[test]
fn an_oserrors_number_points_at_no_entry() {
    let line = "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'";
    let hits = searcher().search(line, 5).expect("a sound index");
    for hit in &hits {
        assert!(
            !(hit.slug == "no-space-left-on-device" && hit.specific),
            "{hits:#?}"
        );
    }
    let log = format!(
        "Traceback (most recent call last):
  File \"/opt/venv/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py\", line 93, in assert_no_cuda_mismatch
    cuda_major, cuda_minor = installed_cuda_version(name)
  File \"/usr/lib/python3.10/subprocess.py\", line 1847, in _execute_child
    raise child_exception_type(errno_num, err_msg, err_filename)
{line}
"
    );
    let d = diagnosed(&log);
    assert_eq!(top(&d), "deepspeed-op-build-cuda-home", "{d:#?}");
}

/// One word shared with a longer message is chance: `core` in Slurm's `Aborted (core
/// dumped)` is one word of `numpy.core.multiarray failed to import`, and `step` in its
/// `STEP 81.0 CANCELLED` one of the scheduler warning's. What is left, the watchdog's frame in
/// the C++ stack, decides.
#[test]
fn one_word_of_a_longer_signature_is_no_match() {
    let log = "step=900 loss=2.31
Exception raised from checkTimeout at /opt/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:612 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f01 in /env/lib/libc10.so)
frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f02 in /env/lib/libtorch_cuda.so)
frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f03 in /env/lib/libtorch_cuda.so)
frame #3: clone + 0x43 (0x7f04 in /lib64/libc.so.6)

srun: error: node-7: task 2: Aborted (core dumped)
slurmstepd: error: *** STEP 81.0 ON node-7 CANCELLED AT 2025-01-09T03:12:44 ***
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "nccl-watchdog-timeout", "{d:#?}");
    // The others are not named, and what they share with the line is shown as shared words,
    // not a match. (Their scores, BM25 over every entry's text, drift as content grows.)
    for e in &d.entries[1..] {
        assert!(!d.message.contains(&e.title), "{d:#?}");
        assert!(e.evidence.iter().all(|v| v.partial), "{d:#?}");
    }
}

/// When an error and a later line that repeats it cover an entry's signature equally, the
/// error is what the verdict weighs: a device fault that the NCCL watchdog reports again is
/// the fault, named, not a candidate shared with the watchdog entry.
#[test]
fn the_error_outweighs_a_later_line_that_repeats_it() {
    let log = "step 1200 loss 2.113
Traceback (most recent call last):
  File \"/work/train.py\", line 40, in <module>
    out = model(batch)
RuntimeError: CUDA error: uncorrectable ECC error encountered
[rank0]:[E1203 10:01:02.000000 1 ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "gpu-hardware-fault-xid-ecc", "{d:#?}");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A warning names no failure when the run crashed with an exception the entry does not
/// match: a `torch.load` FutureWarning before a FileNotFoundError is not a weights-only error.
#[test]
fn a_warning_does_not_name_a_crash_it_does_not_explain() {
    let log = "/opt/venv/lib/python3.11/site-packages/torch/serialization.py:1113: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling.
  state = torch.load(path, map_location=\"cpu\")
Traceback (most recent call last):
  File \"/work/run.py\", line 12, in <module>
    state = torch.load(path, map_location=\"cpu\")
FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/none.pt'
";
    let d = diagnosed(log);
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    // The same warning alone, with no crash, still points at its entry.
    let warning = log.lines().take(2).collect::<Vec<_>>().join("\n");
    assert_eq!(diagnosed(&warning).outcome, Outcome::Diagnosis);
}

/// A launcher's summary tells that a child failed, not why: with nothing else in the log it is
/// no diagnosis, though its entry is offered. A SIGKILL in the same summary is a finding: its
/// exit code alone (a number, which the index masks) puts host memory first as a lead; the
/// summary's `Signal 9 (SIGKILL)` line, a signature in words, names it.
#[test]
fn a_launchers_summary_alone_names_no_failure() {
    let log = "  0%|          | 0/24408 [00:00<?, ?it/s]
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 39886) of binary: /opt/venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-06-05_17:57:46
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 39886)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
";
    let d = diagnosed(log);
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert_eq!(top(&d), "elastic-child-failed-error", "{d:#?}");
    let killed = log
        .replace("exitcode: 1", "exitcode: -9")
        .replace("exitcode  : 1", "exitcode  : -9");
    let lead = diagnosed(&killed);
    assert_eq!(top(&lead), "cpu-ram-exhaustion", "{lead:#?}");
    assert_eq!(lead.outcome, Outcome::Possible, "{lead:#?}");
    assert!(lead.entries[0].reasons[0].contains("SIGKILL"), "{lead:#?}");
    let signal = diagnosed(&killed.replace(
        "traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "traceback : Signal 9 (SIGKILL) received by PID 39886",
    ));
    assert_eq!(top(&signal), "cpu-ram-exhaustion", "{signal:#?}");
    assert_eq!(signal.outcome, Outcome::Diagnosis, "{signal:#?}");
}

/// Ray Train's and the XLA coordination service's reports that a worker failed are summaries
/// too: after a worker's own error, which no entry covers, they name no failure.
#[test]
fn a_frameworks_report_that_a_worker_failed_names_no_failure() {
    for summary in [
        "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause.",
        "ray.train.v2.api.exceptions.WorkerGroupError: Training failed due to worker errors:",
        "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
    ] {
        let log = format!("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    f()\nTypeError: unsupported operand type(s) for +: 'int' and 'str'\n{summary}\n");
        let d = diagnosed(&log);
        assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    }
}

/// A shell's or a wrapper's exit status of -9 or 137 is a SIGKILL too, and so is PyTorch's CPU
/// allocator failing: both are the host's memory.
#[test]
fn other_wordings_of_the_host_running_out() {
    for log in [
        "Starting training run 20260409 ...\nTraining failed with exit code -9\n",
        "Step 4/6 : RUN python train.py\nError: Process completed with exit code 137.\n",
        "RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you tried to allocate 6383992832 bytes.\n",
        "RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 8589934592 bytes. Error code 12 (Cannot allocate memory)\n",
        // A notebook's own report, after a routine warning: the crash is the error line.
        "/usr/lib/python3/jax/maps.py:412: UserWarning: xmap is experimental\n  warn(\"xmap is experimental\")\n\nYour session crashed after using all available RAM.\n",
    ] {
        let d = diagnosed(log);
        assert_eq!(top(&d), "cpu-ram-exhaustion", "{log}\n{d:#?}");
    }
}

/// An ordinary error that no entry covers gets "no entry explains this log", not candidates
/// that share its exception class and Python's own wording (`object has no attribute`, `No
/// module named`): those words define nothing. The entry whose defining word is there is
/// still named.
#[test]
fn an_error_no_entry_covers_gets_no_entry() {
    for log in [
        "Traceback (most recent call last):\n  File \"/work/train.py\", line 88, in <module>\n    out = model.generate(batch)\nAttributeError: 'DistributedDataParallel' object has no attribute 'generate'\n",
        "ModuleNotFoundError: No module named 'wandb'\n",
        "ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/opt/venv/lib/python3.11/site-packages/huggingface_hub/__init__.py)\n",
    ] {
        let d = diagnosed(log);
        assert_eq!(d.outcome, Outcome::None, "{log}\n{d:#?}");
        assert!(d.entries.is_empty());
        assert!(
            d.message.starts_with("No entry explains this log."),
            "{}",
            d.message
        );
    }
    let d = diagnosed("ModuleNotFoundError: No module named 'flash_attn'\n");
    assert_eq!(top(&d), "flash-attention-build-errors", "{d:#?}");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A message that other failures print too (a signature's `also:`) points at each of them: a
/// cuBLAS handle that cannot be created is most often memory, or an earlier out-of-range index
/// that broke the context. The answer offers them, behind the message's own entry and in
/// either order (the line itself says nothing of which), and is no diagnosis until something
/// tells them apart; an index assert in the log does.
#[test]
fn a_message_several_failures_print_offers_them_all() {
    let log = "Traceback (most recent call last):
  File \"/work/train.py\", line 61, in <module>
    logits = model(input_ids)
RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`
";
    let d = diagnosed(log);
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    let mut slugs: Vec<&str> = d.entries.iter().take(3).map(|e| e.slug.as_str()).collect();
    slugs[1..].sort();
    assert_eq!(
        slugs,
        [
            "cublas-status-errors",
            "cuda-oom-batch-too-large",
            "device-side-assert-index-out-of-bounds"
        ]
    );
    let asserted = format!(
        "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [12,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n{log}"
    );
    let d = diagnosed(&asserted);
    assert_eq!(top(&d), "device-side-assert-index-out-of-bounds", "{d:#?}");
}

/// A signature whose every word is in several entries' signatures (`RuntimeError: Address
/// already in use`) has no defining word to miss, so sharing its exception class and a word or
/// two (`use`) names nothing: such a signature names the failure only when a line holds most
/// of it.
#[test]
fn a_signature_of_shared_words_needs_most_of_its_wording() {
    let d = diagnosed(
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support\n",
    );
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    let d = diagnosed("RuntimeError: Address already in use\n");
    assert_eq!(top(&d), "distributed-port-in-use", "{d:#?}");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// Of two signatures a line nearly matches, the one it misses no defining word of ranks first:
/// a worker `killed by signal: Killed.` is the host's memory, not the shared-memory `Bus error`
/// that differs from it in its last words.
#[test]
fn the_signature_missing_no_defining_word_ranks_first() {
    let d =
        diagnosed("RuntimeError: DataLoader worker (pid 108439) is killed by signal: Killed.\n");
    assert_eq!(top(&d), "cpu-ram-exhaustion", "{d:#?}");
    let d = diagnosed(
        "RuntimeError: DataLoader worker (pid 108439) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n",
    );
    assert_eq!(top(&d), "dataloader-shared-memory-crash", "{d:#?}");
}

/// A loader that only noticed a worker gone (`exited unexpectedly`) says nothing of what ended
/// it: a full `/dev/shm` and the host running out of RAM both print it, so it names neither.
/// The line before it that says how the worker died does.
#[test]
fn a_worker_that_exited_unexpectedly_names_no_cause_alone() {
    let gone = "Traceback (most recent call last):
  File \"/srv/train.py\", line 61, in <module>
    for step, batch in enumerate(loader):
  File \"/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py\", line 1146, in _try_get_data
    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
RuntimeError: DataLoader worker (pid(s) 30117) exited unexpectedly
";
    let d = diagnosed(gone);
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    let slugs: Vec<&str> = d.entries.iter().map(|e| e.slug.as_str()).collect();
    for slug in ["dataloader-shared-memory-crash", "cpu-ram-exhaustion"] {
        assert!(slugs[..3].contains(&slug), "{slug} in {slugs:?}");
    }
    let bus = format!("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n{gone}");
    let d = diagnosed(&bus);
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "dataloader-shared-memory-crash");
}

/// A paste a terminal cut at 100 columns, or an editor broke at the last space before 80:
/// `errata diagnose` reading the file a buffer at a time, like the page reading the whole text,
/// joins the pieces of the exception line again and answers as for the log unwrapped.
#[test]
fn a_paste_a_terminal_wrapped_diagnoses_as_the_log_itself() {
    let log = "$ torchrun --nproc_per_node 2 finetune.py --config configs/sft.yaml
W1204 10:02:11.118000 140071725119296 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
Traceback (most recent call last):
  File \"/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py\", line 55, in next_rendezvous
    self._store = TCPStore(  # type: ignore[call-arg]
torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).
";
    // A terminal cuts each line at its width; an editor breaks it at the last space that fits.
    let cut = |l: &str| -> Vec<String> {
        let chars: Vec<char> = l.chars().collect();
        chars.chunks(100).map(|c| c.iter().collect()).collect()
    };
    let broken = |l: &str| -> Vec<String> {
        let mut lines = vec![String::new()];
        for word in l.split_inclusive(' ') {
            let last = lines.last_mut().unwrap();
            if !last.is_empty() && last.chars().count() + word.trim_end().chars().count() > 80 {
                lines.push(String::new());
            }
            lines.last_mut().unwrap().push_str(word);
        }
        lines
    };
    let whole = diagnosed(log);
    for wrap in [&cut as &dyn Fn(&str) -> Vec<String>, &broken] {
        let wrapped = log.lines().flat_map(wrap).collect::<Vec<_>>().join("\n") + "\n";
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("wrapped.log");
        std::fs::write(&path, &wrapped).unwrap();
        let r = super::search::errata(&["diagnose", "--json", path.to_str().unwrap()]);
        let cli: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
        let first = cli["first_failure"]["text"].as_str().unwrap_or_default();
        assert!(
            first.ends_with("0.0.0.0:29500 (errno: 98 - Address already in use)."),
            "{first}\n{wrapped}"
        );
        let page = diagnosed(&wrapped);
        assert_eq!(page.entries[0].slug, whole.entries[0].slug, "{page:#?}");
        assert_eq!(page.outcome, whole.outcome);
        assert_eq!(cli["entries"][0]["slug"], whole.entries[0].slug.as_str());
    }
}

/// A child's message with its head cut off (plain lines, no error marker) before a launcher's
/// report that the child failed: the report says nothing of why, so the plain lines before it
/// are read too, and the entry they name is a candidate.
#[test]
fn plain_lines_before_a_launchers_report_are_read() {
    let log = "making sure all `forward` function outputs participate in calculating loss.
Parameters which did not receive grad for rank 1: head.cls.bias, head.cls.weight, head.aux.2.weight
Parameter indices which did not receive grad for rank 1: 201 202 203
  Epoch 1/30   3.1G   1.204   0.873   12   640:   1%|          | 2/180 [00:03<04:30,  1.52s/it]
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7120 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 7121) of binary: /opt/venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
";
    let d = diagnosed(log);
    let slugs: Vec<&str> = d.entries.iter().map(|e| e.slug.as_str()).collect();
    assert!(slugs[..3].contains(&"ddp-unused-parameters"), "{slugs:?}");
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A subprocess that could not start raises through `subprocess.py`'s `_execute_child`. The
/// exception line shares only common words with the launcher entry's `error_file:` signature;
/// the traceback's words (`child`) do not make that a match. The op builder's frames decide.
#[test]
fn a_tracebacks_words_do_not_rescue_a_match_of_common_words() {
    let log = "[2025-03-02 10:14:07,201] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.9.2
Traceback (most recent call last):
  File \"/work/cifar/train_ds.py\", line 61, in <module>
    engine, opt, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=params)
  File \"/usr/lib/python3.10/site-packages/deepspeed/runtime/engine.py\", line 661, in _configure_basic_optimizer
    optimizer = FusedAdam(model_parameters, **optimizer_parameters)
  File \"/usr/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py\", line 189, in jit_load
    assert_no_cuda_mismatch()
  File \"/usr/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py\", line 42, in assert_no_cuda_mismatch
    cuda_major, cuda_minor = installed_cuda_version()
  File \"/usr/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py\", line 22, in installed_cuda_version
    output = subprocess.check_output([cuda_home + \"/bin/nvcc\", \"-V\"], universal_newlines=True)
  File \"/usr/lib/python3.10/subprocess.py\", line 1863, in _execute_child
    raise child_exception_type(errno_num, err_msg, err_filename)
FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "deepspeed-op-build-cuda-home", "{d:#?}");
    // The launcher entry may stay a weak candidate, but the traceback's words do not lift it
    // above the entries that share as many of the exception line's words.
    let launcher = d
        .entries
        .iter()
        .position(|e| e.slug == "elastic-child-failed-error");
    assert!(launcher.is_none_or(|at| at >= 2), "{d:#?}");
}

/// A frame cue among the frames the failing exception was raised in (the lines right above it)
/// says more than the same frame further up the traceback: it is where the failure happened.
#[test]
fn a_frame_cue_where_the_failure_was_raised_weighs_more() {
    let collate = "  File \"/env/lib/python3.9/site-packages/torch/utils/data/_utils/collate.py\", line 56, in default_collate\n    return torch.stack(batch, 0, out=out)\n";
    let callers: String = (1..=5)
        .map(|i| {
            format!("  File \"/home/me/train/step{i}.py\", line {i}, in run\n    run_next()\n")
        })
        .collect();
    let error = "RuntimeError: stacking expect every tensor be same size, but obtained [2, 2400, 3] in entry 0 and [2, 2332, 3] in entry 1\n";
    // The same error line in both: the cues' scale (the best line's score) is the same, so
    // the collate entry's own scores compare (it may lead in both).
    let share = |frames: String| {
        let d = diagnosed(&format!(
            "Traceback (most recent call last):\n{frames}{error}"
        ));
        let collate = d
            .entries
            .iter()
            .find(|e| e.slug == "collate-unequal-tensor-sizes");
        collate.map_or(0.0, |e| e.score)
    };
    let raised_there = share(format!("{callers}{collate}"));
    let further_up = share(format!("{collate}{callers}"));
    assert!(
        raised_there > further_up && further_up > 0.0,
        "{raised_there} against {further_up}"
    );
}
