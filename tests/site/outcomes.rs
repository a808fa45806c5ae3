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
