//! The log reader: any bytes (read lossily, as the CLI and the browser do) give a report, and
//! every error line it reports points at a line of the input.
#![no_main]

use errata_search::log::read_log;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let report = read_log(&text);
    for e in &report.error_lines {
        assert!(
            e.line >= 1 && e.line <= report.lines_read,
            "line {} of {}",
            e.line,
            report.lines_read
        );
        assert!(e.count >= 1);
    }
});
