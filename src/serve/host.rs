//! Which `Host` headers the preview answers: a guard against DNS rebinding.
//!
//! A page on `evil.example` can point its own name at 127.0.0.1 and then read the preview's
//! pages and live events (problem text, file paths, draft lines) as same-origin requests. Its
//! requests still carry `Host: evil.example`, so the preview answers only the names a browser
//! on this machine uses for it: `localhost` and names under it, IP addresses (a rebinding
//! attack needs a name), and the names given with `--allow-host`. Vite and
//! webpack-dev-server check the same way.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The names the preview answers besides its own.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// The names given with `--allow-host` (compared without case; `.example.org` allows
    /// every name under it too).
    pub fn new(names: &[String]) -> AllowedHosts {
        AllowedHosts {
            names: names.iter().map(|n| n.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether a request with this `Host` header is answered (no header: HTTP/1.0 clients,
    /// never a browser).
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return true };
        let name = without_port(host.trim()).to_ascii_lowercase();
        let name = name.trim_end_matches('.');
        name == "localhost"
            || name.ends_with(".localhost")
            || name.parse::<std::net::IpAddr>().is_ok()
            || self
                .names
                .iter()
                .any(|allowed| match allowed.strip_prefix('.') {
                    Some(domain) => name == domain || name.ends_with(allowed.as_str()),
                    None => name == allowed,
                })
    }
}

/// `host:port`, `[v6]:port` or `[v6]` without the port and the brackets.
fn without_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The middleware: 403 for a name the preview does not answer, with what to do about it.
pub async fn check_host(
    State(allowed): State<AllowedHosts>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if allowed.allows(host) {
        return next.run(request).await;
    }
    let name = host.unwrap_or_default();
    let body = format!(
        "errata serve answers only localhost and IP addresses, not `{name}` (a guard against DNS rebinding); restart it with `--allow-host {}` to allow this name\n",
        without_port(name)
    );
    (StatusCode::FORBIDDEN, body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_addresses_only() {
        let none = AllowedHosts::default();
        for ok in [
            "localhost",
            "localhost:1111",
            "LOCALHOST.:1111",
            "app.localhost:80",
            "127.0.0.1:1111",
            "192.168.1.20:1111",
            "[::1]:1111",
            "[::1]",
        ] {
            assert!(none.allows(Some(ok)), "{ok}");
        }
        assert!(none.allows(None));
        for bad in [
            "evil.example",
            "evil.example:1111",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "",
        ] {
            assert!(!none.allows(Some(bad)), "{bad}");
        }
    }

    #[test]
    fn allow_host_adds_names_and_domains() {
        let some = AllowedHosts::new(&["preview.lan".into(), ".corp.example".into()]);
        assert!(some.allows(Some("Preview.LAN:1111")));
        assert!(some.allows(Some("corp.example")));
        assert!(some.allows(Some("box.corp.example:8080")));
        assert!(!some.allows(Some("evilcorp.example")));
        assert!(!some.allows(Some("preview.lan.evil")));
    }
}
