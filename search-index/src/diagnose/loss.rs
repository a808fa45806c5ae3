//! Whether an out-of-memory error was raised in the logits over a vocabulary or their loss.
//!
//! Takes the OOM line and the lines before it; answers whether the innermost frames are the
//! loss over the vocabulary (`cross_entropy`, `log_softmax`, `nll_loss`, Transformers'
//! `ForCausalLMLoss`, Megatron's `vocab_parallel_*`) or code over the logits themselves (the
//! `lm_head` projection, a `logits.float()` upcast, the log-probabilities an RL trainer takes
//! of every token): the `(batch, sequence, vocabulary)` logits and their fp32 copies, whose size
//! grows with the number of tokens in the batch, the peak of a long or oversized batch rather
//! than of the model.

use super::attention::innermost;
use super::oom::is_oom_message;

/// What a frame or source line of the logits over the vocabulary, or of their loss, holds.
const LOSS_CODE: [&str; 10] = [
    "cross_entropy",
    "crossentropy",
    "log_softmax",
    "nll_loss",
    "logits.float()",
    "lm_head",
    "logprob",
    "log_prob",
    "vocab_parallel",
    "forcausallmloss",
];

/// The sentence that says the allocation was the loss's, if it was.
pub fn in_loss(line_number: usize, text: &str, context: &str) -> Option<String> {
    if !is_oom_message(text) {
        return None;
    }
    let code = innermost(text, context).find(|l| {
        let lower = l.to_ascii_lowercase();
        LOSS_CODE.iter().any(|c| lower.contains(c))
    })?;
    Some(format!(
        "line {line_number}: the allocation that failed was made in the logits over the vocabulary or their loss (`{}`), which grow with the number of tokens in the batch",
        code.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::in_loss;

    #[test]
    fn an_oom_in_the_loss_and_elsewhere() {
        let oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB.";
        let frames = "File \"torch/nn/functional.py\", line 3104, in cross_entropy\nreturn torch._C._nn.cross_entropy_loss(input, target, weight)";
        assert!(in_loss(7, oom, frames)
            .unwrap()
            .contains("cross_entropy_loss"));
        // Joined to the exception by a paste.
        let joined = "return torch._C._nn.cross_entropy_loss(input, target) torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB";
        assert!(in_loss(7, joined, "").is_some());
        // The logits themselves: the head's projection, an RL trainer's log-probabilities; not
        // a call of the whole model whose result is named so.
        for code in [
            "File \"modeling_llama.py\", line 1190, in forward\nlogits = self.lm_head(hidden_states)",
            "File \"rl/ppo_utils.py\", line 219, in vocab_parallel_softmax\nx = x.sub_(x_max)",
            "File \"rl/core.py\", line 40, in logprobs_from_logits\nreturn torch.gather(y, -1, idx)",
        ] {
            assert!(in_loss(7, oom, code).is_some(), "{code}");
        }
        let call = "File \"train.py\", line 30, in step\nlogits = model(input_ids)";
        assert_eq!(in_loss(7, oom, call), None);
        let mlp = "File \"torch/nn/modules/linear.py\", line 114, in forward\nreturn F.linear(input, self.weight, self.bias)";
        assert_eq!(in_loss(7, oom, mlp), None);
        // The loss further out than the innermost frames is not where the allocation was.
        let outer = format!("File \"train.py\", line 9, in step\nloss = F.cross_entropy(logits, y)\nFile \"m.py\", line 1, in f\nx = g(x)\n{mlp}");
        assert_eq!(in_loss(7, oom, &outer), None);
        assert_eq!(
            in_loss(7, "IndexError: Target 5 is out of bounds.", frames),
            None
        );
    }
}
