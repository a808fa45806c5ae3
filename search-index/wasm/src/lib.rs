//! errata-search for the browser: load a bundle, search, diagnose, each answered as JSON.
//!
//! [`Engine`] is the whole API, plain Rust and tested natively: it takes bytes and text and
//! yields the same JSON as `errata search --json` and `errata diagnose --json`. The
//! WebAssembly module wraps it in raw C-ABI exports (no wasm-bindgen, no imports), declared
//! only for `wasm32`, where a small JS worker calls them.

#[cfg(target_arch = "wasm32")]
mod abi;
#[cfg(target_arch = "wasm32")]
mod entropy;

use errata_search::{diagnose, Searcher};

/// A loaded index, or none yet.
#[derive(Default)]
pub struct Engine {
    searcher: Option<Searcher>,
}

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
                Ok(answer)
            }
            Err(e) => Err(error_json(&e.to_string())),
        }
    }

    fn searcher(&self) -> Result<&Searcher, String> {
        self.searcher
            .as_ref()
            .ok_or_else(|| error_json("no index loaded"))
    }

    /// The same answer as `errata search --json`.
    pub fn search(&self, query: &str, limit: usize) -> Result<String, String> {
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

    /// The first-search shard answers partially, from signatures alone; loading the full index
    /// over it gives full answers, and a bad bundle then keeps the index loaded before.
    #[test]
    fn a_shard_is_replaced_by_the_full_index() {
        let mut engine = Engine::default();
        let shard = errata_search::build_shard(&[document()], errata_search::Shard::First).unwrap();
        assert_eq!(
            engine.load(&shard).unwrap(),
            r#"{"entries":1,"partial":true}"#
        );
        let answer = |engine: &Engine, q: &str| -> serde_json::Value {
            serde_json::from_str(&engine.search(q, 5).unwrap()).unwrap()
        };
        let first = answer(&engine, "collective operation timeout");
        assert_eq!(first["partial"], true);
        assert_eq!(first["hits"][0]["slug"], "nccl-watchdog-timeout");
        assert!(first["hits"][0]["matched_signature"].is_null());
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
