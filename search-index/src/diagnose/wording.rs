//! Whether a line holds a signature's wording as a line that names the failure does.
//!
//! Takes a line's match of one signature ([`Wording`]), from a search hit or from an evidence
//! line; yields the one test the verdict names a failure by, which the combining of lines also
//! asks of a message's continuation and of an out-of-memory message in other words.

use super::Evidence;
use crate::coverage::words_in_a_row;
use crate::log::classify::exception_head;
use crate::Hit;

/// The share of a signature's defining words a line needs to name the failure.
pub(super) const MIN_DEFINING: f32 = 0.75;
/// The coverage a line needs to name the failure by a signature that has no defining words
/// (each of its words is in several entries' signatures): most of its wording.
const MIN_UNDEFINED_COVERAGE: f32 = 0.8;
/// The share of a signature's message (its words after the exception's name) a line needs in
/// the order written to name the failure: `RuntimeError: Distributed package doesn't have NCCL
/// built in` holds every word of `RuntimeError: NCCL error in:`, but not its message.
pub(super) const MIN_PHRASE: f32 = 0.5;

/// A line's match of one signature: what a search hit and an evidence line both carry.
pub(super) struct Wording<'a> {
    /// The line.
    pub text: &'a str,
    /// The signature it matched best.
    pub signature: Option<&'a str>,
    /// The share of the signature's terms the line holds.
    pub coverage: f32,
    /// The share of the signature's defining terms the line holds; 1 when it has none.
    pub defining: f32,
    /// Whether the signature has defining terms at all.
    pub defined: bool,
    /// The share of the signature's message the line holds as one run in its order.
    pub phrase: f32,
    /// Whether the line says the start of the message, then another word where it goes on.
    pub ends_otherwise: bool,
}

impl<'a> Wording<'a> {
    pub fn of_evidence(e: &'a Evidence) -> Self {
        Wording {
            text: &e.text,
            signature: e.signature.as_deref(),
            coverage: e.coverage,
            defining: e.defining,
            defined: e.defined,
            phrase: e.phrase,
            ends_otherwise: e.ends_otherwise,
        }
    }

    /// The match of `hit`, found for the line `text`.
    pub fn of_hit(hit: &'a Hit, text: &'a str) -> Self {
        Wording {
            text,
            signature: hit.matched_signature.as_deref(),
            coverage: hit.coverage,
            defining: hit.defining,
            defined: hit.defined,
            phrase: hit.phrase,
            ends_otherwise: hit.ends_otherwise,
        }
    }
}

/// Whether the line holds enough of its signature's wording, in order and with its defining
/// words, to name the failure, given the coverage it needs; not a wrapper's bare name over
/// another exception ([`relays_another`]), nor a sibling message that ends on another word
/// ([`Evidence::ends_otherwise`]).
pub(super) fn holds_the_wording(w: &Wording, threshold: f32) -> bool {
    w.coverage >= threshold
        && w.phrase >= MIN_PHRASE
        && !w.ends_otherwise
        && w.defining >= MIN_DEFINING
        && (w.defined || w.coverage >= MIN_UNDEFINED_COVERAGE)
        && !relays_another(w)
        && more_than_a_name(w)
}

/// Whether the line holds more than one word of its signature in a row, when the signature has
/// three words or more: a line that shares one identifier with it (`state_dict` of `Missing
/// key(s) in state_dict:`, three terms with its parts) shares a name, not the message.
fn more_than_a_name(w: &Wording) -> bool {
    const SLACK: f32 = 1e-3;
    w.signature.is_none_or(|signature| {
        let (held, words) = words_in_a_row(signature, w.text);
        words < 3.0 || held > 1.0 + SLACK
    })
}

/// Whether the line matched a signature that is only an exception's name, and its message is
/// another exception (`torch._inductor.exc.InductorError: RuntimeError: No valid triton
/// configs.`): the class wraps whatever failed inside it, and the inner exception, not the
/// wrapper, says what that was.
fn relays_another(w: &Wording) -> bool {
    let Some(signature) = w.signature else {
        return false;
    };
    let bare = signature.trim().trim_end_matches(':');
    if bare.contains(char::is_whitespace) || !w.text.starts_with(bare) {
        return false;
    }
    let message = w.text[bare.len()..].trim_start_matches(':').trim_start();
    (message.split_whitespace().next()).is_some_and(|w| w.ends_with(':') && exception_head(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole<'a>(signature: &'a str, text: &'a str) -> Wording<'a> {
        Wording {
            text,
            signature: Some(signature),
            coverage: 1.0,
            defining: 1.0,
            defined: true,
            phrase: 1.0,
            ends_otherwise: false,
        }
    }

    #[test]
    fn a_wrapper_over_another_exception_does_not_hold_its_own_name() {
        let wrapper = "torch._inductor.exc.InductorError";
        let relayed = "torch._inductor.exc.InductorError: RuntimeError: No valid triton configs.";
        let own = "torch._inductor.exc.InductorError: lowering failed for aten.mm";
        assert!(!holds_the_wording(&whole(wrapper, relayed), 0.5));
        assert!(holds_the_wording(&whole(wrapper, own), 0.5));
    }

    #[test]
    fn a_sibling_message_or_one_shared_name_does_not_hold_the_wording() {
        let signature = "CUDA error: invalid device function";
        let sibling = Wording {
            ends_otherwise: true,
            ..whole(signature, "CUDA error: invalid device pointer")
        };
        assert!(!holds_the_wording(&sibling, 0.5));
        let name = Wording {
            coverage: 0.6,
            ..whole("Missing key(s) in state_dict:", "KeyError: state_dict")
        };
        assert!(!holds_the_wording(&name, 0.5));
        let undefined = Wording {
            defined: false,
            coverage: 0.6,
            ..whole(
                "RuntimeError: CUDA error",
                "RuntimeError: CUDA error: unknown",
            )
        };
        assert!(!holds_the_wording(&undefined, 0.5));
    }
}
