//! `errata serve` on a copy of the valid fixture site: pages from memory, live reload over
//! server-sent events, the problems overlay on a broken build, and requests that try to leave
//! the site.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Site, ERRATA};

struct Server {
    child: Child,
    port: u16,
    /// How many rebuilds the server has reported on stderr.
    rebuilds: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(site: &Site) -> Server {
    let mut child = Command::new(ERRATA)
        .args(["serve", "--port", "0", "--root"])
        .arg(&site.root)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start errata serve");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let rebuilds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = rebuilds.clone();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if line.starts_with("rebuilt in") || line.starts_with("error") {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    });
    Server {
        child,
        port,
        rebuilds,
    }
}

/// A GET over a plain socket: (status, body). `raw` is sent as the request path unchanged.
fn get(port: u16, raw: &str) -> (u16, String) {
    get_as(port, raw, "127.0.0.1")
}

/// [`get`] with the `Host` header `host`.
fn get_as(port: u16, raw: &str, host: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET {raw} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Reads server-sent events until one of `event` arrives or the deadline passes.
struct Events(BufReader<TcpStream>);

impl Events {
    fn open(port: u16) -> Events {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "GET /__errata/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        Events(BufReader::new(s))
    }

    fn wait_for(&mut self, event: &str, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        let mut current = String::new();
        while Instant::now() < deadline {
            let mut line = String::new();
            match self.0.read_line(&mut line) {
                Ok(0) => return None,
                Ok(_) => {
                    let line = line.trim_end();
                    if let Some(name) = line.strip_prefix("event: ") {
                        current = name.to_owned();
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        if current == event {
                            return Some(data.to_owned());
                        }
                    }
                }
                Err(_) => continue,
            }
        }
        None
    }
}

fn entry_file(site: &Site) -> std::path::PathBuf {
    let dir = site.root.join("content/memory");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.remove(0)
}

fn page_url_of(site: &Site, file: &std::path::Path) -> String {
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(file).unwrap();
    let slug = text
        .lines()
        .find_map(|l| l.strip_prefix("slug:"))
        .map(|s| s.trim().to_owned())
        .unwrap_or(stem);
    let _ = site;
    format!("/memory/{slug}/")
}

#[test]
fn edits_rebuild_and_reload_and_problems_show_then_clear() {
    let site = Site::new("valid-site");
    let server = start(&site);
    let file = entry_file(&site);
    let url = page_url_of(&site, &file);
    let (status, body) = get(server.port, &url);
    assert_eq!(status, 200, "{url}");
    assert!(
        body.contains("/__errata/live.js"),
        "live reload script injected"
    );

    let mut events = Events::open(server.port);
    assert!(
        events.wait_for("ok", Duration::from_secs(2)).is_some(),
        "a good build says ok"
    );
    let original = std::fs::read_to_string(&file).unwrap();
    let title_line = original
        .lines()
        .find(|l| l.starts_with("title:"))
        .unwrap()
        .to_owned();
    let edited = original.replacen(&title_line, "title: A Title Edited While Serving", 1);
    let started = Instant::now();
    std::fs::write(&file, &edited).unwrap();
    assert!(
        events.wait_for("reload", Duration::from_secs(2)).is_some(),
        "reload within 2 s"
    );
    assert!(get(server.port, &url)
        .1
        .contains("A Title Edited While Serving"));
    assert!(started.elapsed() < Duration::from_secs(2));

    // Break the front matter: problems with file and line; the last good page stays up.
    std::fs::write(&file, edited.replacen("title:", "titel:", 1)).unwrap();
    let problems = events
        .wait_for("problems", Duration::from_secs(3))
        .expect("problems event");
    let v: serde_json::Value = serde_json::from_str(&problems).unwrap();
    let first = &v[0];
    assert!(
        first["file"]
            .as_str()
            .unwrap()
            .ends_with(&*file.file_name().unwrap().to_string_lossy()),
        "{problems}"
    );
    assert!(first["line"].as_u64().unwrap() > 0, "{problems}");
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `titel`"),
        "{problems}"
    );
    assert!(
        get(server.port, &url)
            .1
            .contains("A Title Edited While Serving"),
        "last good site stays up"
    );
    // A tab opened now sees the problems at once.
    let mut late = Events::open(server.port);
    assert!(late.wait_for("problems", Duration::from_secs(2)).is_some());

    // Fix it: the overlay goes (the tab reloads).
    std::fs::write(&file, &original).unwrap();
    assert!(events.wait_for("reload", Duration::from_secs(3)).is_some());
}

/// Reading the content to rebuild it must not count as a change (a rebuild loop).
#[test]
fn one_edit_gives_one_rebuild() {
    use std::sync::atomic::Ordering;
    let site = Site::new("valid-site");
    let server = start(&site);
    assert_eq!(get(server.port, "/").0, 200);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        server.rebuilds.load(Ordering::SeqCst),
        0,
        "no change, no rebuild"
    );
    let file = entry_file(&site);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen("title:", "title: Edited", 1)).unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        server.rebuilds.load(Ordering::SeqCst),
        1,
        "one edit, one rebuild"
    );
}

#[test]
fn requests_cannot_leave_the_site() {
    let site = Site::new("valid-site");
    let server = start(&site);
    assert_eq!(get(server.port, "/").0, 200);
    for raw in [
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/%2E%2E/%2E%2E/etc/passwd",
        "/%252e%252e/errata.yaml",
        "/..%2ferrata.yaml",
        "/..%5cerrata.yaml",
        "/static/..%2f..%2ferrata.yaml",
        "/errata.yaml",
        "/content/",
        "/x%00.html",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/\\..\\errata.yaml",
        "/%5c..%5cerrata.yaml",
        "/C:%5cWindows",
    ] {
        let (status, _) = get(server.port, raw);
        assert!(status == 404 || status == 400, "{raw} gave {status}");
    }
}

#[test]
fn idle_connections_do_not_block_and_ctrl_c_stops_it() {
    let site = Site::new("valid-site");
    let mut server = start(&site);
    // Slow clients that send half a request and wait, and a tab listening for reloads.
    let mut idle: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            write!(s, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").unwrap();
            s
        })
        .collect();
    let mut events = Events::open(server.port);
    assert!(events.wait_for("ok", Duration::from_secs(5)).is_some());
    // Others are still served.
    for _ in 0..5 {
        assert_eq!(get(server.port, "/").0, 200);
    }
    idle.push(TcpStream::connect(("127.0.0.1", server.port)).unwrap());
    let status = Command::new("kill")
        .args(["-INT", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // It stops although every one of those connections is still open (bench/serve-load
    // times this; here it only has to stop).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "serve exited with {status}");
            break;
        }
        assert!(Instant::now() < deadline, "serve did not stop on Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(idle);
}

/// DNS rebinding: a request naming another host is refused, pages and live events alike,
/// while localhost names and addresses are answered.
#[test]
fn a_foreign_host_header_is_refused() {
    let site = Site::new("valid-site");
    let server = start(&site);
    for path in ["/", "/__errata/events", "/__errata/live.js"] {
        let (status, body) = get_as(server.port, path, "evil.example");
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body.contains("--allow-host evil.example"), "{body}");
    }
    for host in ["localhost:1111", "127.0.0.1", "[::1]:1111"] {
        assert_eq!(get_as(server.port, "/", host).0, 200, "{host}");
    }
}

/// Slow loris: sockets that send part of a request line and stall, or dribble a byte at a
/// time, are closed once the header timeout (10 s) passes; others are served meanwhile.
#[test]
fn a_client_that_stalls_in_its_headers_is_closed() {
    let site = Site::new("valid-site");
    let server = start(&site);
    let started = Instant::now();
    let port = server.port;
    let dribbler = std::thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
        // Until the server closes it: a write then fails (or, at worst, 60 s pass).
        while started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(500));
            if s.write_all(b"x").is_err() {
                break;
            }
        }
        started.elapsed()
    });
    let mut stalled: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"GET / HT").unwrap();
            s
        })
        .collect();
    for _ in 0..3 {
        assert_eq!(get(port, "/").0, 200);
    }
    for s in &mut stalled {
        s.set_read_timeout(Some(Duration::from_secs(50))).unwrap();
        let mut buf = Vec::new();
        // Closed: end of stream or a reset, not the read timeout.
        if let Err(e) = s.read_to_end(&mut buf) {
            assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
        }
    }
    let closed_after = started.elapsed();
    assert!(
        closed_after < Duration::from_secs(45),
        "stalled sockets were held for {closed_after:?}"
    );
    assert!(
        closed_after >= Duration::from_secs(9),
        "closed before the timeout: {closed_after:?}"
    );
    let dribbled = dribbler.join().unwrap();
    assert!(
        dribbled < Duration::from_secs(45),
        "a dribbling socket was held for {dribbled:?}"
    );
    assert_eq!(get(port, "/").0, 200);
}
