//! `thehook ui`: one local page over the core's views. The page (three
//! files embedded in the binary, nothing fetched at run time) talks to a
//! JSON API ([`api`]) on 127.0.0.1; every request passes the [`guard`]
//! (Host, Origin, the token in the URL printed); every answer carries a
//! strict Content-Security-Policy. Ctrl-C stops it.

mod api;
mod guard;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use thehook_core::model::SearchPaths;
use thehook_core::{Error, Project};

use api::Api;
use guard::Guard;

const INDEX: &str = include_str!("assets/index.html");
const APP: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

/// No script but the page's own file, no style but its own, no request but
/// to this server, no frame, no form, no base.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Where `thehook ui` serves and whether it opens the browser.
pub(crate) struct Options {
    pub(crate) port: u16,
    pub(crate) open: bool,
}

/// Serves the page of `project` until Ctrl-C; `started` gets the URL once
/// the server listens.
pub(crate) fn serve(
    project: &Project,
    paths: SearchPaths,
    options: Options,
    started: impl FnOnce(&str),
) -> Result<(), Error> {
    if !project.check_layout()? {
        return Err(Error::no_memory(project.root()));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| Error::io("cannot start the page's server", ".", e))?;
    runtime.block_on(async move {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Error::io("cannot listen on", address.to_string(), e))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::io("cannot listen on", address.to_string(), e))?
            .port();
        let token = guard::new_token().map_err(|e| Error::io("cannot make a token", ".", e))?;
        let url = format!("http://127.0.0.1:{port}/?token={token}#/sessions");
        let api = Arc::new(Api {
            root: project.root().to_path_buf(),
            paths,
        });
        let app = router(api, Guard::new(port, token));
        started(&url);
        if options.open {
            // A machine without a browser still has the URL printed.
            let _ = open::that_detached(&url);
        }
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| Error::io("the page's server stopped", address.to_string(), e))
    })
}

fn router(api: Arc<Api>, guard: Guard) -> Router {
    // The page names this run's token (hex: nothing to escape).
    let page: &'static str = INDEX.replace("{{TOKEN}}", guard.token()).leak();
    let guard = Arc::new(guard);
    Router::new()
        .route("/", get(move || asset(page, "text/html; charset=utf-8")))
        .route(
            "/app.js",
            get(|| asset(APP, "text/javascript; charset=utf-8")),
        )
        .route(
            "/style.css",
            get(|| asset(STYLE, "text/css; charset=utf-8")),
        )
        // No icon: answered, so the browser does not ask again.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/api/overview", get(api::overview))
        .route("/api/sessions", get(api::timeline))
        .route("/api/sessions/{id}", get(api::session))
        .route("/api/next", get(api::next))
        .route("/api/items", get(api::item_list))
        .route("/api/items/{id}", get(api::item))
        .route("/api/search", get(api::search))
        .route("/api/markdown", get(api::markdown_lines))
        .route("/api/review", get(api::review_page))
        .route("/api/review/{action}", post(api::decide))
        .route("/api/cost", get(api::cost_page))
        .route("/api/health", get(api::health_page))
        .route("/api/retry", post(api::retry))
        .with_state(api)
        .layer(middleware::from_fn_with_state(guard, checked))
}

/// Every request through the guard; every answer with the headers that
/// keep the page to itself.
async fn checked(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let token = request.uri().query().and_then(query_token);
    let mut response = match guard.check(request.method(), request.headers(), token.as_deref()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => api::failure(StatusCode::FORBIDDEN, refusal.message(), "THEHOOK_REFUSED"),
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        // The URL holds the token: never sent on to another site.
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// `token=` of a query string.
fn query_token(query: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .map(str::to_string)
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}
