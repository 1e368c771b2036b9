//! The page's JSON API: each route maps its query to a core call and
//! serializes what the core returns (`thehook_core::views` and the types
//! `--json` and MCP already give). Core calls block, so each runs on
//! tokio's blocking pool, on the project's memory kept open between
//! requests (`with_memory`, as the Node addon keeps it).

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::json;
use thehook_core::agents::Agent;
use thehook_core::error::ErrorCode;
use thehook_core::memory::rank::fusion::Mode;
use thehook_core::memory::shared::with_memory;
use thehook_core::memory::Refresh;
use thehook_core::model::SearchPaths;
use thehook_core::store::item::ItemKind;
use thehook_core::views::{cost, health, items, markdown, review, sessions};
use thehook_core::{Error, ItemRef, Memory, RecallOptions, RewriteRequest};

/// What every handler needs.
pub(crate) struct Api {
    pub(crate) root: PathBuf,
    pub(crate) paths: SearchPaths,
}

type Shared = State<Arc<Api>>;

/// Runs `f` on the open memory, off the async threads, and answers with
/// its value as JSON: 404 for `None`, the error's status for an error.
async fn answer<T, F>(api: Arc<Api>, refresh: Refresh, f: F) -> Response
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Memory, &SearchPaths) -> thehook_core::Result<Option<T>> + Send + 'static,
{
    let done = tokio::task::spawn_blocking(move || {
        with_memory(&api.root, &api.paths, false, refresh, |m| f(m, &api.paths))
    })
    .await;
    match done {
        Ok(Ok(Some(value))) => Json(value).into_response(),
        Ok(Ok(None)) => failure(StatusCode::NOT_FOUND, "not found", "THEHOOK_NOT_FOUND"),
        Ok(Err(e)) => error(&e),
        Err(_) => failure(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request failed inside thehook (see stderr)",
            "THEHOOK_INTERNAL",
        ),
    }
}

fn error(e: &Error) -> Response {
    let status = match e.code() {
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Usage => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    failure(status, &e.to_string(), e.code().as_str())
}

pub(crate) fn failure(status: StatusCode, message: &str, code: &str) -> Response {
    (status, Json(json!({ "error": message, "code": code }))).into_response()
}

pub(crate) async fn overview(State(api): Shared) -> Response {
    answer(api, Refresh::Stamped, |m, _| health::overview(m).map(Some)).await
}

#[derive(Deserialize)]
pub(crate) struct Page {
    #[serde(default)]
    offset: usize,
    limit: Option<usize>,
}

/// Sessions listed at once unless the page asks for fewer.
const SESSIONS_AT_ONCE: usize = 100;

pub(crate) async fn timeline(State(api): Shared, Query(page): Query<Page>) -> Response {
    let limit = page.limit.unwrap_or(SESSIONS_AT_ONCE).min(SESSIONS_AT_ONCE);
    answer(api, Refresh::Stamped, move |m, _| {
        sessions::timeline(m, page.offset, limit).map(Some)
    })
    .await
}

pub(crate) async fn session(State(api): Shared, Path(id): Path<String>) -> Response {
    answer(api, Refresh::Stamped, move |m, _| sessions::session(m, &id)).await
}

#[derive(Deserialize)]
pub(crate) struct NextQuery {
    agent: Option<String>,
}

pub(crate) async fn next(State(api): Shared, Query(q): Query<NextQuery>) -> Response {
    let agent = match q.agent.as_deref().map(Agent::parse) {
        None => Agent::DEFAULT,
        Some(Some(agent)) => agent,
        Some(None) => return failure(StatusCode::BAD_REQUEST, "unknown agent", "THEHOOK_USAGE"),
    };
    answer(api, Refresh::Stamped, move |m, _| {
        thehook_core::inject::session_start::preview(m, agent).map(Some)
    })
    .await
}

#[derive(Deserialize)]
pub(crate) struct ItemsQuery {
    r#type: Option<String>,
    file: Option<String>,
    author: Option<String>,
}

pub(crate) async fn item_list(State(api): Shared, Query(q): Query<ItemsQuery>) -> Response {
    let kind = match q.r#type.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => match ItemKind::parse(t) {
            Some(kind) => Some(kind),
            None => return failure(StatusCode::BAD_REQUEST, "unknown type", "THEHOOK_USAGE"),
        },
    };
    let filter = items::ItemFilter {
        kind,
        file: q.file.filter(|f| !f.is_empty()),
        author: q.author.filter(|a| !a.is_empty()),
    };
    answer(api, Refresh::Stamped, move |m, _| {
        items::items(m, &filter).map(Some)
    })
    .await
}

pub(crate) async fn item(State(api): Shared, Path(id): Path<String>) -> Response {
    answer(api, Refresh::Stamped, move |m, _| items::item(m, &id)).await
}

#[derive(Deserialize)]
pub(crate) struct SearchQuery {
    q: String,
    mode: Option<String>,
    k: Option<i64>,
}

pub(crate) async fn search(State(api): Shared, Query(q): Query<SearchQuery>) -> Response {
    let mode = match q.mode.as_deref().map(Mode::parse) {
        None => Mode::Hybrid,
        Some(Some(mode)) => mode,
        Some(None) => return failure(StatusCode::BAD_REQUEST, "unknown mode", "THEHOOK_USAGE"),
    };
    answer(api, Refresh::Stamped, move |m, _| {
        let request = RecallOptions::checked(q.k, Vec::new(), None, mode)?.request(q.q)?;
        m.recall_answer(&request).map(Some)
    })
    .await
}

#[derive(Deserialize)]
pub(crate) struct MarkdownQuery {
    path: String,
    line: usize,
}

/// Lines shown on each side of a cited one.
const AROUND: usize = 4;

pub(crate) async fn markdown_lines(State(api): Shared, Query(q): Query<MarkdownQuery>) -> Response {
    answer(api, Refresh::Stamped, move |m, _| {
        markdown::around(m.project(), &q.path, q.line, AROUND).map(Some)
    })
    .await
}

pub(crate) async fn review_page(State(api): Shared) -> Response {
    answer(api, Refresh::EveryFile, |m, _| review::review(m).map(Some)).await
}

#[derive(Deserialize)]
pub(crate) struct Decision {
    id: String,
    text: Option<String>,
}

/// A review decision, through the same calls as `thehook review`.
pub(crate) async fn decide(
    State(api): Shared,
    Path(action): Path<String>,
    Json(d): Json<Decision>,
) -> Response {
    answer(api, Refresh::EveryFile, move |m, _| {
        let id = ItemRef::parse(&d.id)?;
        let item = match action.as_str() {
            "release" => return Ok(Some(json!({ "done": "released", "item": m.release(&id)? }))),
            "confirm" => ("confirmed", m.confirm(&id)?),
            "forget" => ("forgot", m.forget(&id)?),
            "rewrite" => (
                "rewrote",
                m.rewrite(&RewriteRequest::parse(
                    &d.id,
                    d.text.as_deref().unwrap_or_default(),
                )?)?,
            ),
            _ => return Ok(None),
        };
        Ok(Some(json!({ "done": item.0, "item": item.1 })))
    })
    .await
}

pub(crate) async fn cost_page(State(api): Shared) -> Response {
    answer(api, Refresh::Stamped, |m, _| cost::cost(m).map(Some)).await
}

pub(crate) async fn health_page(State(api): Shared) -> Response {
    answer(api, Refresh::EveryFile, |m, paths| {
        health::health(m, paths).map(Some)
    })
    .await
}

/// Starts `thehook capture --retry` on its own, as a person would: the
/// capture calls the LLM and may take minutes; the health view shows the
/// failed captures leave as it goes.
pub(crate) async fn retry(State(api): Shared) -> Response {
    match std::env::current_exe() {
        Ok(exe) => {
            thehook_core::process::spawn_detached(&exe, &api.root, &["capture", "--retry"]);
            Json(json!({ "started": true })).into_response()
        }
        Err(e) => failure(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot find thehook's own binary: {e}"),
            "THEHOOK_IO",
        ),
    }
}
