//! The last few lines that may hold a fact, kept to be parsed only when an error asks for it.
//!
//! Takes each line outside a traceback; keeps the last [`KEPT`] that hold one of a few byte
//! strings (looked for by SIMD), reusing their buffers. Most lines of a long log hold none and
//! cost only that look; the few kept are parsed when an error line is folded, which a log has at
//! most [`super::MAX_ERROR_LINES`] of.

use std::marker::PhantomData;
use std::sync::OnceLock;

use memchr::memmem::Finder;

/// The lines kept: the last few before an error are the ones that describe it.
pub const KEPT: usize = 4;

/// A kind of fact, and the byte strings a line that states it must hold one of.
pub trait Needles {
    const NEEDLES: &'static [&'static [u8]];

    /// The needles' searchers, built once ([`finders_in`]): every line of a log is looked at.
    fn finders() -> &'static [Finder<'static>];

    /// Whether a line may state the fact: it holds one of the needles.
    fn may_state(bytes: &[u8]) -> bool {
        Self::finders().iter().any(|f| f.find(bytes).is_some())
    }
}

/// The searchers of `needles`, built into `cell` the first time.
pub fn finders_in(
    cell: &'static OnceLock<Vec<Finder<'static>>>,
    needles: &'static [&'static [u8]],
) -> &'static [Finder<'static>] {
    cell.get_or_init(|| needles.iter().map(|n| Finder::new(n)).collect())
}

/// The last lines holding one of `N`'s needles, with their numbers.
#[derive(Debug, Clone)]
pub struct KeptLines<N> {
    /// At most [`KEPT`] lines with their numbers; their buffers are reused.
    kept: Vec<(String, usize)>,
    /// The slot the next line replaces, once all are used.
    next: usize,
    kind: PhantomData<N>,
}

impl<N> Default for KeptLines<N> {
    fn default() -> Self {
        KeptLines {
            kept: Vec::new(),
            next: 0,
            kind: PhantomData,
        }
    }
}

impl<N: Needles> KeptLines<N> {
    /// Keeps `line` (line `number`) if it holds one of the needles.
    pub fn offer(&mut self, line: &str, number: usize) {
        if !N::may_state(line.as_bytes()) {
            return;
        }
        if self.kept.len() < KEPT {
            self.kept.push((line.to_owned(), number));
            return;
        }
        let slot = &mut self.kept[self.next];
        slot.0.clear();
        slot.0.push_str(line);
        slot.1 = number;
        self.next = (self.next + 1) % KEPT;
    }

    /// The kept lines with their numbers, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.kept
            .iter()
            .map(|(line, number)| (line.as_str(), *number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Losses;
    impl Needles for Losses {
        const NEEDLES: &'static [&'static [u8]] = &[b"loss"];

        fn finders() -> &'static [Finder<'static>] {
            static FINDERS: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
            finders_in(&FINDERS, Self::NEEDLES)
        }
    }

    #[test]
    fn keeps_the_last_lines_that_hold_a_needle() {
        let mut kept = KeptLines::<Losses>::default();
        for n in 1..=10 {
            kept.offer(&format!("step {n} loss 0.{n}"), n);
            kept.offer("no such word here", 100 + n);
        }
        let mut numbers: Vec<usize> = kept.iter().map(|(_, n)| n).collect();
        numbers.sort_unstable();
        assert_eq!(numbers, [7, 8, 9, 10]);
        assert!(kept
            .iter()
            .all(|(line, n)| line == format!("step {n} loss 0.{n}")));
    }
}
