//! Diagnoses that turn on the exact words a CUDA library prints, on the real `content/` with
//! logs the project writes: the data type in the cuBLAS call PyTorch quotes, and the CUDA
//! runtime's own error in a forked DataLoader worker, and ROCm's memory-access fault.

use errata_search::diagnose::Outcome;

use super::diagnosis::{diagnosed, top};

/// cuBLAS's `NOT_SUPPORTED` has several causes; the call PyTorch quotes names the data type,
/// and `CUDA_R_16BF` (bfloat16) on it points at a GPU without bf16 GEMMs.
#[test]
fn a_cublas_call_on_bfloat16_points_at_the_gpu() {
    let call = |dtype: &str| {
        format!("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx(handle, opa, opb, m, n, k, &falpha, a, {dtype}, lda, b, {dtype}, ldb, &fbeta, c, {dtype}, ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`\n")
    };
    let d = diagnosed(&call("CUDA_R_16BF"));
    assert_eq!(top(&d), "bf16-unsupported-gpu", "{d:#?}");
    assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
    let d = diagnosed(&call("CUDA_R_32F"));
    assert_eq!(top(&d), "cublas-status-errors", "{d:#?}");
    assert!(d.entries.iter().any(|e| e.slug == "bf16-unsupported-gpu"));
}

/// A forked DataLoader worker that touches CUDA after the parent set it up gets the runtime's
/// error 3 when PyTorch's own fork check does not run: the fork entry, not a driver problem.
#[test]
fn the_runtimes_initialization_error_in_a_worker_is_the_fork() {
    let log = "Traceback (most recent call last):
  File \"fit.py\", line 40, in <module>
    for images, labels in loader:
  File \"/env/lib/python3.8/site-packages/torch/utils/data/dataloader.py\", line 1345, in _process_data
    data.reraise()
RuntimeError: Caught RuntimeError in DataLoader worker process 1.
Original Traceback (most recent call last):
  File \"/env/lib/python3.8/site-packages/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop
    data = fetcher.fetch(index)
  File \"/home/me/fit/data.py\", line 22, in __getitem__
    return torch.as_tensor(self.rows[i], device=\"cuda\")
RuntimeError: CUDA error: initialization error
";
    let d = diagnosed(log);
    assert_eq!(top(&d), "cuda-reinit-forked-subprocess", "{d:#?}");
    let old = diagnosed("RuntimeError: CUDA error (3): initialization error\n");
    assert_eq!(top(&old), "cuda-reinit-forked-subprocess", "{old:#?}");
}

/// One word shared with a signature of several points at nothing: a decode error shares only
/// `error` with `CUDA error: initialization error`, and no entry explains it.
#[test]
fn one_word_of_a_short_cuda_signature_points_nowhere() {
    let log = "Traceback (most recent call last):\n  File \"/work/prep.py\", line 30, in <module>\n    rows = f.read()\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0x92 in position 7047: invalid start byte\n";
    let d = diagnosed(log);
    assert_eq!(d.outcome, Outcome::None, "{d:#?}");
}

/// ROCm's HSA runtime reports an illegal address with its own line before it aborts the
/// process: it is the failing line, and it points at the illegal-memory-access entry, not at
/// the abort that follows it.
#[test]
fn rocms_memory_access_fault_is_an_illegal_access() {
    let d = diagnosed(
        "step 10 loss 2.1
Memory access fault by GPU node-2 (Agent handle: 0x55d0c0a0b0c0) on address 0x7f1c00000000. Reason: Page not present or supervisor privilege.
Aborted (core dumped)
",
    );
    assert_eq!(top(&d), "cuda-illegal-memory-access", "{d:#?}");
    assert_eq!(d.first_failure.as_ref().map(|f| f.line), Some(2), "{d:#?}");
}
