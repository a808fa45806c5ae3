//! errata-search for the browser: load a bundle, search, diagnose, each answered as JSON; before
//! the bundle, answer from the first-search files, fetched as queries name them.
//!
//! [`Engine`] is the whole API, plain Rust and tested natively: it takes bytes and text and
//! yields the same JSON as `errata search --json` and `errata diagnose --json`. The
//! WebAssembly module wraps it in raw C-ABI exports (no wasm-bindgen, no imports), declared
//! only for `wasm32`, where a small JS worker calls them.

#[cfg(target_arch = "wasm32")]
mod abi;
#[cfg(target_arch = "wasm32")]
mod entropy;

use errata_search::{diagnose, FirstAnswer, FirstSearch, Searcher};

/// A loaded index, or the first-search index while the full one loads, or none yet.
#[derive(Default)]
pub struct Engine {
    searcher: Option<Searcher>,
    first: Option<FirstSearch>,
}

/// Which first-search file [`Engine::add_first`] is given.
pub const FIRST_TERMS: u32 = 0;
pub const FIRST_DOCS: u32 = 1;

/// `{"error": "..."}`.
fn error_json(message: &str) -> String {
    serde_json::json!({ "error": message }).to_string()
}

impl Engine {
    /// Opens a bundle in place of the one loaded before (a first-search shard is replaced by
    /// the full index); the answer is `{"entries": N, "partial": bool}` or an error, which
    /// keeps the index loaded before.
    pub fn load(&mut self, bundle: &[u8]) -> Result<String, String> {
        match Searcher::from_bundle(bundle) {
            Ok(searcher) => {
                let answer = serde_json::json!({
                    "entries": searcher.len(),
                    "partial": searcher.is_partial(),
                })
                .to_string();
                self.searcher = Some(searcher);
                self.first = None;
                Ok(answer)
            }
            Err(e) => Err(error_json(&e.to_string())),
        }
    }

    /// Opens the first-search index from its `meta.json`, for searches until a bundle is
    /// loaded; the answer is `{"entries": N, "partial": true}` or an error.
    pub fn load_first(&mut self, meta: &[u8]) -> Result<String, String> {
        let first = FirstSearch::open(meta).map_err(|e| error_json(&e.to_string()))?;
        let answer = serde_json::json!({ "entries": first.len(), "partial": true }).to_string();
        self.first = Some(first);
        Ok(answer)
    }

    /// Adds a first-search file a search named: `kind` is [`FIRST_TERMS`] or [`FIRST_DOCS`].
    pub fn add_first(&mut self, kind: u32, chunk: u32, bytes: &[u8]) -> Result<String, String> {
        let first = self
            .first
            .as_mut()
            .ok_or_else(|| error_json("no first-search index loaded"))?;
        match kind {
            FIRST_TERMS => first.add_terms(chunk, bytes),
            FIRST_DOCS => first.add_docs(chunk, bytes),
            _ => return Err(error_json("unknown first-search file kind")),
        }
        .map_err(|e| error_json(&e.to_string()))?;
        Ok("{}".into())
    }

    fn searcher(&self) -> Result<&Searcher, String> {
        self.searcher
            .as_ref()
            .ok_or_else(|| error_json("no index loaded"))
    }

    /// The same answer as `errata search --json`; from the first-search index, a partial answer
    /// or `{"needs": {"terms": [..], "docs": [..]}}`: the chunks to add before asking again.
    pub fn search(&self, query: &str, limit: usize) -> Result<String, String> {
        if let (None, Some(first)) = (&self.searcher, &self.first) {
            let json = match first.answer(query, limit) {
                FirstAnswer::Ready(answer) => serde_json::to_string(&answer),
                FirstAnswer::Needs { terms, docs } => Ok(serde_json::json!({
                    "needs": { "terms": terms, "docs": docs }
                })
                .to_string()),
            };
            return json.map_err(|e| error_json(&e.to_string()));
        }
        let searcher = self.searcher()?;
        let answer = searcher
            .answer(query, limit)
            .map_err(|e| error_json(&e.to_string()))?;
        serde_json::to_string(&answer).map_err(|e| error_json(&e.to_string()))
    }

    /// The same answer as `errata diagnose --json`.
    pub fn diagnose(&self, log: &str) -> Result<String, String> {
        let searcher = self.searcher()?;
        let diagnosis = diagnose(searcher, log).map_err(|e| error_json(&e.to_string()))?;
        serde_json::to_string(&diagnosis).map_err(|e| error_json(&e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use errata_search::Document;

    fn document() -> Document {
        Document {
            slug: "nccl-watchdog-timeout".into(),
            title: "NCCL Watchdog Timeout".into(),
            url: "distributed/nccl-watchdog-timeout/".into(),
            category: "distributed".into(),
            severity: "high".into(),
            signatures: vec!["Watchdog caught collective operation timeout".into()],
            body: "Raise the collective timeout only after finding the stalled rank.".into(),
            cues: Default::default(),
            ..Default::default()
        }
    }

    fn bundle() -> Vec<u8> {
        errata_search::build_bundle(&[document()]).unwrap()
    }

    #[test]
    fn load_search_diagnose() {
        let mut engine = Engine::default();
        assert!(engine
            .search("x", 5)
            .unwrap_err()
            .contains("no index loaded"));
        assert_eq!(
            engine.load(&bundle()).unwrap(),
            r#"{"entries":1,"partial":false}"#
        );
        let hits: serde_json::Value = serde_json::from_str(
            &engine
                .search("Watchdog caught collective operation timeout", 5)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(hits["hits"][0]["slug"], "nccl-watchdog-timeout");
        let d: serde_json::Value = serde_json::from_str(
            &engine
                .diagnose(
                    "[rank1]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)",
                )
                .unwrap(),
        )
        .unwrap();
        assert_eq!(d["entries"][0]["slug"], "nccl-watchdog-timeout");
    }

    /// The first-search index answers partially once the chunks a search names are added;
    /// loading the full index over it gives full answers, and a bad bundle then keeps the
    /// index loaded before.
    #[test]
    fn first_search_then_the_full_index() {
        let mut engine = Engine::default();
        let files = errata_search::first::files(&[document()]).unwrap();
        assert_eq!(
            engine.load_first(&files[0].1).unwrap(),
            r#"{"entries":1,"partial":true}"#
        );
        let answer = |engine: &Engine, q: &str| -> serde_json::Value {
            serde_json::from_str(&engine.search(q, 5).unwrap()).unwrap()
        };
        let mut first = answer(&engine, "collective operation timeout");
        for _ in 0..2 {
            let needs = first["needs"].clone();
            assert!(needs.is_object(), "{first}");
            for (kind, key, path) in [(FIRST_TERMS, "terms", "t/"), (FIRST_DOCS, "docs", "d/")] {
                for chunk in needs[key].as_array().unwrap() {
                    let name = format!("{path}{chunk}.");
                    let bytes = &files.iter().find(|(p, _)| p.starts_with(&name)).unwrap().1;
                    engine
                        .add_first(kind, chunk.as_u64().unwrap() as u32, bytes)
                        .unwrap();
                }
            }
            first = answer(&engine, "collective operation timeout");
        }
        assert_eq!(first["partial"], true);
        assert_eq!(first["hits"][0]["slug"], "nccl-watchdog-timeout");
        assert!(first["hits"][0]["matched_signature"].is_null());
        assert!(engine.add_first(FIRST_TERMS, 0, b"\x05ab").is_err());
        // Body words are only in the full index.
        assert_eq!(
            answer(&engine, "stalled rank")["hits"],
            serde_json::json!([])
        );
        engine.load(&bundle()).unwrap();
        let full = answer(&engine, "collective operation timeout");
        assert!(full.get("partial").is_none());
        assert_eq!(
            full["hits"][0]["matched_signature"],
            "Watchdog caught collective operation timeout"
        );
        assert_eq!(
            answer(&engine, "stalled rank")["hits"][0]["slug"],
            "nccl-watchdog-timeout"
        );
        assert!(engine.load(b"not a bundle").is_err());
        assert_eq!(
            answer(&engine, "stalled rank")["hits"][0]["slug"],
            "nccl-watchdog-timeout"
        );
    }

    #[test]
    fn corrupted_bundles_are_errors() {
        let mut engine = Engine::default();
        let good = bundle();
        for cut in [0, 7, 12, good.len() / 2, good.len() - 1] {
            assert!(
                engine
                    .load(&good[..cut])
                    .unwrap_err()
                    .starts_with("{\"error\""),
                "cut {cut}"
            );
        }
        let mut flipped = good.clone();
        flipped[good.len() / 3] ^= 0xff;
        assert!(engine.load(&flipped).is_err());
    }
}
