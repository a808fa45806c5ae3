//! Memory dumps printed in a log: `torch.cuda.memory_summary()`'s table and a printed
//! `torch.cuda.memory_snapshot()`.
//!
//! Takes cleaned lines one at a time; yields a [`MemoryDump`]: from the summary table, the
//! "Cur Usage" of `GPU reserved memory`, `Allocated memory` and `Non-releasable memory` (free
//! space inside segments that still hold live blocks, which `empty_cache()` cannot return);
//! from a snapshot, the segments' `'total_size'` and the sizes of blocks in state
//! `'inactive'`. Both say how much of what the allocator holds is free but in pieces, which is
//! what fragmentation is. Reading keeps a few numbers, whatever the length of the log.

/// The allocator's memory as a dump states it, in bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryDump {
    /// The line of the dump's first row read.
    pub line: usize,
    pub reserved: Option<f64>,
    pub allocated: Option<f64>,
    pub non_releasable: Option<f64>,
    /// A snapshot's segments: their total size and the inactive (free) blocks inside them.
    pub segments: f64,
    pub inactive: f64,
}

impl MemoryDump {
    /// What the allocator held and how much of it was free in pieces: from the summary
    /// table when it has both rows, else from a snapshot; with the dump's name.
    pub fn held_and_free(&self) -> Option<(f64, f64, &'static str)> {
        match (self.reserved, self.non_releasable) {
            (Some(reserved), Some(free)) if reserved > 0.0 => {
                Some((reserved, free, "torch.cuda.memory_summary()"))
            }
            _ => (self.segments > 0.0).then_some((
                self.segments,
                self.inactive,
                "the memory snapshot",
            )),
        }
    }
}

/// Reads the dumps of a log, a line at a time.
#[derive(Debug, Default, Clone)]
pub struct MemoryReader {
    dump: MemoryDump,
    /// A snapshot block's `'size'`, until its `'state'` says whether it is free.
    block_size: Option<f64>,
}

impl MemoryReader {
    /// Whether no snapshot block is half read.
    pub fn settled(&self) -> bool {
        self.block_size.is_none()
    }

    /// Reads one cleaned line (`number` is its line in the log).
    pub fn line(&mut self, text: &str, number: usize) {
        let row = text.trim_start();
        if let Some(rest) = row.strip_prefix('|') {
            self.summary_row(rest, number);
        } else if text.contains("size': ") || text.contains("'state': ") {
            self.snapshot_line(text, number);
        }
    }

    /// A row of the summary table: `| Non-releasable memory |  30391 KiB |  38607 KiB | ...`.
    fn summary_row(&mut self, rest: &str, number: usize) {
        let mut cells = rest.split('|');
        let (Some(label), Some(current)) = (cells.next(), cells.next()) else {
            return;
        };
        let slot = match label.trim() {
            "GPU reserved memory" => &mut self.dump.reserved,
            "Allocated memory" => &mut self.dump.allocated,
            "Non-releasable memory" => &mut self.dump.non_releasable,
            _ => return,
        };
        if let Some(size) = parse_size(current) {
            *slot = Some(size);
            self.mark(number);
        }
    }

    /// Keys of a printed snapshot, which `pprint` may spread over several lines: each
    /// segment's `'total_size': N`, and each block's `'size': N` then its `'state'`.
    fn snapshot_line(&mut self, text: &str, number: usize) {
        // Quoted strings in pairs: one followed by `: ` is a key, and what follows is its value.
        let mut rest = text;
        while let Some(open) = rest.find('\'') {
            let Some(close) = rest[open + 1..].find('\'') else {
                break;
            };
            let key = &rest[open + 1..open + 1 + close];
            rest = &rest[open + close + 2..];
            let Some(value) = rest.strip_prefix(": ") else {
                continue;
            };
            match key {
                "total_size" => {
                    if let Some(n) = leading_number(value) {
                        self.dump.segments += n;
                        self.mark(number);
                    }
                }
                "size" => self.block_size = leading_number(value),
                "state" => {
                    if let (true, Some(n)) = (value.starts_with("'inactive'"), self.block_size) {
                        self.dump.inactive += n;
                    }
                    self.block_size = None;
                }
                _ => {}
            }
        }
    }

    fn mark(&mut self, number: usize) {
        if self.dump.line == 0 {
            self.dump.line = number;
        }
    }

    /// The dump read, if the log printed one.
    pub fn finish(self) -> Option<MemoryDump> {
        (self.dump.held_and_free().is_some()).then_some(self.dump)
    }
}

/// A byte count written as digits (`2097152`, `2097152,`).
fn leading_number(text: &str) -> Option<f64> {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text[..end].parse().ok()
}

/// A cell of the summary table: `  30391 KiB `, `      0 B   `, `  3.88 GiB `.
fn parse_size(cell: &str) -> Option<f64> {
    let cell = cell.trim();
    let (number, unit) = cell.split_once(' ')?;
    let scale = match unit.trim() {
        "B" => 1.0,
        "KiB" | "KB" => 1024.0,
        "MiB" | "MB" => 1024f64.powi(2),
        "GiB" | "GB" => 1024f64.powi(3),
        "TiB" | "TB" => 1024f64.powi(4),
        _ => return None,
    };
    Some(number.parse::<f64>().ok()? * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &str) -> Option<MemoryDump> {
        let mut reader = MemoryReader::default();
        for (i, line) in log.lines().enumerate() {
            reader.line(line, i + 1);
        }
        reader.finish()
    }

    #[test]
    fn reads_the_summary_tables_current_column() {
        let log = "\
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |   9834 MiB |  12811 MiB |   1204 GiB |   1194 GiB |
|       from large pool |   9790 MiB |  12767 MiB |   1190 GiB |   1180 GiB |
| GPU reserved memory   |  14336 MiB |  14336 MiB |  14336 MiB |      0 B   |
| Non-releasable memory |   4380 MiB |   5120 MiB |    880 GiB |    876 GiB |
|       from small pool |      9 MiB |     12 MiB |     40 GiB |     40 GiB |
| Allocations           |    2210    |    2470    |    9018 K  |    9016 K  |
";
        let dump = read(log).unwrap();
        let mib = 1024.0 * 1024.0;
        assert_eq!(dump.allocated, Some(9834.0 * mib));
        assert_eq!(dump.reserved, Some(14336.0 * mib));
        assert_eq!(dump.non_releasable, Some(4380.0 * mib));
        assert_eq!(dump.line, 4);
        let (held, free, name) = dump.held_and_free().unwrap();
        assert_eq!(
            (held, free, name),
            (14336.0 * mib, 4380.0 * mib, "torch.cuda.memory_summary()")
        );
    }

    #[test]
    fn reads_a_printed_snapshot_over_several_lines() {
        let log = "\
[{'address': 139871723831296,
  'allocated_size': 2097152,
  'blocks': [{'address': 139871723831296,
              'requested_size': 2097152,
              'size': 2097152,
              'state': 'active_allocated'},
             {'address': 139871725928448, 'size': 18874368, 'state': 'inactive'}],
  'total_size': 20971520},
 {'blocks': [{'size': 4194304, 'state': 'inactive'}], 'total_size': 4194304}]
";
        let dump = read(log).unwrap();
        assert_eq!(dump.segments, 20971520.0 + 4194304.0);
        assert_eq!(dump.inactive, 18874368.0 + 4194304.0);
        assert_eq!(dump.held_and_free().unwrap().2, "the memory snapshot");
    }

    #[test]
    fn other_tables_and_lines_are_no_dump() {
        assert_eq!(
            read("| step | loss |\n|  10  | 2.31 |\nsize': oops\n"),
            None
        );
        assert_eq!(read("| Non-releasable memory | n/a |\n"), None);
    }
}
