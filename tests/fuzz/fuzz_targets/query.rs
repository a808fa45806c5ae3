//! The query path on a small index: any query text and any pasted log give an answer.
#![no_main]

use std::sync::OnceLock;

use errata_search::{diagnose, Document, Searcher};
use libfuzzer_sys::fuzz_target;

fn searcher() -> &'static Searcher {
    static SEARCHER: OnceLock<Searcher> = OnceLock::new();
    SEARCHER.get_or_init(|| {
        let doc = |slug: &str, title: &str, signatures: &[&str], tags: &[&str]| Document {
            slug: slug.into(),
            title: title.into(),
            url: format!("{slug}/"),
            category: "memory".into(),
            severity: "error".into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            signatures: signatures.iter().map(|s| s.to_string()).collect(),
            symptoms: vec!["the step fails".into()],
            summary: format!("{title}."),
            body: format!("# {title}\n\nWhy it happens and how to fix it."),
            cues: Default::default(),
        };
        Searcher::from_documents(&[
            doc(
                "cuda-oom",
                "CUDA out of memory",
                &["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate"],
                &["oom", "cuda"],
            ),
            doc(
                "nccl-timeout",
                "NCCL watchdog timeout",
                &["Watchdog caught collective operation timeout: WorkNCCL(SeqNum=, OpType=ALLREDUCE"],
                &["nccl", "distributed"],
            ),
            doc(
                "loss-nan",
                "Loss becomes NaN",
                &["RuntimeError: Function 'MulBackward0' returned nan values in its 0th output."],
                &["nan", "numerical"],
            ),
        ])
        .expect("the fuzz index builds")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let searcher = searcher();
    // A sound index answers every text.
    let answer = searcher.answer(text, 10).expect("the fuzz index is sound");
    assert!(answer.hits.len() <= 10);
    diagnose(searcher, text).expect("the fuzz index is sound");
});
