// Training logs written for the browser tests. Each builder returns the text and the
// facts the tests assert about it (line numbers are 1-based, as the engine counts them).

const ESC = '\u001b';
const green = (s) => `${ESC}[32m${s}${ESC}[0m`;
const yellow = (s) => `${ESC}[1;33m${s}${ESC}[0m`;
const red = (s) => `${ESC}[31m${s}${ESC}[0m`;

export const OOM_SLUGS = ['cuda-oom-batch-too-large', 'activation-memory-quadratic-attention'];
export const MEMORY_SLUGS = [
  'cuda-oom-batch-too-large', 'activation-memory-quadratic-attention', 'cuda-allocator-fragmentation',
  'activation-memory-spike',
];

function ts(sec) {
  const s = 19 + sec;
  const mm = String(2 + Math.floor(s / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `2025-12-01 14:${mm}:${ss},${String((sec * 137) % 1000).padStart(3, '0')}`;
}

/** 8 ranks under torchrun; rank 3 runs out of memory, the others time out in NCCL. */
export function multiRankOomLog() {
  const lines = [];
  const push = (l) => { lines.push(l); return lines.length; };
  push('W1201 14:02:11.318000 48211 torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.');
  for (let r = 0; r < 8; r++) {
    push(`[rank${r}]:${green(ts(r))} ${yellow('INFO')} train.py:88 world_size=8 rank=${r} micro_batch=12 seq_len=4096 dtype=bf16`);
  }
  for (let step = 1; step <= 4; step++) {
    for (let r = 0; r < 8; r += 4) {
      push(`[rank${r}]:${green(ts(8 + step * 2 + r))} ${yellow('INFO')} train.py:210 step ${step}/12000 loss ${(10.9 - step * 0.31).toFixed(4)} lr ${(step * 2)}.00e-06 tok/s 88.${step}k mem 71.${step}GiB`);
    }
  }
  push(' 0%|          | 4/12000 [00:10<8:29:44,  2.55s/it]');
  const tracebackStart = push('[rank3]: Traceback (most recent call last):');
  push('[rank3]:   File "/workspace/llm/train.py", line 274, in <module>');
  push('[rank3]:     main()');
  push('[rank3]:   File "/workspace/llm/train.py", line 241, in main');
  push('[rank3]:     loss = model(input_ids, labels=labels).loss');
  push('[rank3]:   File "/workspace/llm/model.py", line 97, in forward');
  push('[rank3]:     return self.down(F.silu(self.gate(x)) * self.up(x))');
  const oomLine = push(`[rank3]: ${red('torch.OutOfMemoryError')}: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 3 has a total capacity of 79.15 GiB of which 2.19 GiB is free. Including non-PyTorch memory, this process has 76.95 GiB memory in use. Of the allocated memory 76.02 GiB is allocated by PyTorch, and 412.50 MiB is reserved by PyTorch but unallocated.`);
  const watchdogLines = [];
  for (const r of [0, 5, 1, 2, 6, 4, 7]) {
    watchdogLines.push(push(`[rank${r}]:[E1201 14:12:50.${118604 + r * 611} ${48230 + r} ProcessGroupNCCL.cpp:632] [Rank ${r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=600000) ran for ${600051 + r} milliseconds before timing out.`));
  }
  push('E1201 14:12:55.031000 48211 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 3 (pid: 48233) of binary: /usr/bin/python3');
  push('Traceback (most recent call last):');
  push('  File "/usr/local/bin/torchrun", line 8, in <module>');
  push('    sys.exit(main())');
  const childFailed = push('torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ');
  push('============================================================');
  push('train.py FAILED');
  push('------------------------------------------------------------');
  push('Root Cause (first observed failure):');
  push('[0]:');
  push('  time      : 2025-12-01_14:12:55');
  push('  host      : gpu-node-01');
  push('  rank      : 3 (local_rank: 3)');
  push('  exitcode  : 1 (pid: 48233)');
  push('============================================================');
  return {
    text: lines.join('\n') + '\n',
    lineCount: lines.length,
    tracebackStart,
    oomLine,
    watchdogLines,
    childFailed,
  };
}

/** fp16 training whose loss turns NaN. */
export function nanLossLog() {
  const lines = [];
  lines.push('2025-11-30 21:15:40 | INFO | trainer | precision=fp16 optimizer=adamw lr=6e-4 warmup=500 clip_grad=none');
  for (let i = 1; i <= 6; i++) {
    lines.push(`2025-11-30 21:1${5 + Math.floor(i / 3)}:${String(10 * i).padStart(2, '0')} | INFO | trainer | step ${i * 100} | loss ${(8 - i * 0.4).toFixed(3)} | gnorm ${(2 + i * 3.1).toFixed(2)} | loss_scale ${65536 >> i}`);
  }
  for (let i = 0; i < 5; i++) {
    lines.push(`2025-11-30 21:17:2${i} | INFO | optim | Gradient overflow.  Skipping step, loss scale reduced to ${(1024 >> i).toFixed(1)}`);
  }
  lines.push('2025-11-30 21:17:50 | INFO | trainer | step 800 | loss nan | gnorm nan | loss_scale 64');
  lines.push('2025-11-30 21:18:06 | INFO | trainer | step 900 | loss nan | gnorm nan | loss_scale 64');
  lines.push('Traceback (most recent call last):');
  lines.push('  File "/home/ml/train.py", line 402, in train');
  lines.push('    raise RuntimeError(f"Loss is NaN at step {step}, stopping training")');
  lines.push('RuntimeError: Loss is NaN at step 900, stopping training');
  return { text: lines.join('\n') + '\n', lineCount: lines.length };
}

/** A healthy run: progress, warnings, a checkpoint, a clean exit. */
export function healthyLog() {
  const lines = [];
  lines.push('2025-11-29 08:00:01 INFO  launching job 4812 on 1 node, 2 GPUs');
  lines.push('2025-11-29 08:00:03 INFO  dataset: 1,204,112 samples, 9412 batches per epoch');
  for (let i = 1; i <= 12; i++) {
    lines.push(`2025-11-29 08:${String(i).padStart(2, '0')}:00 INFO  epoch 1 step ${i * 500} loss ${(3.2 - i * 0.11).toFixed(3)} acc ${(0.41 + i * 0.03).toFixed(3)} lr 3.0e-04`);
  }
  lines.push('2025-11-29 08:13:00 INFO  saved checkpoint to /ckpt/step-6000.pt (1.2 GB)');
  lines.push('2025-11-29 08:13:02 INFO  validation: loss 2.011 acc 0.771');
  lines.push('2025-11-29 08:13:05 INFO  training finished in 0:13:04, exit code 0');
  return { text: lines.join('\n') + '\n', lineCount: lines.length };
}

/** A log whose error lines carry markup; every byte of it must stay text. */
export function hostileLog() {
  const lines = [
    '2025-12-01 10:00:00 INFO step 1 loss 2.31',
    'RuntimeError: <script>window.__xss=3</script> CUDA error: an illegal memory access was encountered',
    '2025-12-01 10:00:01 ERROR <img src=x onerror=window.__xss=4> torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB',
    '"><svg onload=window.__xss=5> ValueError: </code></li><img src=x onerror=window.__xss=6>',
    'Traceback (most recent call last):',
    '  File "<script>alert(1)</script>.py", line 1, in <module>',
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <b>2.00</b> GiB <iframe src=javascript:window.__xss=7>',
  ];
  return { text: lines.join('\n') + '\n', lineCount: lines.length };
}

/**
 * One short log for each kind of evidence the diagnosis reads beyond an error line's words,
 * with the outcome and the first entry the engine gives: [name, text, outcome, first slug].
 */
/* Cuts every line at `width` characters, as a terminal does to a paste. */
export function hardWrap(text, width) {
  return text.split('\n').flatMap((line) => {
    const chars = [...line];
    if (!chars.length) return [''];
    const pieces = [];
    for (let i = 0; i < chars.length; i += width) pieces.push(chars.slice(i, i + width).join(''));
    return pieces;
  }).join('\n');
}

/* Breaks every line longer than `width` at the last space that fits, as an editor does. */
export function wordWrap(text, width) {
  return text.split('\n').flatMap((line) => {
    const lines = [''];
    for (const word of line.split(/(?<= )/)) {
      const last = lines[lines.length - 1];
      if (last && [...last].length + [...word.trimEnd()].length > width) lines.push('');
      lines[lines.length - 1] += word;
    }
    return lines;
  }).join('\n');
}

export const EVIDENCE_LOGS = [
  ['attention frames', [
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 640, in _prepare_decoder_attention_mask',
    '    expanded_attn_mask = _expand_mask(attention_mask, inputs_embeds.dtype, tgt_len=input_shape[-1])',
    'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB (GPU 0; 79.15 GiB total capacity; 61.02 GiB already allocated; 6.20 GiB free; 61.90 GiB reserved in total by PyTorch)',
  ].join('\n'), 'possible', 'activation-memory-quadratic-attention'],
  ['OOM numbers rule fragmentation out', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.10 GiB is free. Of the allocated memory 21.90 GiB is allocated by PyTorch, and 206.02 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.',
    'possible', 'cuda-oom-batch-too-large'],
  ['a wrapped OOM message in the old wording', [
    'epoch 3 iter 1200 loss 1.024',
    'RuntimeError: CUDA out of memory. Tried to allocate 5.12 GiB',
    '(GPU 0; 11.92 GiB total capacity; 402.10 MiB already allocated; 2.85 GiB free; 6.20 GiB cached)',
  ].join('\n'), 'possible', 'cuda-allocator-fragmentation'],
  ['a kill by exit status', 'Starting training run 20260409 ...\nTraining failed with exit code -9', 'possible', 'cpu-ram-exhaustion'],
  ['the CPU allocator', 'RuntimeError: DefaultCPUAllocator: can\'t allocate memory: you tried to allocate 8589934592 bytes. Error code 12 (Cannot allocate memory)', 'diagnosis', 'cpu-ram-exhaustion'],
  ['a launcher summary alone', [
    'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 39886) of binary: /opt/venv/bin/python',
    'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:',
    'Root Cause (first observed failure):',
    '  exitcode  : 1 (pid: 39886)',
  ].join('\n'), 'possible', 'elastic-child-failed-error'],
  ['a paste a terminal wrapped at 100 columns', hardWrap([
    '$ torchrun --nproc_per_node 2 finetune.py --config configs/sft.yaml',
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous',
    '    self._store = TCPStore(  # type: ignore[call-arg]',
    'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).',
  ].join('\n'), 100), 'diagnosis', 'distributed-port-in-use'],
  ['a paste an editor wrapped at 80 columns', wordWrap([
    '$ torchrun --nproc_per_node 2 finetune.py --config configs/sft.yaml',
    'W1204 10:02:11.118000 140071725119296 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.',
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous',
    '    self._store = TCPStore(  # type: ignore[call-arg]',
    'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).',
  ].join('\n'), 80), 'diagnosis', 'distributed-port-in-use'],
  ['an OOM after many steps', [
    "{'loss': 1.93, 'learning_rate': 2e-05, 'epoch': 0.4}",
    '  8%|▊         | 380/4800 [1:02:11<9:14:20,  1.34s/it]',
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free. Of the allocated memory 75.80 GiB is allocated by PyTorch, and 310.00 MiB is reserved by PyTorch but unallocated.',
  ].join('\n'), 'possible', 'activation-memory-quadratic-attention'],
  ['an OOM on a long input', [
    'summarising reports/annual.txt: 96,400 characters',
    'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.10 GiB (GPU 0; 23.65 GiB total capacity; 17.92 GiB already allocated; 2.71 GiB free; 18.30 GiB reserved in total by PyTorch)',
  ].join('\n'), 'possible', 'activation-memory-quadratic-attention'],
  ['an OOM after the tokenizer said how long the input was', [
    'Token indices sequence length is longer than the specified maximum sequence length for this model (7040 > 4096). Running this sequence through the model will result in indexing errors',
    '  0%|          | 3/1000 [00:09<52:11,  3.14s/it]',
    'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.10 GiB (GPU 0; 23.65 GiB total capacity; 17.92 GiB already allocated; 2.71 GiB free; 18.30 GiB reserved in total by PyTorch)',
  ].join('\n'), 'possible', 'activation-memory-quadratic-attention'],
  ['a traceback in an escaped repr', [
    'epoch 0:   1%|          | 41/6027 [00:19<46:51,  2.13it/s]',
    String.raw`Run a1 errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n    data = fetcher.fetch(index)\n  File "/work/train.py", line 40, in collate_frames\n    return torch.stack(frames)\nRuntimeError: stack expects each tensor to be equal size, but got [3, 1, 224, 224] at entry 0 and [3, 1, 144, 192] at entry 6\n')`,
  ].join('\n'), 'diagnosis', 'collate-unequal-tensor-sizes'],
  ['one allocation of a quarter of the device', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 6.10 GiB is free. Of the allocated memory 66.90 GiB is allocated by PyTorch, and 3.20 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.',
    'possible', 'activation-memory-quadratic-attention'],
  ['a cuBLAS call on bfloat16', 'RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx(handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`',
    'diagnosis', 'bf16-unsupported-gpu'],
  ['a collate frame where a garbled stacking error was raised', [
    'Traceback (most recent call last):',
    '  File "/work/train.py", line 88, in <module>',
    '    for batch in loader:',
    '  File "/opt/venv/lib/python3.9/site-packages/torch/utils/data/_utils/collate.py", line 56, in default_collate',
    '    return torch.stack(batch, 0, out=out)',
    'RuntimeError: stacking expect every tensor be same size, but obtained [2, 2400, 3] in entry 0 and [2, 2332, 3] in entry 1',
  ].join('\n'), 'possible', null],
  ['an OOM message pasted without its exception class', 'CUDA out of memory. Tried to allocate 46.00 MiB (GPU 0; 11.17 GiB total capacity; 10.44 GiB already',
    'possible', 'cuda-oom-batch-too-large'],
  ["PyTorch 2.1's misspelt capacity", 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 355.43 GiB. GPU 0 has a total capacty of 79.32 GiB of which 18.06 GiB is free. Of the allocated memory 59.80 GiB is allocated by PyTorch, and 190.44 MiB is reserved by PyTorch but unallocated.',
    'possible', 'activation-memory-quadratic-attention'],
  ["every word of a signature but not its message", [
    'Traceback (most recent call last):',
    '  File "/srv/train.py", line 31, in <module>',
    '    dist.init_process_group(backend="nccl")',
    "RuntimeError: Distributed package doesn't have NCCL built in",
  ].join('\n'), 'possible', 'nccl-communicator-error'],
  // A message no entry declares (pickle's own `Ran out of input` is a signature now), raised
  // in frames the pickling entry names.
  ['frame cues ahead of common words', [
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.11/multiprocessing/reduction.py", line 60, in dump',
    '    ForkingPickler(file, protocol).dump(obj)',
    'EOFError: unexpected end of data',
  ].join('\n'), 'possible', 'dataloader-pickle-local-object'],
  ["pickle's end of data in a spawned worker", [
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.11/multiprocessing/reduction.py", line 60, in dump',
    '    ForkingPickler(file, protocol).dump(obj)',
    'EOFError: Ran out of input',
  ].join('\n'), 'diagnosis', 'dataloader-pickle-local-object'],
  ['a flattened traceback an editor wrapped', wordWrap([
    'python eval.py --beam 5',
    'loading weights',
    "Traceback (most recent call last): File \"eval.py\", line 138, in <module> out, _ = model.beam_search(feats, eos_idxs=[vocab.stoi['<eos>'], -1], beam_size=5) File \"/srv/sct/models/captioning.py\", line 151, in beam_search selected_logprob, selected_idx = torch.sort(seq_logprob.view(b_s, -1), -1, descending=True) RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
  ].join('\n'), 100), 'diagnosis', 'view-non-contiguous-tensor'],
  ['a frame broken inside its path', [
    'Traceback (most recent call last):',
    '  File "/home/lab/envs/nerf/lib/python3.7/site-',
    'packages/torch/utils/data/dataloader.py", line 517, in __next__',
    '    data = self._next_data()',
    'RuntimeError: stack expects each tensor to be equal size, but got [2, 2400, 3] at entry 0 and [2, 2332, 3] at entry 1',
  ].join('\n'), 'diagnosis', 'collate-unequal-tensor-sizes'],
  ["ROCm's memory-access fault", [
    'step 10 loss 2.1',
    'Memory access fault by GPU node-2 (Agent handle: 0x55d0c0a0b0c0) on address 0x7f1c00000000. Reason: Page not present or supervisor privilege.',
    'Aborted (core dumped)',
  ].join('\n'), 'diagnosis', 'cuda-illegal-memory-access'],
  ["a debugger's pop-up", [
    'Exception has occurred: RuntimeError',
    'mat1 and mat2 shapes cannot be multiplied (2708x7 and 256x256)',
    '  File "/srv/graph/models/edcoder.py", line 246, in mask_attr_prediction',
    '    rep = self.encoder_to_decoder(enc_rep)',
  ].join('\n'), 'diagnosis', 'matmul-shape-mismatch'],
  ['a message printed below its exception', [
    'Saving model checkpoint to runs/lora/checkpoint-50',
    'RuntimeError: ',
    "            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: [{'model.embed_tokens.weight', 'lm_head.weight'}].",
    '            A potential way to correctly save your model is to use `save_model`.',
  ].join('\n'), 'diagnosis', 'shared-tensors-on-save'],
  ['a rank dead of SIGBUS', [
    '[2024-03-02 10:00:01,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4121',
    "[2024-03-02 10:00:01,200] [ERROR] [launch.py:321:sigkill_handler] ['/opt/venv/bin/python', '-u', 'main.py', '--local_rank=1'] exits with return code = -7",
  ].join('\n'), 'possible', 'dataloader-shared-memory-crash'],
  ["an error line's reasons on the lines below it", [
    'NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:',
    '     query       : shape=(2, 1024, 8, 64) (torch.bfloat16)',
    '     key         : shape=(2, 1024, 8, 64) (torch.bfloat16)',
    '     value       : shape=(2, 1024, 8, 64) (torch.bfloat16)',
    '`cutlassF-pt` is not supported because:',
    '    bf16 is only supported on A100+ GPUs',
  ].join('\n'), 'possible', 'bf16-unsupported-gpu'],
  ["a script's report of a job killed", [
    'epoch 1 step 40 loss 2.31',
    '/bin/bash: line 1: 48213 Killed                  python train.py --batch-size 64',
  ].join('\n'), 'possible', 'cpu-ram-exhaustion'],
  ["Hydra's announcement before the job's exception", [
    "Error executing job with overrides: ['+batch_size=8', 'trainer.devices=2']",
    'Traceback (most recent call last):',
    '  File "/srv/lm/train.py", line 41, in main',
    '    batch = tokenizer(texts, padding=True, return_tensors="pt")',
    "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.",
    '',
    'Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.',
  ].join('\n'), 'diagnosis', 'tokenizer-missing-pad-token'],
  ['a decode error no entry explains', [
    'Traceback (most recent call last):',
    '  File "/work/prep.py", line 30, in <module>',
    '    rows = f.read()',
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x92 in position 7047: invalid start byte",
  ].join('\n'), 'none', null],
  ['a notebook traceback from before IPython 7', [
    'RuntimeError                              Traceback (most recent call last)',
    '<ipython-input-7-5e2d0c41b9aa> in <module>()',
    '----> 4     out = net(x.cuda())',
    '',
    '/usr/local/lib/python3.7/dist-packages/torch/nn/modules/module.py in _call_impl(self, *input, **kwargs)',
    '   1049             return forward_call(*input, **kwargs)',
    '',
    "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
  ].join('\n'), 'diagnosis', 'view-non-contiguous-tensor'],
  ["rich's boxed traceback, wrapped, behind pdsh's address prefix", [
    '10.40.8.11: ╭──────────── Traceback (most recent call last) ────────────╮',
    '10.40.8.11: │ /srv/proj/train.py:353 in <module>                        │',
    '10.40.8.11: │ ❱ 353 │   main()                                          │',
    '10.40.8.11: │ /opt/venv/lib/python3.10/site-packages/deepspeed/runtime/config.py: │',
    '10.40.8.11: │ 891 in _batch_assertion                                   │',
    '10.40.8.11: │ ❱ 891 │   │   │   f"Check batch related parameters. "      │',
    '10.40.8.11: ╰───────────────────────────────────────────────────────────╯',
    '10.40.8.11: AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 * 8 * 1',
  ].join('\n'), 'diagnosis', 'deepspeed-batch-size-mismatch'],
  ['a paste from cat -n, each line behind its number', [
    'step 12 loss 2.31',
    'Traceback (most recent call last):',
    '  File "/srv/train.py", line 40, in <module>',
    '    loss.backward()',
    'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed).',
  ].map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n'), 'diagnosis', 'backward-through-graph-twice'],
  ['a warning before a crash it does not explain', [
    '/opt/venv/lib/python3.11/site-packages/torch/serialization.py:1113: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly.',
    'Traceback (most recent call last):',
    '  File "/work/run.py", line 12, in <module>',
    '    state = torch.load(path, map_location="cpu")',
    "FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/none.pt'",
  ].join('\n'), 'possible', null],
  ['a paste cut above its frames, with the raise statement under the last one', [
    '[...]',
    '  File "/opt/venv/lib/python3.10/site-packages/torch/amp/grad_scaler.py", line 337, in unscale_',
    '    optimizer_state["found_inf_per_device"] = self._unscale_grads_(',
    '  File "/opt/venv/lib/python3.10/site-packages/torch/amp/grad_scaler.py", line 259, in _unscale_grads_',
    '    raise ValueError("Attempting to unscale FP16 gradients.")',
    'ValueError: Attempting to unscale FP16 gradients.',
  ].join('\n'), 'diagnosis', 'gradscaler-unscale-fp16-gradients'],
  ['a traceback cut right after its last raise statement', [
    'Epoch 3:  41%|████      | 812/1980 [05:12<07:30, 2.59it/s, loss=2.31]',
    'Traceback (most recent call last):',
    '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
    '    data = self._data_queue.get(timeout=timeout)',
    '  File "/usr/lib/python3.10/multiprocessing/reduction.py", line 164, in recvfds',
    "    raise RuntimeError('received %d items of ancdata' %",
  ].join('\n'), 'diagnosis', 'dataloader-too-many-open-files'],
  ['a shared message told apart by a line of its own', [
    'RuntimeError: DataLoader worker (pid(s) 51210) exited unexpectedly',
    'slurmstepd: error: Detected 1 oom-kill event(s) in StepId=77120.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.',
  ].join('\n'), 'diagnosis', 'cpu-ram-exhaustion'],
  ['a message ended on another signal', [
    'Traceback (most recent call last):',
    '  File "train.py", line 50, in <module>',
    '    for batch in loader:',
    'RuntimeError: DataLoader worker (pid 4242) is killed by signal: Aborted.',
  ].join('\n'), 'possible', null],
  ['a glog record with its thread id', '2021-07-02 01:00:00.000000: E     374 tensorflow/stream_executor/cuda/cuda_driver.cc:1010] failed to synchronize the stop event: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered',
    'diagnosis', 'cuda-illegal-memory-access'],
];
