//! The documents of a site, as the search engine indexes them.
//!
//! Takes a linked [`Site`]; yields one plain [`Document`] per entry, in the site's order: the
//! signatures' text, the symptoms, the quick answer and the body as plain text. The body is
//! most of a document's bytes and all of its cost (its Markdown is parsed), so a build makes
//! [`heads`] (all but the body) for every entry and [`with_bodies`] only for the entries it
//! indexes, a chunk at a time.

use errata_search::Document;
use rayon::prelude::*;

use crate::link::Site;
use crate::load::plain_text;

pub fn documents(site: &Site) -> Vec<Document> {
    (0..site.entries.len()).map(|i| document(site, i)).collect()
}

/// Every entry's document without its body, made on every core when `every_core` (as for
/// [`with_bodies`]).
pub fn heads(site: &Site, every_core: bool) -> Vec<Document> {
    let entries = 0..site.entries.len();
    if every_core {
        entries.into_par_iter().map(|i| head(site, i)).collect()
    } else {
        entries.map(|i| head(site, i)).collect()
    }
}

/// The documents of the entries in `range`, from their `heads`, with their bodies: on every
/// core when `every_core` (for a build whose render is small; beside a whole render it would
/// only take the cores from the pages).
pub fn with_bodies(
    site: &Site,
    heads: &[Document],
    range: std::ops::Range<usize>,
    every_core: bool,
) -> Vec<Document> {
    let one = |i: usize| Document {
        body: body(site, i),
        ..heads[i].clone()
    };
    if every_core {
        range.into_par_iter().map(one).collect()
    } else {
        range.map(one).collect()
    }
}

/// What the search index holds of entry `i`.
pub fn document(site: &Site, i: usize) -> Document {
    Document {
        body: body(site, i),
        ..head(site, i)
    }
}

/// Entry `i`'s body as the index reads it: plain text.
fn body(site: &Site, i: usize) -> String {
    plain_text(&site.entries[i].body)
}

/// Entry `i`'s document without its body.
fn head(site: &Site, i: usize) -> Document {
    let e = &site.entries[i];
    Document {
        slug: e.slug.to_string(),
        title: e.title.clone(),
        url: site.entry_url(i),
        category: e.category.clone(),
        severity: e.severity.as_str().to_owned(),
        tags: e.tags.iter().map(|t| t.to_string()).collect(),
        signatures: e.signatures.iter().map(|s| s.text.clone()).collect(),
        symptoms: e
            .symptoms
            .iter()
            .map(|s| format!("{} {}", plain_text(&s.symptom), plain_text(&s.why)))
            .collect(),
        summary: [
            Some(e.summary.as_str()),
            e.fingerprint.as_deref(),
            e.fix.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(plain_text)
        .collect::<Vec<_>>()
        .join(" "),
        body: String::new(),
        cues: errata_search::Cues {
            frames: e.cues.frames.clone(),
            lines: e.cues.lines.clone(),
            findings: e.cues.findings.clone(),
            shared: e
                .signatures
                .iter()
                .filter(|s| !s.also.is_empty())
                .map(|s| errata_search::SharedSignature {
                    signature: s.text.clone(),
                    with: s.also.iter().map(|a| a.to_string()).collect(),
                })
                .collect(),
            raised_in: e
                .signatures
                .iter()
                .filter_map(|s| s.origin.as_ref()?.raised_in.as_deref())
                .flat_map(raising_functions)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect(),
        },
    }
}

/// Functions that many classes of one file define, or that check whatever their class is given,
/// as special methods (`__init__`, `__post_init__`) do too: raising there tells no failure apart
/// (every model of a file has a `forward`, every validation of a config is in its `__init__`).
const COMMON_FUNCTIONS: [&str; 16] = [
    "forward", "backward", "step", "train", "run", "_run", "main", "load", "save", "to", "cuda",
    "half", "apply", "update", "setup", "build",
];

/// The Python functions a signature's `raised_in` names, each as the end of its file's path and
/// its name without its class (`modules/module.py:load_state_dict`): `raised_in` names a place as
/// the file's path, a colon and the function (`torch/nn/modules/module.py: Module.load_state_dict
/// (strict=True)`), one or more times. The path's end is its last folder and file, as an
/// installed package's frames end the same. A file without its folder names none (a user's
/// `train.py` is not a library's), nor does another language's file, as its frames are not the
/// ones a Python traceback shows, nor a [`COMMON_FUNCTIONS`] one.
fn raising_functions(raised_in: &str) -> impl Iterator<Item = String> + '_ {
    raised_in.match_indices(": ").filter_map(|(at, _)| {
        let path = raised_in[..at]
            .rsplit(|c: char| c.is_whitespace() || matches!(c, '(' | '`' | ',' | ';'))
            .next()?;
        let python = [".py", ".pyx"].iter().any(|e| path.ends_with(e));
        let mut parts = path.rsplit('/');
        let file = parts.next()?;
        let folder = parts.next().filter(|f| !f.is_empty())?;
        let qualified: String = (raised_in[at + 2..].chars())
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
            .collect();
        let name = qualified.trim_end_matches('.').rsplit('.').next()?;
        let named = name.starts_with(|c: char| c.is_alphabetic() || c == '_');
        let special = name.starts_with("__") && name.ends_with("__");
        let common = special || COMMON_FUNCTIONS.contains(&name);
        (python && named && !common).then(|| format!("{folder}/{file}:{name}"))
    })
}

#[cfg(test)]
mod tests {
    use super::raising_functions;

    #[test]
    fn a_signatures_raising_functions_are_its_python_files_and_functions() {
        let places = |raised_in| raising_functions(raised_in).collect::<Vec<_>>();
        assert_eq!(
            places("torch/nn/modules/module.py: Module.load_state_dict (strict=True)"),
            ["modules/module.py:load_state_dict"]
        );
        assert_eq!(
            places("keras/src/optimizers/base_optimizer.py: BaseOptimizer._filter_empty_gradients (Keras 3); tensorflow/python/keras/optimizer_v2/utils.py: filter_empty_gradients (tf.keras 2.x)"),
            ["optimizers/base_optimizer.py:_filter_empty_gradients", "optimizer_v2/utils.py:filter_empty_gradients"]
        );
        // C++ and C files, a file without its folder, prose, a special method and a function
        // every model defines: no place that tells a failure apart.
        for raised_in in [
            "transformers/training_args.py: TrainingArguments.__post_init__",
            "models/llama/modeling_llama.py: LlamaAttention.forward",
            "aten/src/ATen/native/Embedding.cpp: embedding",
            "Modules/_pickle.c: load (the unpickler found no opcode)",
            "train.py: main",
            "the launcher's summary: a child died",
        ] {
            assert!(places(raised_in).is_empty(), "{raised_in}");
        }
    }
}
