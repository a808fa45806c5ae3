//! The numbers inside an out-of-memory message, and what they rule out.
//!
//! Takes an error line; yields the sizes it states, in bytes: the request, the device's
//! capacity and free memory, what is allocated, reserved, and reserved but unallocated, in the
//! wordings of PyTorch 1.x (`(GPU 0; 15.78 GiB total capacity; 12.68 GiB already allocated;
//! 718.75 MiB free; 13.63 GiB reserved in total by PyTorch)`; before 1.5, `...; 4.36 GiB free;
//! 6.80 GiB cached)`, where *cached* is the memory reserved but unallocated), PyTorch 2.x (`GPU
//! 0 has a total capacity of ... of which ... is free. ... Of the allocated memory ... is
//! allocated by PyTorch, and ... is reserved by PyTorch but unallocated.`; 2.1 spelt it
//! `capacty`), TensorFlow (`ran out
//! of memory trying to allocate`), XLA (`Out of memory while trying to allocate N bytes`), CuPy
//! (`Out of memory allocating 488,455,168 bytes`) and PyTorch's cudaMallocAsync backend
//! (`Allocation on device 0 would exceed allowed memory. (out of memory)` with `Currently
//! allocated : ...`, `Requested : ...`, `Device limit : ...` lines); an XLA allocator's
//! `RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB`, and an exception named for it
//! with no other words (`torch.OutOfMemoryError: Tried to allocate 12.60 GiB`) are
//! out-of-memory messages too.
//! From them, whether allocator fragmentation can explain the failure: only when the memory
//! reserved but unallocated, with what the device still has free, could have held the request.
//! A memory summary or snapshot printed beside the OOM ([`dump_fragmentation`]) answers the
//! same question when the message cannot.

use crate::log::memory::MemoryDump;
use crate::log::{ErrorLine, LineKind};

/// The share of the memory the allocator holds that must be free (reserved but unallocated)
/// for fragmentation to be a likely explanation of an OOM.
pub const FRAGMENTED_SHARE: f64 = 0.1;

/// What an OOM message says, in bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OomNumbers {
    pub requested: Option<f64>,
    pub capacity: Option<f64>,
    pub free: Option<f64>,
    pub allocated: Option<f64>,
    pub reserved: Option<f64>,
    pub reserved_unallocated: Option<f64>,
}

/// Whether fragmentation can explain an OOM, and the sentence that shows why.
#[derive(Debug, Clone, PartialEq)]
pub enum Fragmentation {
    /// The reserved-but-unallocated memory could have held the request.
    Possible(String),
    /// It could not: fragmentation cannot explain the failure.
    RuledOut(String),
    /// It could, but the pieces are a sliver of what the allocator holds: the numbers speak
    /// against fragmentation without ruling it out.
    Unlikely(String),
}

/// The first out-of-memory error line that is not a consequence of another error.
pub fn first_oom(lines: &[ErrorLine]) -> Option<&ErrorLine> {
    lines
        .iter()
        .find(|l| !l.collateral && is_oom_message(&l.text))
}

/// Whether `line` is an out-of-memory message, in any of the wordings above.
/// The exception's name says it too (`torch.OutOfMemoryError: Tried to allocate 12.60 GiB`), and
/// so does a status of resource exhaustion about an allocation (XLA's `RESOURCE_EXHAUSTED:
/// Failed to allocate request for 2.00GiB`, or TensorFlow's `ResourceExhaustedError: OOM when`
/// cut before the allocation), which is otherwise a quota or a message size.
pub fn is_oom_message(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let exhausted = lower.contains("resource_exhausted") || lower.contains("resourceexhausted");
    let says_oom = || {
        lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w == "oom")
    };
    lower.contains("out of memory")
        || lower.contains("oom when allocating")
        || lower.contains("outofmemoryerror")
        || (exhausted && (lower.contains("alloc") || lower.contains("memory") || says_oom()))
}

/// The finding ([`super::FINDINGS`]) of an out-of-memory message in other words.
pub const OTHER_WORDS: &str = "oom-other-wording";

/// Whether `line` is an error line (not a warning, not a consequence of another error) holding an
/// out-of-memory message in words the entries do not declare: no signature's wording names it
/// (`named`: PaddlePaddle's host allocator's `ResourceExhaustedError: Fail to alloc memory`, which
/// the host-memory entry declares), and no out-of-memory signature among its `hits` matches it on
/// more than common words (TensorFlow's `OOM when allocating tensor with shape[...]` where an
/// entry declares only `ran out of memory trying to allocate`). Memory ran out all the same: the
/// entries that declare the finding are candidates, as for any out-of-memory message; which of
/// them the log's other facts decide.
pub(crate) fn in_other_words(line: &ErrorLine, hits: &[crate::searcher::Hit], named: bool) -> bool {
    let error = matches!(line.kind, LineKind::Exception | LineKind::Error);
    error
        && !line.collateral
        && !named
        && is_oom_message(&line.text)
        && !(hits.iter())
            .any(|h| h.specific && h.matched_signature.as_deref().is_some_and(is_oom_message))
}

/// The reason an out-of-memory message in other words gives, for line `line`.
pub fn other_words_reason(line: usize) -> String {
    format!("line {line}: an out-of-memory error in words no entry's signature holds; memory ran out, and the message does not say why")
}

/// Whether `line` is an out-of-memory message matched by a signature that is one too: the
/// words `out of memory` are common to many signatures, yet together they say what failed, so
/// a wording errata does not know (Caffe2's `[enforce fail at event_gpu.cc:17] error ==
/// cudaSuccess. 2 vs 0. Error at: ...: out of memory`) still points at the memory entries. Only
/// for a line that matches no signature on more than common words: one that does (`CUDA out
/// of memory. Tried to allocate`) has said which memory ran out.
pub fn same_kind(line: &str, hit: &crate::searcher::Hit) -> bool {
    (hit.matched_signature.as_deref()).is_some_and(is_oom_message) && is_oom_message(line)
}

impl OomNumbers {
    /// The numbers of `line`, when it is an out-of-memory message that states a request.
    pub fn of(line: &str) -> Option<OomNumbers> {
        if !is_oom_message(line) {
            return None;
        }
        let lower = line.to_ascii_lowercase();
        let n = OomNumbers {
            requested: size_after(&lower, "tried to allocate")
                .or_else(|| size_after(&lower, "trying to allocate"))
                .or_else(|| size_after(&lower, "out of memory allocating"))
                .or_else(|| size_after(&lower, "failed to allocate request for"))
                .or_else(|| size_after_label(&lower, "requested")),
            // PyTorch 2.1's message misspelt it: `GPU 0 has a total capacty of 23.65 GiB`.
            capacity: size_after(&lower, "total capacity of")
                .or_else(|| size_after(&lower, "total capacty of"))
                .or_else(|| size_before(&lower, "total capacity"))
                .or_else(|| size_after_label(&lower, "device limit")),
            free: size_after(&lower, "of which")
                .or_else(|| size_before(&lower, "free;"))
                .or_else(|| size_after_label(&lower, "free (according to cuda)")),
            allocated: size_before(&lower, "is allocated by pytorch")
                .or_else(|| size_before(&lower, "already allocated"))
                .or_else(|| size_after_label(&lower, "currently allocated")),
            reserved: size_before(&lower, "reserved in total by pytorch"),
            reserved_unallocated: size_before(&lower, "is reserved by pytorch but unallocated")
                .or_else(|| size_before(&lower, "cached)")),
        };
        n.requested.is_some().then_some(n)
    }

    /// The memory reserved by the allocator but not allocated to tensors, stated or derived.
    fn unallocated(&self) -> Option<f64> {
        self.reserved_unallocated.or_else(|| {
            let (reserved, allocated) = (self.reserved?, self.allocated?);
            Some((reserved - allocated).max(0.0))
        })
    }

    /// Whether fragmentation can explain this OOM; `None` when the message does not say
    /// enough. The allocator raises an OOM after it has given back the cached segments it could;
    /// what it still holds unallocated sits in pieces beside live blocks. Fragmentation can
    /// explain the failure when those pieces, with what the device still has free, could have
    /// held the request. It is unlikely when they are a sliver of what the allocator holds
    /// (under [`FRAGMENTED_SHARE`]): slack beside memory nearly all allocated to tensors is
    /// seldom what ran the device out, though a request that no piece fits still fails.
    pub fn fragmentation(&self) -> Option<Fragmentation> {
        let (requested, unallocated) = (self.requested?, self.unallocated()?);
        let free = self.free.unwrap_or(0.0);
        let mut said = format!(
            "{} requested, {} reserved but unallocated",
            human(requested),
            human(unallocated)
        );
        if let Some(free) = self.free {
            said.push_str(&format!(" ({} free on the device)", human(free)));
        }
        if unallocated + free < requested {
            return Some(Fragmentation::RuledOut(format!(
                "{said}: fragmentation cannot explain this"
            )));
        }
        let held = unallocated + self.allocated.unwrap_or(0.0);
        if unallocated < FRAGMENTED_SHARE * held {
            return Some(Fragmentation::Unlikely(format!(
                "{said}, of {} the allocator holds: nearly all of it is in use by tensors, so fragmentation is unlikely to be what ran out the memory",
                human(held)
            )));
        }
        Some(Fragmentation::Possible(format!(
            "{said}: the allocator holds enough free memory for the request, but in pieces too small (fragmentation)"
        )))
    }
}

/// The sentence that says the failed allocation was larger than the whole device, if it was
/// (`line` is where the message is). No batch a little too large asks for more than the card
/// holds: one tensor that size grows faster than the batch, with the square of a sequence's
/// length (attention scores, pair representations) or with a long input.
pub fn larger_than_device(numbers: &OomNumbers, line: usize) -> Option<String> {
    let (requested, capacity) = (numbers.requested?, numbers.capacity?);
    (capacity > 0.0 && requested > capacity).then(|| {
        format!(
            "line {line}: one allocation of {}, more than the device's whole {}: a single tensor that grows faster than the batch (with the square of a sequence's length, or with one very long input), not a batch a little too large",
            human(requested),
            human(capacity)
        )
    })
}

/// The share of the device's capacity at or above which one failed allocation is taken as a
/// tensor that grows faster than the batch.
pub const LARGE_ALLOCATION: f64 = 0.25;
/// The least such an allocation is, in bytes (2 GiB): on a small card a quarter is a size an
/// ordinary activation of a batch reaches.
pub const LARGE_ALLOCATION_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

/// The sentence that says the failed allocation was a quarter of the device or more, and 2 GiB
/// or more, but not more than all of it ([`larger_than_device`] says that), if it was. A batch a
/// little too large fails on one of the many tensors that fill the memory; one tensor that takes
/// a quarter of the card is one that grows with the square of a sequence's length, or with a
/// long input times the vocabulary (the logits).
pub fn large_allocation(numbers: &OomNumbers, line: usize) -> Option<String> {
    let (requested, capacity) = (numbers.requested?, numbers.capacity?);
    let share = requested / capacity;
    let large = requested >= LARGE_ALLOCATION_BYTES && (LARGE_ALLOCATION..=1.0).contains(&share);
    (capacity > 0.0 && large).then(|| {
        format!(
            "line {line}: one allocation of {}, {:.0} % of the device's {}: one tensor that large grows faster than the batch (attention's scores with the square of a sequence's length, or the logits of a long input), more often than a batch a little too large",
            human(requested),
            100.0 * share,
            human(capacity)
        )
    })
}

/// Whether fragmentation can explain an OOM, from a memory dump the log prints (`line` is
/// where): it can when the memory free in pieces could have held the request (if the request
/// is known), and is unlikely to when that memory is a sliver of what the allocator holds
/// ([`FRAGMENTED_SHARE`]).
pub fn dump_fragmentation(dump: &MemoryDump, requested: Option<f64>) -> Option<Fragmentation> {
    let (held, free, name) = dump.held_and_free()?;
    let said = format!(
        "line {}, {name}: {} of the {} the allocator holds is free but in pieces inside segments that hold live blocks",
        dump.line,
        human(free),
        human(held)
    );
    match requested {
        Some(request) if free < request => Some(Fragmentation::RuledOut(format!(
            "{said}, less than the {} requested: fragmentation cannot explain this",
            human(request)
        ))),
        _ if free < FRAGMENTED_SHARE * held => Some(Fragmentation::Unlikely(format!(
            "{said}: too little for fragmentation to be the likely cause"
        ))),
        _ => Some(Fragmentation::Possible(format!("{said}: fragmentation"))),
    }
}

/// A size written as `2.00 GiB`, `718.75 MiB`, `23.84GiB`, `1048576 bytes`, in bytes.
fn parse_size(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(text.len());
    let number: f64 = text[..end].replace(',', "").parse().ok()?;
    let unit = text[end..].trim_start();
    let scale = [
        ("tib", 1024f64.powi(4)),
        ("gib", 1024f64.powi(3)),
        ("mib", 1024f64.powi(2)),
        ("kib", 1024.0),
        ("tb", 1e12),
        ("gb", 1e9),
        ("mb", 1e6),
        ("kb", 1e3),
        ("bytes", 1.0),
        ("b", 1.0),
    ]
    .into_iter()
    .find(|(u, _)| unit.starts_with(u))?
    .1;
    Some(number * scale)
}

/// The size right after `marker`.
fn size_after(text: &str, marker: &str) -> Option<f64> {
    let at = text.find(marker)? + marker.len();
    parse_size(&text[at..])
}

/// The size after a label and a colon, however many spaces are between them (the
/// cudaMallocAsync message's `Requested               : 686.41 MiB`).
fn size_after_label(text: &str, label: &str) -> Option<f64> {
    text.match_indices(label).find_map(|(at, _)| {
        let rest = text[at + label.len()..].trim_start_matches(' ');
        parse_size(rest.strip_prefix(':')?)
    })
}

/// The size right before `marker` (`12.68 GiB already allocated`).
fn size_before(text: &str, marker: &str) -> Option<f64> {
    let at = text.find(marker)?;
    let before = text[..at].trim_end();
    let unit_start = before.rfind(|c: char| c.is_ascii_digit())? + 1;
    let number_start = before[..unit_start]
        .rfind(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map_or(0, |i| i + 1);
    parse_size(&before[number_start..])
}

/// A size for people: `1.96 GiB`, `206 MiB`.
fn human(bytes: f64) -> String {
    let gib = bytes / 1024f64.powi(3);
    if gib >= 1.0 {
        format!("{gib:.2} GiB")
    } else {
        format!("{:.0} MiB", bytes / 1024f64.powi(2))
    }
}

/// `11125` as `11,125`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    const MIB: f64 = 1024.0 * 1024.0;

    #[test]
    fn knows_an_oom_by_its_exception_or_an_allocation_status() {
        for line in [
            "torch.OutOfMemoryError: Tried to allocate 12.60 GiB. GPU had 12.44 GiB free of 79.19",
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB (2147483648B) on device ordinal 0",
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[8,16,4096,4096]",
            // The same exception with its message cut short, as a pasted log often has it.
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when [...]",
        ] {
            assert!(is_oom_message(line), "{line}");
        }
        let xla = OomNumbers::of("RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB (2147483648B) on device ordinal 0").unwrap();
        assert_eq!(xla.requested, Some(2.0 * GIB));
        // Resource exhaustion that is not memory: a quota, a message size.
        for line in [
            "grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED details = \"Received message larger than max (8388608 vs. 4194304)\"",
            "google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for quota metric 'Requests'",
            "ResourceExhaustedError: too many open files in the room",
        ] {
            assert!(!is_oom_message(line), "{line}");
        }
    }

    #[test]
    fn reads_pytorch_2_wording() {
        let line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.10 GiB is free. Including non-PyTorch memory, this process has 22.53 GiB memory in use. Of the allocated memory 21.90 GiB is allocated by PyTorch, and 206.02 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.";
        let n = OomNumbers::of(line).unwrap();
        assert_eq!(n.requested, Some(1.96 * GIB));
        assert_eq!(n.capacity, Some(23.64 * GIB));
        assert_eq!(n.free, Some(1.10 * GIB));
        assert_eq!(n.allocated, Some(21.90 * GIB));
        assert_eq!(n.reserved_unallocated, Some(206.02 * MIB));
        match n.fragmentation() {
            Some(Fragmentation::RuledOut(why)) => assert_eq!(
                why,
                "1.96 GiB requested, 206 MiB reserved but unallocated (1.10 GiB free on the device): fragmentation cannot explain this"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_pytorch_1_wording_and_derives_the_unallocated_part() {
        let line = "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 15.78 GiB total capacity; 10.20 GiB already allocated; 300.75 MiB free; 14.10 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.";
        let n = OomNumbers::of(line).unwrap();
        assert_eq!(n.requested, Some(512.0 * MIB));
        assert_eq!(n.capacity, Some(15.78 * GIB));
        assert_eq!(n.free, Some(300.75 * MIB));
        assert_eq!(n.reserved, Some(14.10 * GIB));
        assert!(matches!(
            n.fragmentation(),
            Some(Fragmentation::Possible(_))
        ));
    }

    /// Before 1.5, PyTorch named the memory reserved but unallocated *cached*.
    #[test]
    fn reads_the_cached_wording_of_pytorch_before_1_5() {
        let line = "RuntimeError: CUDA out of memory. Tried to allocate 3.52 GiB (GPU 0; 10.92 GiB total capacity; 512.40 MiB already allocated; 2.10 GiB free; 5.60 GiB cached)";
        let n = OomNumbers::of(line).unwrap();
        assert_eq!(n.reserved_unallocated, Some(5.60 * GIB));
        assert_eq!(n.free, Some(2.10 * GIB));
        assert!(matches!(
            n.fragmentation(),
            Some(Fragmentation::Possible(_))
        ));
    }

    /// PyTorch 2.1 printed `total capacty of`: its capacity is read all the same.
    #[test]
    fn the_capacity_of_pytorch_2_1s_misspelt_message() {
        let line = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacty of 23.65 GiB of which 1.66 GiB is free. Of the allocated memory 12.09 GiB is allocated by PyTorch, and 4.84 GiB is reserved by PyTorch but unallocated.";
        let n = OomNumbers::of(line).unwrap();
        assert_eq!(n.capacity, Some(23.65 * GIB));
        assert_eq!(n.free, Some(1.66 * GIB));
    }

    /// The pieces and the device's free memory together: neither alone holds the request, both
    /// do, so fragmentation can explain it; without the device's share they could not.
    #[test]
    fn the_devices_free_memory_counts_with_the_pieces() {
        let line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1.08 GiB is free. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 1.83 GiB is reserved by PyTorch but unallocated.";
        let mut n = OomNumbers::of(line).unwrap();
        assert_eq!(n.free, Some(1.08 * GIB));
        // 1.83 GiB is 2.4 % of what the allocator holds: unlikely to be what ran out, though
        // the request fits in it.
        assert!(matches!(
            n.fragmentation(),
            Some(Fragmentation::Unlikely(_))
        ));
        n.allocated = Some(12.0 * GIB);
        assert!(matches!(
            n.fragmentation(),
            Some(Fragmentation::Possible(_))
        ));
        n.free = Some(0.05 * GIB);
        match n.fragmentation() {
            Some(Fragmentation::RuledOut(why)) => {
                assert!(why.ends_with("fragmentation cannot explain this"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dump_decides_when_the_message_cannot() {
        let dump = MemoryDump {
            line: 40,
            reserved: Some(14.0 * GIB),
            allocated: Some(9.6 * GIB),
            non_releasable: Some(4.28 * GIB),
            ..MemoryDump::default()
        };
        match dump_fragmentation(&dump, Some(2.0 * GIB)) {
            Some(Fragmentation::Possible(why)) => assert_eq!(
                why,
                "line 40, torch.cuda.memory_summary(): 4.28 GiB of the 14.00 GiB the allocator holds is free but in pieces inside segments that hold live blocks: fragmentation"
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            dump_fragmentation(&dump, Some(6.0 * GIB)),
            Some(Fragmentation::RuledOut(_))
        ));
        let tight = MemoryDump {
            non_releasable: Some(300.0 * MIB),
            ..dump
        };
        assert!(matches!(
            dump_fragmentation(&tight, None),
            Some(Fragmentation::Unlikely(_))
        ));
        assert!(matches!(
            dump_fragmentation(&tight, Some(2.0 * GIB)),
            Some(Fragmentation::RuledOut(_))
        ));
        assert_eq!(dump_fragmentation(&MemoryDump::default(), None), None);
    }

    #[test]
    fn a_request_larger_than_the_device() {
        let line = "RuntimeError: CUDA out of memory. Tried to allocate 77.40 GiB (GPU 0; 38.61 GiB total capacity; 13.21 GiB already allocated; 8.81 GiB free; 26.90 GiB reserved in total by PyTorch)";
        let n = OomNumbers::of(line).unwrap();
        assert!(larger_than_device(&n, 4).unwrap().starts_with(
            "line 4: one allocation of 77.40 GiB, more than the device's whole 38.61 GiB"
        ));
        let small = OomNumbers {
            requested: Some(2.0 * GIB),
            ..n.clone()
        };
        assert_eq!(larger_than_device(&small, 4), None);
        let unknown = OomNumbers {
            capacity: None,
            ..n
        };
        assert_eq!(larger_than_device(&unknown, 4), None);
    }

    #[test]
    fn a_request_of_a_quarter_of_the_device() {
        let n = |requested: f64| OomNumbers {
            requested: Some(requested * GIB),
            capacity: Some(80.0 * GIB),
            ..OomNumbers::default()
        };
        assert!(large_allocation(&n(20.0), 3)
            .unwrap()
            .starts_with("line 3: one allocation of 20.00 GiB, 25 % of the device's 80.00 GiB"));
        assert_eq!(large_allocation(&n(19.9), 3), None);
        // A quarter of a small card is an ordinary tensor.
        let small_card = OomNumbers {
            capacity: Some(2.0 * GIB),
            ..n(0.55)
        };
        assert_eq!(large_allocation(&small_card, 3), None);
        // More than the device: `larger_than_device` says so.
        assert_eq!(large_allocation(&n(81.0), 3), None);
        let unknown = OomNumbers {
            capacity: None,
            ..n(40.0)
        };
        assert_eq!(large_allocation(&unknown, 3), None);
    }

    #[test]
    fn the_cuda_malloc_async_wording() {
        let text = "torch.OutOfMemoryError: Allocation on device 3 would exceed allowed memory. (out of memory) Currently allocated     : 30.10 GiB Requested               : 12.00 GiB Device limit            : 39.39 GiB";
        let n = OomNumbers::of(text).unwrap();
        assert_eq!(n.requested, Some(12.0 * GIB));
        assert_eq!(n.capacity, Some(39.39 * GIB));
        assert_eq!(n.allocated, Some(30.10 * GIB));
        // A paste that squeezed the spaces.
        let squeezed = OomNumbers::of(&text.replace("  ", "")).unwrap();
        assert_eq!(squeezed.requested, Some(12.0 * GIB));
        assert!(large_allocation(&n, 1).is_some());
    }

    #[test]
    fn other_frameworks_state_the_request_only() {
        let tf = "Allocator (GPU_0_bfc) ran out of memory trying to allocate 23.84GiB. Current allocation summary follows.";
        assert_eq!(OomNumbers::of(tf).unwrap().requested, Some(23.84 * GIB));
        let xla = "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.";
        let n = OomNumbers::of(xla).unwrap();
        assert_eq!(n.requested, Some(GIB));
        assert_eq!(n.fragmentation(), None);
        let cupy = "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far: 2,147,483,648 bytes).";
        assert_eq!(OomNumbers::of(cupy).unwrap().requested, Some(GIB));
        assert_eq!(OomNumbers::of("RuntimeError: boom"), None);
    }
}
