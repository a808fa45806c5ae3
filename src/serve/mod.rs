//! `errata serve`: build in memory, serve, watch, rebuild, reload the open tab.
//!
//! Takes the site root and an address (loopback unless told otherwise); serves the last good
//! build from memory, so no request can reach a file outside the built site. Watches
//! `content/`, `themes/` and `errata.yaml` (changes only, not reads; debounced, so editors that
//! save in several writes cause one rebuild), rebuilds, and tells open tabs over server-sent events: `reload` after a
//! good build, `problems` (with file, line and hint) after a failed one, which the page shows
//! as an overlay while the last good site stays up. Answers only loopback names and IP
//! addresses in `Host` (see [`host`]), and closes a connection whose request headers take
//! longer than [`conn::HEADER_READ_TIMEOUT`]. Ctrl-C stops it.

mod conn;
mod host;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

use crate::diagnostic::{self, Problem};
use crate::pipeline::{self, PipelineError};

const DEBOUNCE: Duration = Duration::from_millis(120);
/// How long connections may take to finish after Ctrl-C.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(300);
/// What open tabs are told, over server-sent events.
#[derive(Debug, Clone)]
enum LiveEvent {
    /// The build is good (sent first to a tab that connects while it is).
    Ok,
    /// A rebuild succeeded: reload.
    Reload,
    /// A build failed: show these problems over the last good site.
    Problems(Arc<Vec<OverlayProblem>>),
    /// The server is stopping: end the stream.
    Shutdown,
}

impl LiveEvent {
    fn to_sse(&self) -> Event {
        match self {
            LiveEvent::Ok => Event::default().event("ok").data("ok"),
            LiveEvent::Reload => Event::default().event("reload").data("reload"),
            LiveEvent::Problems(problems) => Event::default()
                .event("problems")
                .data(serde_json::to_string(problems.as_slice()).unwrap_or_default()),
            LiveEvent::Shutdown => Event::default().event("shutdown").data("shutdown"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub root: PathBuf,
    pub bind: std::net::IpAddr,
    pub port: u16,
    pub open: bool,
    pub drafts: bool,
    /// Names answered besides localhost and IP addresses (`--allow-host`).
    pub allowed_hosts: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot watch {path}: {message}")]
    Watch { path: PathBuf, message: String },
    #[error("the server failed")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
}

/// A problem as the overlay shows it.
#[derive(Debug, Clone, Serialize)]
struct OverlayProblem {
    file: String,
    line: usize,
    column: usize,
    message: String,
    hint: Option<String>,
    text: String,
}

struct SiteState {
    files: BTreeMap<String, Vec<u8>>,
    /// The problems of the last build, if it failed.
    problems: Option<Arc<Vec<OverlayProblem>>>,
}

#[derive(Clone)]
struct App {
    state: Arc<RwLock<SiteState>>,
    events: broadcast::Sender<LiveEvent>,
}

/// Applies a rebuild to the served files; returns how many files it replaced.
fn apply(files: &mut BTreeMap<String, Vec<u8>>, rebuilt: pipeline::Rebuilt) -> usize {
    let count = rebuilt.outputs.len();
    if rebuilt.complete {
        files.clear();
    }
    files.extend(rebuilt.outputs.into_iter().map(|o| (o.path, o.bytes)));
    count
}

fn overlay_problems(error: &PipelineError) -> Vec<OverlayProblem> {
    let from = |p: &Problem, sources: &diagnostic::Sources| OverlayProblem {
        file: p.file.display().to_string(),
        line: p.line,
        column: p.column,
        message: p.message.clone(),
        hint: p.hint.clone(),
        text: diagnostic::render(p, sources),
    };
    match error.problems() {
        Some((problems, sources)) => problems.iter().map(|p| from(p, sources)).collect(),
        None => vec![OverlayProblem {
            file: String::new(),
            line: 0,
            column: 0,
            message: error.to_string(),
            hint: None,
            text: error.to_string(),
        }],
    }
}

/// Runs the server until Ctrl-C.
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(options))
}

async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let addr = SocketAddr::new(options.bind, options.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let addr = listener.local_addr()?;
    let host = if addr.ip().is_unspecified() {
        "127.0.0.1".to_owned()
    } else {
        addr.ip().to_string()
    };
    let base_url = format!("http://{host}:{}/", addr.port());

    let started = Instant::now();
    let mut builder = pipeline::Incremental::new(
        &options.root,
        pipeline::CheckOptions {
            drafts: options.drafts,
            base_url: Some(base_url.clone()),
            strict: false,
        },
    );
    let (files, problems) = match builder.rebuild(true) {
        Ok(rebuilt) => {
            let mut files = BTreeMap::new();
            apply(&mut files, rebuilt);
            (files, None)
        }
        Err(e) => {
            report(&e);
            (BTreeMap::new(), Some(Arc::new(overlay_problems(&e))))
        }
    };
    eprintln!(
        "serving {} at {base_url} (built in {} ms); watching for changes, Ctrl-C to stop",
        options.root.display(),
        started.elapsed().as_millis()
    );
    let (events, _) = broadcast::channel(16);
    let app = App {
        state: Arc::new(RwLock::new(SiteState { files, problems })),
        events,
    };

    let watcher = watch(&options, app.clone(), builder)?;
    if options.open {
        let _ = open::that(&base_url);
    }
    let app_events = app.events.clone();
    let router = Router::new()
        .route("/__errata/live.js", get(live_js))
        .route("/__errata/events", get(events_stream))
        .fallback(get(page))
        .with_state(app)
        .layer(axum::middleware::from_fn_with_state(
            host::AllowedHosts::new(&options.allowed_hosts),
            host::check_host,
        ));
    // Ctrl-C: open event streams end at once; any other connection (a slow or idle client)
    // gets at most SHUTDOWN_GRACE to finish before the server stops anyway.
    let events = app_events;
    let stop = async move {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("stopping");
        let _ = events.send(LiveEvent::Shutdown);
    };
    conn::serve(listener, router, stop, SHUTDOWN_GRACE).await;
    drop(watcher);
    Ok(())
}

/// Prints a failed build's problems as the CLI does (a bad errata.yaml with its snippet too).
fn report(error: &PipelineError) {
    match error.problems() {
        Some((problems, sources)) => diagnostic::report(problems, sources),
        None => eprintln!("error: {error}"),
    }
}

/// Watches the site and rebuilds on change, on a thread of its own.
fn watch(
    options: &ServeOptions,
    app: App,
    mut builder: pipeline::Incremental,
) -> Result<notify::RecommendedWatcher, ServeError> {
    use notify::{RecursiveMode, Watcher};
    let (tx, rx) = std::sync::mpsc::channel::<notify::Result<notify::Event>>();
    let watch_error = |path: &Path, e: notify::Error| ServeError::Watch {
        path: path.to_owned(),
        message: e.to_string(),
    };
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| watch_error(&options.root, e))?;
    for (path, mode) in [
        ("content", RecursiveMode::Recursive),
        ("themes", RecursiveMode::Recursive),
        ("errata.yaml", RecursiveMode::NonRecursive),
    ] {
        let full = options.root.join(path);
        if full.exists() {
            watcher
                .watch(&full, mode)
                .map_err(|e| watch_error(&full, e))?;
        }
    }
    // The watcher may report absolute paths for a relative root: compare absolute paths.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let content = absolute(&options.root.join("content"));
    std::thread::spawn(move || {
        while let Ok(first) = rx.recv() {
            // Reading files (our own rebuild among them) is an event too: only changes count.
            if !is_change(&first) {
                continue;
            }
            // Debounce: editors save in several writes; take everything that follows closely.
            let mut changed: Vec<PathBuf> = changed_paths(&first);
            let deadline = Instant::now() + Duration::from_secs(1);
            while Instant::now() < deadline {
                match rx.recv_timeout(DEBOUNCE) {
                    Ok(event) => changed.extend(changed_paths(&event)),
                    Err(_) => break,
                }
            }
            // Content edits render what they touch; the theme or config renders everything.
            let everything = changed.iter().any(|p| !absolute(p).starts_with(&content));
            let started = Instant::now();
            if !everything {
                builder.expect_only(&changed);
            }
            match builder.rebuild(everything) {
                Ok(rebuilt) => {
                    let entry_pages = rebuilt.entry_pages;
                    let files = match app.state.write() {
                        Ok(mut state) => {
                            state.problems = None;
                            apply(&mut state.files, rebuilt)
                        }
                        Err(_) => 0,
                    };
                    eprintln!(
                        "rebuilt in {} ms ({files} files, {entry_pages} entry pages)",
                        started.elapsed().as_millis()
                    );
                    let _ = app.events.send(LiveEvent::Reload);
                }
                Err(e) => {
                    report(&e);
                    let problems = Arc::new(overlay_problems(&e));
                    if let Ok(mut state) = app.state.write() {
                        state.problems = Some(problems.clone());
                    }
                    let _ = app.events.send(LiveEvent::Problems(problems));
                }
            }
        }
    });
    Ok(watcher)
}

/// The paths of a change event, without editors' swap files.
fn changed_paths(event: &notify::Result<notify::Event>) -> Vec<PathBuf> {
    match event {
        Ok(e) if is_change(event) => e.paths.iter().filter(|p| !is_noise(p)).cloned().collect(),
        _ => Vec::new(),
    }
}

/// A change to a file we build from, not an access and not an editor's swap file.
fn is_change(event: &notify::Result<notify::Event>) -> bool {
    let Ok(event) = event else { return false };
    if matches!(
        event.kind,
        notify::EventKind::Access(_) | notify::EventKind::Other
    ) {
        return false;
    }
    event.paths.iter().any(|p| !is_noise(p))
}

/// Editor swap and backup files.
fn is_noise(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.starts_with("4913")
}

async fn live_js() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        LIVE_JS,
    )
        .into_response()
}

async fn events_stream(State(app): State<App>) -> impl IntoResponse {
    // A tab that connects while the build is broken sees the problems at once.
    let current = app.state.read().ok().and_then(|s| s.problems.clone());
    let initial = match current {
        Some(problems) => LiveEvent::Problems(problems),
        None => LiveEvent::Ok,
    };
    let first = tokio_stream::once(Ok::<_, std::convert::Infallible>(initial.to_sse()));
    let rest = BroadcastStream::new(app.events.subscribe())
        .filter_map(Result::ok)
        .take_while(|m| !matches!(m, LiveEvent::Shutdown))
        .map(|m| Ok(m.to_sse()));
    Sse::new(first.chain(rest)).keep_alive(KeepAlive::default())
}

/// The path a request names inside the site, or `None` when it tries to leave it.
pub fn site_path(raw_path: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(raw_path)
        .decode_utf8()
        .ok()?;
    if decoded.contains('\0') || decoded.contains('\\') || decoded.contains('%') {
        return None;
    }
    let mut parts = Vec::new();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    let mut path = parts.join("/");
    if raw_path.ends_with('/') || path.is_empty() {
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str("index.html");
    }
    crate::write::is_safe_relative(&path).then_some(path)
}

async fn page(State(app): State<App>, uri: Uri) -> Response {
    let Some(path) = site_path(uri.path()) else {
        return not_found(&app);
    };
    let state = match app.state.read() {
        Ok(s) => s,
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let found = state
        .files
        .get(&path)
        .map(|b| (path.clone(), b))
        .or_else(|| {
            // `/memory/x` -> `/memory/x/index.html`
            let dir = format!("{path}/index.html");
            state.files.get(&dir).map(|b| (dir, b))
        });
    match found {
        Some((name, bytes)) => respond(&name, bytes, StatusCode::OK),
        None => {
            drop(state);
            not_found(&app)
        }
    }
}

fn not_found(app: &App) -> Response {
    let state = app.state.read();
    match state.as_ref().ok().and_then(|s| s.files.get("404.html")) {
        Some(bytes) => respond("404.html", bytes, StatusCode::NOT_FOUND),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

fn respond(name: &str, bytes: &[u8], status: StatusCode) -> Response {
    let mime = mime_of(name);
    let body = if mime.essence_str() == "text/html" {
        inject_live_reload(bytes)
    } else {
        bytes.to_vec()
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(mime.as_ref()) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn inject_live_reload(html: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(html);
    let tag = "<script src=\"/__errata/live.js\" defer></script>";
    match text.rfind("</body>") {
        Some(i) => format!("{}{tag}\n{}", &text[..i], &text[i..]).into_bytes(),
        None => format!("{text}{tag}").into_bytes(),
    }
}

/// The type of a file by its name's extension (`mime_guess`), with the charset of a text.
fn mime_of(name: &str) -> mime_guess::Mime {
    let guess = mime_guess::from_path(name).first_or_octet_stream();
    let texty = guess.type_() == mime_guess::mime::TEXT
        || matches!(
            guess.essence_str(),
            "application/xml" | "application/javascript"
        );
    match (texty, guess.get_param(mime_guess::mime::CHARSET)) {
        (true, None) => format!("{}; charset=utf-8", guess.essence_str())
            .parse()
            .unwrap_or(guess),
        _ => guess,
    }
}

/// The page side of live reload: reload on `reload`, show an overlay on `problems`.
const LIVE_JS: &str = include_str!("live.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_guessed_from_the_extension_with_a_text_charset() {
        let of = |name: &str| mime_of(name).to_string();
        assert_eq!(of("index.html"), "text/html; charset=utf-8");
        assert_eq!(of("errata.css"), "text/css; charset=utf-8");
        assert_eq!(of("errata-search.wasm"), "application/wasm");
        assert_eq!(of("search/errata.bundle"), "application/octet-stream");
        assert!(of("entries.json").starts_with("application/json"));
        assert!(
            of("atom.xml").ends_with("xml; charset=utf-8"),
            "{}",
            of("atom.xml")
        );
        assert!(of("errata.js").ends_with("javascript; charset=utf-8"));
        assert_eq!(of("samples/loss-nan.log"), "text/plain; charset=utf-8");
    }

    #[test]
    fn paths_stay_inside_the_site() {
        assert_eq!(site_path("/").as_deref(), Some("index.html"));
        assert_eq!(
            site_path("/memory/x/").as_deref(),
            Some("memory/x/index.html")
        );
        assert_eq!(
            site_path("/static/style.css").as_deref(),
            Some("static/style.css")
        );
        for bad in [
            "/../Cargo.toml",
            "/%2e%2e/Cargo.toml",
            "/a/%2E%2E/%2E%2E/etc/passwd",
            "/%252e%252e/x",
            "/a\\..\\b",
            "/x%00.html",
            "/..%2fCargo.toml",
            "/%2e%2e%5cCargo.toml",
        ] {
            assert_eq!(site_path(bad), None, "{bad}");
        }
    }
}
