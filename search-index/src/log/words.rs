//! Whether a run of bytes holds any of many words, ASCII case ignored: the look that
//! [`Skim`](super::Skim) takes at every byte a job prints, so it has to run at about the speed
//! memory is read.
//!
//! The run is folded to lower case, a block at a time, and searched for short pieces of the
//! words ("grams"), chosen so that every word holds one and few are needed. With at most 64
//! grams the search is Teddy's (aho-corasick's SIMD `packed` searcher), several gigabytes a
//! second; with more, or where Teddy is not built (wasm), an Aho-Corasick DFA over the grams.
//! A gram found is only a place to look: each word that holds that gram is compared there in
//! full, and a whole word's ends are checked, so the answer is exact.

use std::collections::{BTreeSet, HashMap};

use aho_corasick::{packed, AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, Input, MatchKind};

/// The longest gram; a shorter word is its own gram.
const GRAM: usize = 4;
/// The most grams one Teddy searcher takes, and the most searchers worth running one after
/// another rather than one DFA.
const TEDDY_GRAMS: usize = 64;
const TEDDY_SEARCHERS: usize = 2;
/// Bytes folded at a time, so that the folded copy stays in cache.
const BLOCK: usize = 64 * 1024;

/// Words to look for, some of them only as whole words (`nan`, not `nano`).
#[derive(Debug, Clone)]
pub struct Words {
    words: Vec<Word>,
    grams: Vec<Gram>,
    /// The grams beginning with each byte.
    by_first: Vec<Vec<usize>>,
    finder: Finder,
    folded: Vec<u8>,
}

#[derive(Debug, Clone)]
struct Word {
    /// In lower case.
    text: Vec<u8>,
    whole: bool,
}

#[derive(Debug, Clone)]
struct Gram {
    text: Vec<u8>,
    /// Each word holding this gram, and where in it.
    places: Vec<(usize, usize)>,
}

/// What looks for the grams: a Teddy searcher for each 64 of them, or a DFA for them all.
#[derive(Debug, Clone)]
enum Finder {
    Teddy(Vec<packed::Searcher>),
    Dfa(AhoCorasick),
}

impl Words {
    /// `plain` words count anywhere; `whole` ones only between bytes that are not ASCII
    /// letters or digits. Empty words are left out.
    pub fn new<'a>(
        plain: impl IntoIterator<Item = &'a str>,
        whole: impl IntoIterator<Item = &'a str>,
    ) -> Words {
        let mut words: Vec<Word> = plain
            .into_iter()
            .map(|w| (w, false))
            .chain(whole.into_iter().map(|w| (w, true)))
            .filter(|(w, _)| !w.is_empty())
            .map(|(w, whole)| Word {
                text: w.as_bytes().to_ascii_lowercase(),
                whole,
            })
            .collect();
        words.sort_by(|a, b| (&a.text, a.whole).cmp(&(&b.text, b.whole)));
        words.dedup_by(|a, b| a.text == b.text && a.whole == b.whole);
        let grams = choose_grams(&words);
        let mut by_first = vec![Vec::new(); 256];
        for (i, gram) in grams.iter().enumerate() {
            by_first[usize::from(gram.text[0])].push(i);
        }
        let finder = Finder::new(&grams);
        Words {
            words,
            grams,
            by_first,
            finder,
            folded: Vec::new(),
        }
    }

    /// How many grams stand for the words, and whether Teddy searches for them.
    pub fn grams(&self) -> (usize, bool) {
        (self.grams.len(), matches!(self.finder, Finder::Teddy(_)))
    }

    /// Whether `text` holds one of the words.
    pub fn found_in(&mut self, text: &[u8]) -> bool {
        let mut folded = std::mem::take(&mut self.folded);
        let mut found = false;
        let mut start = 0;
        while start < text.len() && !found {
            // A block reaches into the next by a gram less one byte, so that a gram across
            // the edge is found; a gram is looked for only where it begins in this block.
            let end = text.len().min(start + BLOCK + GRAM - 1);
            folded.clear();
            folded.extend(text[start..end].iter().map(u8::to_ascii_lowercase));
            let limit = BLOCK.min(folded.len());
            found = self.finder.any(&folded, |at| {
                at < limit && self.word_at(text, &folded[at..], start + at)
            });
            start += BLOCK;
        }
        self.folded = folded;
        found
    }

    /// Whether a word holding a gram that `folded` (the folded text from `at`) begins with
    /// is at its place around `at` in `text`.
    fn word_at(&self, text: &[u8], folded: &[u8], at: usize) -> bool {
        self.by_first[usize::from(folded[0])]
            .iter()
            .map(|&g| &self.grams[g])
            .filter(|gram| folded.starts_with(&gram.text))
            .flat_map(|gram| &gram.places)
            .any(|&(w, offset)| {
                let word = &self.words[w];
                at.checked_sub(offset).is_some_and(|start| {
                    let end = start + word.text.len();
                    text.get(start..end)
                        .is_some_and(|t| t.eq_ignore_ascii_case(&word.text))
                        && (!word.whole || is_whole_word(text, start, end))
                })
            })
    }
}

impl Finder {
    fn new(grams: &[Gram]) -> Finder {
        let teddy: Option<Vec<packed::Searcher>> = grams
            .chunks(TEDDY_GRAMS)
            .take(TEDDY_SEARCHERS + 1)
            .map(|some| {
                packed::Config::new()
                    .match_kind(packed::MatchKind::LeftmostFirst)
                    .only_teddy(true)
                    .builder()
                    .extend(some.iter().map(|g| &g.text))
                    .build()
            })
            .collect();
        match teddy.filter(|searchers| searchers.len() <= TEDDY_SEARCHERS) {
            Some(searchers) => Finder::Teddy(searchers),
            None => Finder::Dfa(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(grams.iter().map(|g| &g.text))
                    .expect("a few hundred short grams"),
            ),
        }
    }

    /// Whether `found` says yes at a place where a gram begins in `haystack`.
    fn any(&self, haystack: &[u8], mut found: impl FnMut(usize) -> bool) -> bool {
        let span = |from: usize| aho_corasick::Span::from(from..haystack.len());
        match self {
            Finder::Teddy(searchers) => searchers
                .iter()
                .any(|s| each_start(|from| s.find_in(haystack, span(from)), &mut found)),
            Finder::Dfa(ac) => each_start(
                |from| ac.find(Input::new(haystack).span(span(from))),
                &mut found,
            ),
        }
    }
}

/// Whether `found` says yes at one of the places `next` (the first match at or after a
/// place) gives, each looked at from the byte after the last one's start.
fn each_start(
    mut next: impl FnMut(usize) -> Option<aho_corasick::Match>,
    found: &mut impl FnMut(usize) -> bool,
) -> bool {
    let mut from = 0;
    while let Some(m) = next(from) {
        if found(m.start()) {
            return true;
        }
        from = m.start() + 1;
    }
    false
}

/// Grams such that every word holds one. Each time, of the grams not in a training job's
/// routine output (where every line would be a place to look at for nothing), the one held by
/// the most words not yet covered; the least common one among equals; a gram of routine
/// output only for a word that has no other.
fn choose_grams(words: &[Word]) -> Vec<Gram> {
    let mut holders: HashMap<&[u8], Vec<(usize, usize)>> = words
        .iter()
        .flat_map(|w| w.text.windows(GRAM.min(w.text.len())))
        .map(|gram| (gram, Vec::new()))
        .collect();
    let lengths: BTreeSet<usize> = holders.keys().map(|g| g.len()).collect();
    for (w, word) in words.iter().enumerate() {
        for &len in &lengths {
            for (at, window) in word.text.windows(len).enumerate() {
                if let Some(places) = holders.get_mut(window) {
                    places.push((w, at));
                }
            }
        }
    }
    // Routine first, then more common: the order in which candidates are least wanted.
    let mut candidates: Vec<(bool, f64, &[u8], Vec<(usize, usize)>)> = holders
        .into_iter()
        .map(|(gram, places)| {
            let routine = memchr::memmem::find(ROUTINE, gram).is_some();
            (routine, commonness(gram), gram, places)
        })
        .collect();
    candidates.sort_by(|a, b| {
        (a.0, a.1, a.2)
            .partial_cmp(&(b.0, b.1, b.2))
            .expect("finite")
    });
    let mut covered = vec![false; words.len()];
    let mut grams = Vec::new();
    loop {
        // The first of the most covering among the least routine.
        let mut best: Option<(bool, usize, usize)> = None;
        for (c, (routine, _, _, places)) in candidates.iter().enumerate() {
            let new = places.iter().filter(|&&(w, _)| !covered[w]).count();
            let better = best.is_none_or(|(r, n, _)| (!*routine, new) > (!r, n));
            if new > 0 && better {
                best = Some((*routine, new, c));
            }
        }
        let Some((_, _, c)) = best else { break };
        let (_, _, gram, places) = &candidates[c];
        for &(w, _) in places {
            covered[w] = true;
        }
        grams.push(Gram {
            text: gram.to_vec(),
            places: places.clone(),
        });
    }
    grams
}

/// What a training job prints at every step and every save, in lower case: the words of
/// progress bars, step and throughput lines, and loggers' prefixes.
const ROUTINE: &[u8] = b"[rank0]: [info] [debug] trainer.py:120 train training step 100/1000 \
    global_step epoch iteration iter loss lm loss val_loss eval_loss loss scale lr \
    learning_rate learning rate grad_norm grad norm tokens/s tokens per second samples/s \
    consumed samples elapsed time per iteration (ms) eta throughput tflops mfu \
    evaluation validation accuracy perplexity batch size world_size local_rank node gpu \
    device cuda:0 loading saving checkpoint model dataset data worker config version \
    it/s s/it 45% step_time wall clock mem usage logging wandb tensorboard";

/// How often a gram's bytes come in English text and logs, roughly (the sum of per-cent
/// frequencies): a guide to which gram will be found for nothing least often.
fn commonness(gram: &[u8]) -> f64 {
    const LETTERS: &[u8] = b"etaoinshrdlcumwfgypbvkjxqz";
    const PER_CENT: [f64; 26] = [
        12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8, 2.4, 2.4, 2.2, 2.0, 2.0,
        1.9, 1.5, 1.0, 0.8, 0.15, 0.15, 0.1, 0.07,
    ];
    gram.iter()
        .map(|b| match LETTERS.iter().position(|l| l == b) {
            Some(i) => PER_CENT[i],
            None if b.is_ascii_digit() || *b == b' ' => 10.0,
            None => 2.0,
        })
        .sum()
}

/// Whether the bytes around `start..end` are not ASCII letters or digits.
pub fn is_whole_word(text: &[u8], start: usize, end: usize) -> bool {
    // Any byte of a non-ASCII character may be the punctuation the reader takes for a
    // boundary (`loss：nan`), so it counts as one: the check errs on the side of reading.
    let boundary = |b: Option<&u8>| b.is_none_or(|b| !b.is_ascii_alphanumeric());
    boundary(start.checked_sub(1).and_then(|i| text.get(i))) && boundary(text.get(end))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: [&str; 9] = [
        "error:",
        "Traceback",
        "ncclUnhandledCudaError",
        "OOM",
        "out of memory",
        "size': ",
        "Killed",
        "exitcode: -9",
        "é",
    ];
    const WHOLE: [&str; 2] = ["nan", "inf"];

    /// Where `gram` begins in `word`, each time.
    fn places<'a>(word: &'a [u8], gram: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        word.windows(gram.len())
            .enumerate()
            .filter(move |(_, w)| *w == gram)
            .map(|(at, _)| at)
    }

    /// What `found_in` must say, the slow way.
    fn naive(text: &[u8]) -> bool {
        let at = |w: &'static str| {
            let w = w.as_bytes();
            (0..=text.len().saturating_sub(w.len())).filter(move |&i| {
                text.len() >= w.len() && text[i..i + w.len()].eq_ignore_ascii_case(w)
            })
        };
        PLAIN.iter().any(|w| at(w).next().is_some())
            || WHOLE
                .iter()
                .any(|w| at(w).any(|i| is_whole_word(text, i, i + w.len())))
    }

    #[test]
    fn every_word_is_found_in_any_case_and_whole_words_only_whole() {
        let mut words = Words::new(PLAIN, WHOLE);
        for text in [
            "RuntimeError: CUDA out of memory",
            "x OUT OF MEMORY",
            "[rank3]: NCCLUNHANDLEDCUDAERROR",
            "loss=nan",
            "loss: Inf,",
            "café",
            "{'size': 2}",
        ] {
            assert!(words.found_in(text.as_bytes()), "{text}");
        }
        for text in [
            "INFO step 3 nano seconds",
            "information about infinity",
            "an ordinary line",
            "out of  memory",
            "",
        ] {
            assert!(!words.found_in(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn finding_agrees_with_looking_at_every_place() {
        // Texts made of pieces of the words, cut and cased at random, with noise between.
        let pieces: Vec<&str> = PLAIN
            .iter()
            .chain(&WHOLE)
            .copied()
            .chain(["x", " ", "9", "_", "Info", "nano", ":", "-", "\n"])
            .collect();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut words = Words::new(PLAIN, WHOLE);
        let (mut found, mut not) = (0, 0);
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..next(6) + 1 {
                let piece = pieces[next(pieces.len())].as_bytes();
                let (a, b) = (next(piece.len() + 1), next(piece.len() + 1));
                let cut = &piece[a.min(b)..a.max(b).max(piece.len() * usize::from(next(2) == 0))];
                text.extend(cut.iter().map(|c| {
                    if next(3) == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        *c
                    }
                }));
            }
            let expected = naive(&text);
            assert_eq!(
                words.found_in(&text),
                expected,
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            if expected {
                found += 1
            } else {
                not += 1
            }
        }
        assert!(found > 2_000 && not > 2_000, "{found} found, {not} not");
    }

    #[test]
    fn a_word_across_the_edge_of_a_block_is_found() {
        let mut words = Words::new(PLAIN, WHOLE);
        for at in BLOCK - 8..BLOCK + 2 {
            let mut text = vec![b'.'; at];
            text.extend_from_slice(b"Traceback");
            text.extend(vec![b'.'; 10]);
            assert!(words.found_in(&text), "at {at}");
            text.truncate(at);
            text.extend_from_slice(b"nan");
            assert!(words.found_in(&text), "nan at {at}");
        }
        assert!(!words.found_in(&vec![b'.'; 3 * BLOCK]));
    }

    #[test]
    fn every_word_holds_a_gram_and_few_are_needed() {
        let words = Words::new(PLAIN, WHOLE);
        let (grams, _) = words.grams();
        assert!(grams <= PLAIN.len() + WHOLE.len());
        for word in &words.words {
            assert!(
                words
                    .grams
                    .iter()
                    .any(|g| places(&word.text, &g.text).next().is_some()),
                "{:?}",
                String::from_utf8_lossy(&word.text)
            );
        }
    }
}
