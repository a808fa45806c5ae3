//! Whether an out-of-memory error came from attention over a long sequence.
//!
//! Takes the first out-of-memory exception line with the lines before it (the innermost
//! frames of its traceback); yields a sentence when the failed allocation was attention's:
//! the innermost frames, where the allocation was made, are attention code (`attn_weights =
//! torch.bmm(q, k.transpose(1, 2))`, `softmax(attention_scores`, or any product of queries by
//! keys written by hand), or the tensor that could not
//! be allocated ends in two equal large dimensions (TensorFlow's `shape[16,20000,20000]`), the
//! sequence-by-sequence scores whose memory grows with the square of the length.

use super::oom::is_oom_message;

/// Lines of the traceback's end read: the last two frames and their source lines.
const INNERMOST_LINES: usize = 4;
/// The smallest sequence length whose square scores are taken as the cause.
const LONG_SEQUENCE: u64 = 2048;

/// The sentence that says the allocation was attention's, if it was.
pub fn in_attention(line_number: usize, text: &str, context: &str) -> Option<String> {
    if !is_oom_message(text) {
        return None;
    }
    if let Some(length) = square_shape(text) {
        return Some(format!(
            "line {line_number}: the tensor that could not be allocated ends in {length}×{length}, the attention scores of a {length}-token sequence, whose memory grows with the square of its length"
        ));
    }
    let code = innermost(text, context).find(|l| names_attention(l) || query_key_product(l))?;
    Some(format!(
        "line {line_number}: the allocation that failed was made in attention (`{}`), whose memory grows with the square of the sequence length",
        code.trim()
    ))
}

/// The innermost frames and source lines of the traceback that raised `text`, innermost first;
/// with the text before the exception on its own line, when a paste joined the last source
/// line to it (`return torch._C._nn.cross_entropy_loss(...) torch.OutOfMemoryError: ...`).
pub(super) fn innermost<'a>(text: &'a str, context: &'a str) -> impl Iterator<Item = &'a str> {
    let joined = (text.find("Error:").or_else(|| text.find("Exception:")))
        .map(|at| text[..at].trim())
        .filter(|before| before.contains('('));
    let lines: Vec<&str> = context.lines().collect();
    let start = lines.len().saturating_sub(INNERMOST_LINES);
    joined
        .into_iter()
        .chain(lines.into_iter().skip(start).rev())
}

/// Whether a frame or source line is attention code: a word that is or starts with `attn` or
/// `attention` (`self_attn`, `attn_weights`, `attention_scores`, `eager_attention_forward`).
fn names_attention(line: &str) -> bool {
    line.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word.starts_with("attn") || word.starts_with("attention"))
        || line.contains("_attn")
        || line.contains("_attention")
}

/// Whether a source line multiplies queries by keys, attention written by hand: a product
/// (`einsum`, `bmm`, `matmul`, `@`) with a query operand and a key operand (`q`, `query`,
/// `q_proj`, `qt`; `k`, `key`, `keys`, `kt`), as in `scores = torch.matmul(q, k.transpose(-2,
/// -1))` or `torch.einsum('bhid,bhjd->bhij', q, k)`.
fn query_key_product(line: &str) -> bool {
    const PRODUCTS: [&str; 4] = ["einsum(", "bmm(", "matmul(", " @ "];
    if !PRODUCTS.iter().any(|p| line.contains(p)) {
        return false;
    }
    let words: Vec<String> = line
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map(str::to_ascii_lowercase)
        .collect();
    let names = |letter: char, whole: [&str; 2]| {
        words.iter().any(|w| {
            whole.contains(&w.as_str())
                || (w.starts_with(letter) && (w.len() <= 2 || w[1..].starts_with('_')))
        })
    };
    names('q', ["query", "queries"]) && names('k', ["key", "keys"])
}

/// The length `L` of a `shape[..., L, L]` (or `shape=(..., L, L)`) with `L` long.
fn square_shape(text: &str) -> Option<u64> {
    let start = text.find("shape")? + "shape".len();
    let rest = text[start..].trim_start_matches(['=', ' ', '[', '(']);
    let end = rest.find([']', ')'])?;
    let dims: Vec<u64> = rest[..end]
        .split(',')
        .map(|d| d.trim().parse().ok())
        .collect::<Option<_>>()?;
    match dims.as_slice() {
        [.., a, b] if a == b && *a >= LONG_SEQUENCE => Some(*a),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_frames_and_square_shapes() {
        let oom = "RuntimeError: CUDA out of memory. Tried to allocate 746.00 MiB";
        let frames = "File \"esm/multihead_attention.py\", line 367, in forward\nattn_weights = torch.bmm(q, k.transpose(1, 2))";
        assert!(in_attention(9, oom, frames)
            .unwrap()
            .contains("attn_weights"));
        let mlp = "File \"torch/nn/modules/linear.py\", line 114, in forward\nreturn F.linear(input, self.weight, self.bias)";
        assert_eq!(in_attention(9, oom, mlp), None);
        // Attention further out than the innermost frames is not where the allocation was.
        let outer = format!(
            "File \"m.py\", line 1, in forward\nx = self.self_attn(x)\nFile \"torch/nn/modules/module.py\", line 1110, in _call_impl\nreturn forward_call(*input)\n{mlp}"
        );
        assert_eq!(in_attention(9, oom, &outer), None);
        // Attention written by hand: queries times keys.
        for code in [
            "scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d)",
            "w = torch.einsum('nqd,nkd->nqk', [q_h, k_h]) * self.scale",
            "s = (qt @ kt.transpose(2, 3))",
        ] {
            let frames = format!("File \"net/blocks.py\", line 40, in forward\n{code}");
            assert!(in_attention(9, oom, &frames).is_some(), "{code}");
        }
        for code in [
            "y = torch.matmul(x, self.weight)",
            "out = torch.einsum('bij,bjk->bik', a, b)",
            "keys = sorted(q.keys())",
        ] {
            let frames = format!("File \"net/blocks.py\", line 40, in forward\n{code}");
            assert_eq!(in_attention(9, oom, &frames), None, "{code}");
        }
        let tf = "ResourceExhaustedError: OOM when allocating tensor with shape[16,20000,20000] and type float";
        assert!(in_attention(3, tf, "").unwrap().contains("20000×20000"));
        let small = "ResourceExhaustedError: OOM when allocating tensor with shape[64,512,512] and type float";
        assert_eq!(in_attention(3, small, ""), None);
        assert_eq!(in_attention(3, "KeyError: attn_weights", frames), None);
    }
}
