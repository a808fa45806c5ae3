//! Accepting and serving the connections of `errata serve`, with a bound on slow clients.
//!
//! Takes the bound listener, the router and the signal to stop; serves each connection over
//! HTTP/1.1 on a task of its own, and closes one whose request headers take longer than
//! [`HEADER_READ_TIMEOUT`] to arrive (a client that dribbles bytes would otherwise hold its
//! socket for ever). Once told to stop it accepts no more, asks every connection to finish,
//! and waits at most the grace it is given.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long a client may take to send a request's line and headers, and how long a
/// connection may sit idle between requests. A browser sends them at once.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `listener` until `stop` completes, then gives connections up to `grace` to end.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: impl Future<Output = ()>,
    grace: Duration,
) {
    let (closing, _) = watch::channel(());
    let mut stop = std::pin::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was accepted:
                // wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        tokio::spawn(connection(stream, router.clone(), closing.subscribe()));
    }
    // Every connection holds a receiver: closing them all ends the wait.
    let _ = closing.send(());
    let _ = tokio::time::timeout(grace, closing.closed()).await;
}

async fn connection(
    stream: tokio::net::TcpStream,
    router: Router,
    mut closing: watch::Receiver<()>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let service = TowerToHyperService::new(router);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = closing.changed() => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
