//! The front-matter path of one file: decode the bytes, find the fences, parse the YAML,
//! locate the keys. Any input must give a value or a `ParseFailure`, never a panic.
#![no_main]

use errata::load::front_matter::{decode, parse, split, Spans};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode(data) else { return };
    let Ok(split) = split(text) else { return };
    let spans = Spans::of(&split);
    if let Ok(raw) = parse(&split) {
        let _ = spans.key("title");
        if let Some(title) = raw.title.as_deref() {
            let _ = spans.value("title", title);
        }
    }
});
