//! What relays put before each line of a program's output: a container runtime (Kubernetes'
//! `stderr F` after the timestamp), Docker Compose (`api-1  | `), TorchX (`trainer/0 `),
//! systemd's journal (`Dec 04 10:00:00 host prog[pid]: `) and loguru
//! (`| module:function:line - `). Each function takes a line (after its timestamp, for the
//! runtime's tag) and yields it without the relay's part: `None` when the line does not start
//! with it (the runtime's tag: the line as it is). [`super::clean`] calls them among its other
//! prefixes.

/// The line without the prefix of whichever relay it starts with (journal, loguru, Compose,
/// TorchX), if any.
pub(super) fn without_relay(s: &str) -> Option<&str> {
    without_syslog_header(s)
        .or_else(|| without_loguru_location(s))
        .or_else(|| without_compose_service(s))
        .or_else(|| without_torchx_replica(s))
}

/// The line without Docker Compose's prefix, the container's name and a bar (`api-1  | `,
/// `project_worker_1 | `), which `docker compose logs` and `up` put before each line.
fn without_compose_service(s: &str) -> Option<&str> {
    let name_end = s.find(' ')?;
    let (name, rest) = s.split_at(name_end);
    let rest = rest.trim_start_matches(' ').strip_prefix('|')?;
    let (base, number) = name.rsplit_once(['-', '_'])?;
    let named = base.len() >= 2
        && (base.bytes())
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b));
    let numbered = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
    (named && numbered).then_some(rest)
}

/// The line without TorchX's prefix, the role's name and the replica's number (`dlrm_main/0 `),
/// which `torchx run` puts before each line of each replica (the rank, `[0]:`, follows).
fn without_torchx_replica(s: &str) -> Option<&str> {
    let (head, rest) = s.split_once(' ')?;
    let (role, replica) = head.split_once('/')?;
    let named = role.starts_with(|c: char| c.is_ascii_alphabetic())
        && (role.bytes()).all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
    let numbered = !replica.is_empty() && replica.bytes().all(|b| b.is_ascii_digit());
    (named && numbered && !rest.trim().is_empty()).then_some(rest)
}

/// The line without the header systemd's journal and syslog put before it: a time with the
/// month's name, the host and the program with its pid (`Dec 04 10:00:00 node-3
/// python3[12345]: `).
fn without_syslog_header(s: &str) -> Option<&str> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = s.strip_prefix(MONTHS.iter().find(|m| s.starts_with(*m))?)?;
    let mut words = rest.split_whitespace();
    let day = words.next()?;
    let time = words.next()?;
    let _host = words.next()?;
    let program = words.next()?;
    let timed = day.len() <= 2
        && day.bytes().all(|b| b.is_ascii_digit())
        && time.len() >= 8
        && time.as_bytes()[2] == b':'
        && time.as_bytes()[5] == b':';
    let tagged = program.ends_with("]:") && program.contains('[') || program.ends_with(':');
    if !(timed && tagged) {
        return None;
    }
    let at = rest.find(program)? + program.len();
    Some(&rest[at..])
}

/// The line without loguru's location, after its time and level (`| __main__:train:135 - `):
/// the module, the function and the line, then a dash.
fn without_loguru_location(s: &str) -> Option<&str> {
    let s = s.strip_prefix("| ").unwrap_or(s);
    let (location, rest) = s.split_once(" - ")?;
    let mut parts = location.rsplitn(3, ':');
    let line = parts.next()?;
    let function = parts.next()?;
    let module = parts.next()?;
    let named = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.<>".contains(&b))
    };
    let located = !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && named(function)
        && named(module);
    located.then_some(rest)
}

/// The line without the stream and tag a container runtime writes after the timestamp, in
/// Kubernetes' node logs (`2024-05-01T10:00:00.123456789Z stderr F RuntimeError: ...`).
pub(super) fn without_cri_stream(s: &str) -> &str {
    let mut words = s.splitn(3, ' ');
    match (words.next(), words.next(), words.next()) {
        // An empty line of the program's output is the stream and the tag alone.
        (Some(stream), Some(tag), rest) if is_cri_stream(stream, tag) => rest.unwrap_or(""),
        _ => s,
    }
}

/// Whether two words are a container runtime's stream and tag (`stderr F`: a full line; `P`: a
/// partial one), not a level (`F`, FATAL) or text.
pub(super) fn is_cri_stream(stream: &str, tag: &str) -> bool {
    matches!(stream, "stdout" | "stderr") && matches!(tag, "F" | "P")
}

#[cfg(test)]
mod tests {
    use crate::log::clean_line;

    fn text(line: &str) -> String {
        clean_line(line).map(|l| l.text).unwrap_or_default()
    }

    /// The prefixes relays put before each line: a runtime's timestamp, stream and tag in
    /// Kubernetes' node logs, Docker Compose's container name and bar, TorchX's role and
    /// replica, the journal's header, loguru's location.
    #[test]
    fn strips_what_relays_put_before_a_line() {
        for line in [
            "2024-03-01T12:00:01.123456789Z stderr F RuntimeError: boom",
            "2024-03-01T12:00:01.123456789+00:00 stdout P RuntimeError: boom",
            "proj_worker_1 | RuntimeError: boom",
            "Dec  4 10:00:00 gpu-node-3 python3[12345]: RuntimeError: boom",
            "2024-05-01 10:00:00.123 | ERROR    | __main__:train:135 - RuntimeError: boom",
            "dlrm_main/0 [0]:RuntimeError: boom",
        ] {
            assert_eq!(text(line), "RuntimeError: boom", "{line}");
        }
        // The runtime's `F` (a full line) is not a FATAL level.
        let line = clean_line("2024-03-01T12:00:01.123456789Z stdout F Some weights were not used");
        assert_eq!(line.unwrap().level, None);
        // Indentation after Compose's bar is the line's own.
        let frame =
            clean_line("trainer-1  |   File \"/app/train.py\", line 3, in <module>").unwrap();
        assert_eq!(
            (frame.text.as_str(), frame.indent),
            ("File \"/app/train.py\", line 3, in <module>", 2)
        );
        // Only after a timestamp is a stream's name a runtime's; a bar after any word is text.
        assert_eq!(text("stderr F x: boom"), "stderr F x: boom");
        assert_eq!(text("a | b RuntimeError: boom"), "a | b RuntimeError: boom");
        assert_eq!(
            text("May the run end: RuntimeError: boom"),
            "May the run end: RuntimeError: boom"
        );
        assert_eq!(
            text("see x:y:3 - RuntimeError: boom"),
            "see x:y:3 - RuntimeError: boom"
        );
    }

    /// An empty line of the program's output, in Kubernetes' shape, is the runtime's stream and
    /// tag alone: nothing, not a FATAL record; and IPython's arrow after `docker logs
    /// --timestamps`' time keeps its dashes.
    #[test]
    fn an_empty_line_and_an_arrow_after_a_relays_prefix() {
        assert_eq!(text("2026-12-06T10:00:00.000000000Z stderr F "), "");
        assert_eq!(
            text("2026-01-01T10:00:00.123456789Z ----> 2 tuner.train(train_ds)"),
            "----> 2 tuner.train(train_ds)"
        );
        assert_eq!(text("2026-01-01T10:00:00.123456789Z | step 10"), "step 10");
    }
}
