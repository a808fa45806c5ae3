//! The outcome of a diagnosis on the real `content/`: what a line must hold of a signature to
//! name the failure.

use errata_search::diagnose::Outcome;

use super::diagnosis::{diagnosed, top};

/// A line holding every word of `RuntimeError: NCCL error in:` but not its message in its
/// order (`Distributed package doesn't have NCCL built in`, a PyTorch built without NCCL) names
/// nothing; the message itself, after the exception's name, does.
#[test]
fn a_signatures_words_without_its_message_name_nothing() {
    let built_in = diagnosed(
        "Traceback (most recent call last):
  File \"/srv/train.py\", line 31, in <module>
    dist.init_process_group(backend=\"nccl\")
RuntimeError: Distributed package doesn't have NCCL built in
",
    );
    assert_ne!(built_in.outcome, Outcome::Diagnosis, "{built_in:#?}");
    let real = diagnosed(
        "RuntimeError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system error, NCCL version 2.14.3\n",
    );
    assert_eq!(real.outcome, Outcome::Diagnosis, "{real:#?}");
    assert_eq!(top(&real), "nccl-communicator-error", "{real:#?}");
}

/// A line that shares with a signature only the name of one of Python's own exceptions
/// (`AssertionError`, `OSError` and its `[Errno N]`) shares nothing of what failed: it points
/// at no entry, and the log is "no entry explains this log". A library's exception class
/// (`SafetensorError`) still points at its entry.
#[test]
fn an_exceptions_name_alone_points_nowhere() {
    for log in [
        "AssertionError: sentence at index 25683144 exceeds max_tokens limit!\n",
        "OSError: llama-weights is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'\n",
    ] {
        let d = diagnosed(log);
        assert_eq!(d.outcome, Outcome::None, "{d:#?}");
    }
    // A library's own exception class says what failed, even with a message errata does not
    // know.
    let d = diagnosed("safetensors_rust.SafetensorError: the tensor foo could not be found\n");
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert_eq!(top(&d), "safetensors-header-error", "{d:#?}");
}

/// safetensors' message begins with a newline, so the log shows `RuntimeError: ` alone and the
/// message indented below it: read together, they name the shared-tensors entry; the bare
/// exception's name matched only common words of unrelated signatures.
#[test]
fn a_message_printed_below_its_exception_names_the_failure() {
    let d = diagnosed(
        "Saving model checkpoint to runs/lora/checkpoint-50
RuntimeError: 
            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: [{'model.embed_tokens.weight', 'lm_head.weight'}].
            A potential way to correctly save your model is to use `save_model`.
",
    );
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "shared-tensors-on-save", "{d:#?}");
}

/// A launcher's report that a rank died of SIGBUS, with no Python error before it, is read as
/// shared memory `/dev/shm` could not back: the shared-memory entry comes first with the
/// reasoning, though the report alone names no failure.
#[test]
fn a_bus_error_before_any_python_error_points_at_shared_memory() {
    let d = diagnosed(
        "[2024-03-02 10:00:01,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4121
[2024-03-02 10:00:01,200] [ERROR] [launch.py:321:sigkill_handler] ['/opt/venv/bin/python', '-u', 'main.py', '--local_rank=1', '--zero_stage', '2'] exits with return code = -7
",
    );
    assert_eq!(top(&d), "dataloader-shared-memory-crash", "{d:#?}");
    assert!(
        d.entries[0].reasons.iter().any(|r| r.contains("SIGBUS")),
        "{d:#?}"
    );
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// Hydra's `Error executing job with overrides: [...]` only announces the exception it
/// re-raises: the first failing line is that exception, and a `none` log whose overrides name
/// a `batch_size` is not diagnosed as a shape mismatch.
#[test]
fn hydras_announcement_is_not_the_failure() {
    let d = diagnosed(
        "Error executing job with overrides: ['+dataset=kitti', '+batch_size=1']
Traceback (most recent call last):
  File \"scripts/export.py\", line 80, in main
    fp_loss=config.fp_loss,
omegaconf.errors.ConfigAttributeError: Key 'fp_loss' is not in struct
",
    );
    assert_eq!(d.first_failure.as_ref().map(|f| f.line), Some(5), "{d:#?}");
    assert_eq!(d.outcome, Outcome::None, "{d:#?}");
}

/// A non-interactive bash's report of a job killed with SIGKILL speaks for host memory, as
/// torchrun's `exitcode: -9` does.
#[test]
fn a_scripts_report_of_a_killed_job_points_at_host_memory() {
    let d = diagnosed(
        "epoch 1 step 40 loss 2.31
/bin/bash: line 1: 48213 Killed                  python train.py --batch-size 64
",
    );
    assert_eq!(top(&d), "cpu-ram-exhaustion", "{d:#?}");
    assert!(
        d.entries[0].reasons.iter().any(|r| r.contains("SIGKILL")),
        "{d:#?}"
    );
}

/// The sentence of a "possible" answer names the entries something points at: an OOM after
/// many steps doubts the batch size, and an entry that only shares `RuntimeError:` with the
/// line (the port entry's `RuntimeError: Address already in use`) is not named in its place.
#[test]
fn the_sentence_names_only_the_entries_pointed_at() {
    let d = diagnosed(
        "epoch 0 step  500/6120 loss_ita 2.9018 loss_itm 0.3315
epoch 0 step 1000/6120 loss_ita 2.5563 loss_itm 0.2874
Traceback (most recent call last):
  File \"finetune.py\", line 51, in train
    loss_ita, loss_itm = model(image, text_input)
RuntimeError: CUDA out of memory. Tried to allocate 194.00 MiB (GPU 5; 39.59 GiB total capacity; 34.18 GiB already allocated; 111.19 MiB free; 37.37 GiB reserved in total by PyTorch)
",
    );
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert!(
        d.message.starts_with("Possibly Activation Memory"),
        "{}",
        d.message
    );
    for e in d.entries.iter().filter(|e| d.message.contains(&e.title)) {
        assert!(
            e.slug.starts_with("activation-memory"),
            "{} named in: {}",
            e.slug,
            d.message
        );
    }
    let batch = d
        .entries
        .iter()
        .find(|e| e.slug == "cuda-oom-batch-too-large")
        .unwrap();
    assert!(batch.doubted, "{d:#?}");
    assert!(
        batch.reasons.iter().any(|r| r.contains("1,000 steps")),
        "{d:#?}"
    );
}

/// An out-of-memory message without numbers has three causes the log does not choose between:
/// a batch too large, a tensor growing with the sequence, a fragmented cache. The first three
/// candidates name the three causes, not two faces of the sequence's.
#[test]
fn a_bare_out_of_memory_names_each_cause_once() {
    let d = diagnosed(
        "step 12/400 | loss 2.413
Traceback (most recent call last):
  File \"/srv/train.py\", line 88, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory.
",
    );
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    let first: Vec<&str> = d.entries.iter().take(3).map(|e| e.slug.as_str()).collect();
    assert!(first.contains(&"cuda-oom-batch-too-large"), "{first:?}");
    assert!(first.contains(&"cuda-allocator-fragmentation"), "{first:?}");
    let sequence = [
        "activation-memory-spike",
        "activation-memory-quadratic-attention",
    ];
    assert_eq!(
        first.iter().filter(|s| sequence.contains(s)).count(),
        1,
        "{first:?}"
    );
}

/// TensorFlow re-raises the error of a traced function as `ValueError: in user code:`, then
/// prints the function's frames and its own error indented under them: that indented line is
/// the failure, found whether or not the paste kept the header.
#[test]
fn a_traced_functions_indented_error_is_the_failure() {
    let frames = "
    File \"/opt/venv/lib/python3.10/site-packages/keras/engine/training.py\", line 1284, in train_function  *
        return step_function(self, iterator)
    File \"/opt/venv/lib/python3.10/site-packages/keras/engine/training.py\", line 1117, in compute_loss
        return self.compiled_loss(

    ValueError: No loss found. You may have forgotten to provide a `loss` argument in the `compile()` method.
";
    let head = "Epoch 1/10
Traceback (most recent call last):
  File \"/srv/fit.py\", line 40, in <module>
    model.fit(ds, epochs=10)
  File \"/opt/venv/lib/python3.10/site-packages/keras/utils/traceback_utils.py\", line 70, in error_handler
    raise e.with_traceback(filtered_tb) from None
";
    for log in [
        format!("{head}ValueError: in user code:\n{frames}"),
        format!("{head}{frames}"),
    ] {
        let d = diagnosed(&log);
        assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
        assert_eq!(top(&d), "trainer-model-returned-no-loss", "{d:#?}");
        let cause = d.first_failure.as_ref().expect("a first failing line");
        assert!(
            cause.text.starts_with("ValueError: No loss found"),
            "{d:#?}"
        );
    }
}

/// Evidence that holds less than half of the signature it is shown with says so (`partial`),
/// and the terminal and the page call it sharing words, not a match.
#[test]
fn a_line_holding_less_than_half_a_signature_is_not_called_a_match() {
    let d = diagnosed(
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4121) of binary: /opt/venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
",
    );
    let evidence: Vec<_> = d.entries.iter().flat_map(|e| &e.evidence).collect();
    assert!(evidence.iter().any(|ev| !ev.partial), "{d:#?}");
    for ev in &evidence {
        assert_eq!(ev.partial, ev.coverage < 0.5, "{ev:#?}");
    }
    assert!(evidence.iter().any(|ev| ev.partial), "{d:#?}");
}

/// Evidence says whether the line holds the whole of its signature (`whole`): the kernel's
/// `Out of memory: Killed process` holds its own signature, and of `error=2 : out of memory`,
/// which it is also shown with, every word but `error`: that is a part, and not called a match.
#[test]
fn a_line_holding_part_of_a_signature_is_not_called_a_whole_match() {
    let d = diagnosed(
        "[ 8123.456789] Out of memory: Killed process 48213 (python) total-vm:98765432kB, anon-rss:61234567kB\n",
    );
    let line = |slug: &str| {
        let entry = d.entries.iter().find(|e| e.slug == slug);
        entry.and_then(|e| e.evidence.first()).cloned()
    };
    let own = line("cpu-ram-exhaustion").expect("the host-memory entry");
    assert!(own.whole && !own.partial, "{own:#?}");
    let gpu = line("cuda-oom-batch-too-large").expect("a GPU memory entry");
    assert!(!gpu.whole && !gpu.partial, "{gpu:#?}");
    assert!(gpu.coverage < 1.0, "{gpu:#?}");
}

/// A paste that stops inside a word keeps the start of the message: the words the cut took,
/// defining ones included, are missing for that reason, so the entry whose signature the line
/// begins is offered, not "no entry".
#[test]
fn a_line_cut_inside_a_word_points_at_the_signature_it_begins() {
    for (log, slug) in [
        (
            "Epoch 1 of 50\nRuntimeError: one of the variables needed for gradient computati\n",
            "inplace-modification-autograd",
        ),
        (
            "step 3\nRuntimeError: CUDA out of memo\n",
            "cuda-oom-batch-too-large",
        ),
    ] {
        let d = diagnosed(log);
        assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
        assert!(d.entries.iter().take(3).any(|e| e.slug == slug), "{d:#?}");
    }
}

/// A message worded differently from every signature, that still says most of one signature's
/// message as a phrase of four words or more, points at that entry without naming it: another
/// release or library wording the same failure. A shorter run of common words points nowhere.
#[test]
fn a_phrase_of_a_signature_without_its_defining_words_points_without_naming() {
    let d = diagnosed("ValueError: The selected accelerator does not support bfloat16 training\n");
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert_eq!(top(&d), "bf16-unsupported-gpu", "{d:#?}");
    let d = diagnosed("-- Process 0 terminated with the following error:\n");
    assert_eq!(d.outcome, Outcome::None, "{d:#?}");
}

/// Ray's report that an actor died lists the OOM killer among possible causes in every case: a
/// summary, which names no failure. When the log holds nothing else, what it says still offers
/// candidates; after a worker's own error, it names nothing either.
#[test]
fn rays_report_of_a_dead_actor_offers_candidates_and_names_none() {
    let death = "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
\tclass_name: RolloutWorker
\tpid: 4121
The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.
";
    let d = diagnosed(death);
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert!(
        d.entries
            .iter()
            .take(3)
            .any(|e| e.slug == "cpu-ram-exhaustion"),
        "{d:#?}"
    );
    let after = format!("Traceback (most recent call last):\n  File \"rollout.py\", line 9, in <module>\n    step()\nTypeError: unsupported operand type(s) for +: 'int' and 'str'\n{death}");
    let d = diagnosed(&after);
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A paste cut inside a traceback whose last source line calls `index_select` holds no error
/// line; the call is where an index out of range fails, so the device-side-assert entry is
/// offered, not named.
#[test]
fn a_cut_traceback_in_index_select_points_at_the_index_entry() {
    let d = diagnosed(
        "$ python train_gnn.py\n  File \"/opt/venv/lib/python3.10/site-packages/torch_geometric/nn/conv/message_passing.py\", line 127, in __lift__\n    return src.index_select(self.node_dim, index)\n",
    );
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert_eq!(top(&d), "device-side-assert-index-out-of-bounds", "{d:#?}");
}

/// A wrapper exception whose message is another exception (`InductorError: RuntimeError:
/// ...`) matches the wrapper's bare class name, which does not say what failed inside it: the
/// compile entry stays a candidate, not the diagnosis, and the inner failure printed below is
/// offered beside it. The wrapper with its own message still names the failure.
#[test]
fn a_wrappers_name_over_another_exception_names_nothing() {
    let d = diagnosed(
        "  File \"/srv/train.py\", line 84, in main\n    loss.backward()\ntorch._inductor.exc.InductorError: RuntimeError: No valid triton configs. \nOutOfMemoryError: out of resource: triton_per_fused_add_mul_sum_7\nRequired: 327768 Hardware limit:232448 Reducing block sizes or `num_stages` may help.\n",
    );
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert!(
        d.entries
            .iter()
            .take(3)
            .any(|e| e.slug == "triton-out-of-resources"),
        "{d:#?}"
    );
    let d = diagnosed("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nLoweringException: AssertionError: \n");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "torch-compile-inductor-errors", "{d:#?}");
}

/// A line that shares one identifier with a signature of several words (`state_dict` of
/// `Missing key(s) in state_dict:`, three terms with its parts) shares a name, not the message:
/// the entry is offered, not named.
#[test]
fn one_shared_identifier_names_nothing() {
    let d = diagnosed("KeyError: 'state_dict'\n");
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    assert_eq!(top(&d), "state-dict-key-mismatch", "{d:#?}");
    let d = diagnosed("RuntimeError: Error(s) in loading state_dict for GPT:\n\tMissing key(s) in state_dict: \"lm_head.weight\".\n");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A run that prints its objective without the word `loss` diverges when a column of its
/// progress lines turns `nan`: that line is read as a warning of a non-finite loss. After a
/// crash elsewhere, it does not name the failure.
#[test]
fn a_column_of_numbers_that_turns_nan_is_a_diverged_run() {
    let d = diagnosed("step 120: energy -3.512 Ha, variance 0.021, acceptance 0.55\nstep 121: energy nan Ha, variance nan, acceptance 0.55\n");
    assert_eq!(top(&d), "loss-nan-mixed-precision", "{d:#?}");
    assert_eq!(d.first_failure.as_ref().map(|f| f.line), Some(2), "{d:#?}");
    let d = diagnosed("epoch 3 | train 0.512 | val 0.611\nepoch 4 | train 0.498 | val nan\nTraceback (most recent call last):\n  File \"eval.py\", line 3, in <module>\n    f()\nKeyError: 'labels'\n");
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
}

/// A notebook's traceback as IPython printed it before 7.0, each frame a path and a function
/// on one line: the failure is the exception line at its end, not the first frame.
#[test]
fn an_old_notebook_tracebacks_frames_are_not_the_failure() {
    let d = diagnosed(include_str!("../fixtures/logs/old-ipython.log"));
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "view-non-contiguous-tensor", "{d:#?}");
    let first = d.first_failure.expect("a first failing line");
    assert_eq!(first.line, 14, "{first:#?}");
    assert!(
        first.text.starts_with("RuntimeError: view size"),
        "{first:#?}"
    );
}

/// A structured log's record with its traceback escaped in a field: the record's head (its
/// `"level": "ERROR"` a field) is no failure, and the exception names it, though the hint after
/// it is on the same physical line.
#[test]
fn a_json_records_escaped_traceback_names_the_failure() {
    let d = diagnosed(include_str!("../fixtures/logs/json-record.log"));
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    assert_eq!(top(&d), "cuda-illegal-memory-access", "{d:#?}");
    let first = d.first_failure.expect("a first failing line");
    assert!(
        first.text.starts_with("RuntimeError: CUDA error"),
        "{first:#?}"
    );
}

/// A message several entries print (`also:`) names none of them, unless another line of the
/// log names one entry's failure and no rival's: Slurm's report of an oom-kill under a dead
/// DataLoader worker says host memory, not `/dev/shm`.
#[test]
fn a_line_of_its_own_tells_entries_sharing_a_message_apart() {
    let worker = "RuntimeError: DataLoader worker (pid(s) 51210) exited unexpectedly\n";
    let alone = diagnosed(worker);
    assert_eq!(alone.outcome, Outcome::Possible, "{alone:#?}");
    let reported = diagnosed(&format!(
        "{worker}slurmstepd: error: Detected 1 oom-kill event(s) in StepId=77120.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.\n"
    ));
    assert_eq!(reported.outcome, Outcome::Diagnosis, "{reported:#?}");
    assert_eq!(top(&reported), "cpu-ram-exhaustion", "{reported:#?}");
}

/// A cue that the entries sharing a message both declare does not tell them apart: every
/// DataLoader worker that dies is reported from `_error_if_any_worker_fails`, whether host
/// memory or `/dev/shm` ran out.
#[test]
fn a_cue_the_rivals_share_tells_nothing_apart() {
    let d = diagnosed(
        "Traceback (most recent call last):
  File \"/opt/venv/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid(s) 51210) exited unexpectedly
",
    );
    assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
    let slugs: Vec<&str> = d.entries.iter().map(|e| e.slug.as_str()).collect();
    assert!(slugs.contains(&"cpu-ram-exhaustion"), "{d:#?}");
    assert!(slugs.contains(&"dataloader-shared-memory-crash"), "{d:#?}");
}

/// The word a message ends on can be what tells failures apart: a DataLoader worker killed by
/// `Killed.` (the out-of-memory killer's SIGKILL) is host memory running out, by `Bus error`
/// shared memory, and by `Aborted.` neither, though the line holds every other word of both.
#[test]
fn a_message_that_ends_on_another_signal_is_another_message() {
    let worker = |signal: &str| {
        diagnosed(&format!(
            "Traceback (most recent call last):\n  File \"train.py\", line 50, in <module>\n    for batch in loader:\nRuntimeError: DataLoader worker (pid 4242) is killed by signal: {signal}\n"
        ))
    };
    let killed = worker("Killed.");
    assert_eq!(killed.outcome, Outcome::Diagnosis, "{killed:#?}");
    assert_eq!(top(&killed), "cpu-ram-exhaustion", "{killed:#?}");
    let bus = worker("Bus error.");
    assert_eq!(bus.outcome, Outcome::Diagnosis, "{bus:#?}");
    assert_eq!(top(&bus), "dataloader-shared-memory-crash", "{bus:#?}");
    let aborted = worker("Aborted.");
    assert_ne!(aborted.outcome, Outcome::Diagnosis, "{aborted:#?}");
    // It shares words with the signature and is not said to match it.
    let ram = (aborted.entries.iter()).find(|e| e.slug == "cpu-ram-exhaustion");
    let line = ram.and_then(|e| e.evidence.iter().find(|v| v.line == 4));
    assert!(line.is_some_and(|v| v.partial), "{aborted:#?}");
}

/// What a message is about tells failures apart: DeepSpeed's `Train batch size: N has to be
/// greater than 0` is a batch-size setting; the same predicate about a learning rate or a
/// worker count is another check, which no entry explains, though it holds the defining word
/// `greater` and most of the message.
#[test]
fn a_message_about_another_subject_is_another_message() {
    let batch = crashed_with("AssertionError: Train batch size: 0 has to be greater than 0");
    assert_eq!(batch.outcome, Outcome::Diagnosis, "{batch:#?}");
    assert_eq!(top(&batch), "deepspeed-batch-size-mismatch", "{batch:#?}");
    for line in [
        "AssertionError: Learning rate: 0 has to be greater than 0",
        "ValueError: The number of workers has to be greater than 0",
    ] {
        let other = crashed_with(line);
        assert_ne!(other.outcome, Outcome::Diagnosis, "{line}: {other:#?}");
    }
}

/// PyTorch's shared-memory failure, `unable to write to file </torch_N_M>: No space left on
/// device (28)`, holds the whole of the shm entry's signature as well as the disk entry's: the
/// shared-memory file's name, one identifier, does not break its run. It is no diagnosis of a
/// full disk, and the shm entry is offered.
#[test]
fn a_shared_memory_files_name_does_not_hide_its_signature() {
    let d = diagnosed(
        "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    for batch in loader:\nRuntimeError: unable to write to file </torch_18692_1954506624>: No space left on device (28)\n",
    );
    assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    let slugs: Vec<&str> = d.entries.iter().take(2).map(|e| e.slug.as_str()).collect();
    assert!(slugs.contains(&"dataloader-shared-memory-crash"), "{d:#?}");
}

/// A line that says the start of a message and goes on with another word says a sibling of it:
/// `CUDA error: invalid device pointer` is not the driver entry's `invalid device function`,
/// and `libcuda.so: cannot open shared object file` is not Triton's `libcuda.so cannot
/// found!`. Neither names the failure. A line that holds a message's first sentence and goes on
/// with other advice (an older release's hint) is the message.
#[test]
fn a_sibling_of_a_message_names_nothing() {
    let function = crashed_with("RuntimeError: CUDA error: invalid device function");
    assert_eq!(function.outcome, Outcome::Diagnosis, "{function:#?}");
    assert_eq!(
        top(&function),
        "cuda-driver-version-mismatch",
        "{function:#?}"
    );
    for line in [
        "RuntimeError: CUDA error: invalid device pointer",
        "OSError: libcuda.so: cannot open shared object file: No such file or directory",
    ] {
        let sibling = crashed_with(line);
        assert_ne!(sibling.outcome, Outcome::Diagnosis, "{line}: {sibling:#?}");
    }
    let hint = crashed_with(
        "RuntimeError: invalid argument 2: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Call .contiguous() before .view(). at /pytorch/aten/src/TH/generic/THTensor.cpp:203",
    );
    assert_eq!(hint.outcome, Outcome::Diagnosis, "{hint:#?}");
    assert_eq!(top(&hint), "view-non-contiguous-tensor", "{hint:#?}");
}

/// The diagnosis of a run that crashed in one frame of its script with `line`, its exception.
fn crashed_with(line: &str) -> errata_search::diagnose::Diagnosis {
    diagnosed(&format!(
        "Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n    main()\n{line}\n"
    ))
}
