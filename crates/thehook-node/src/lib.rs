//! thehook for Node: a thin napi-rs layer over `thehook-core`. Every
//! function but `cli` returns a Promise whose work runs on libuv's thread
//! pool; errors are JS `Error`s with the core's stable `code`.

mod memories;
mod memory_api;
mod session_api;
mod task;

pub use memory_api::*;
pub use session_api::*;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::memory::index::Filter;
use thehook_core::memory::search::Mode;
use thehook_core::{ItemKind, RecallOptions};

use task::{CoreTask, Failure};

/// Runs the `thehook` command line in-process (the npm `bin` shim's body):
/// `argv` without the program name; returns the exit code.
#[napi(catch_unwind)]
pub fn cli(argv: Vec<String>) -> i32 {
    set_npm_bin();
    let mut out = thehook_cli::Output::process();
    let args = std::iter::once("thehook".to_string()).chain(argv);
    thehook_cli::run(args, &mut out)
}

/// Hooks that `init` writes should run the native binary shipped beside this
/// addon, not `node` (this process's executable) or npx; the CLI also looks
/// for ONNX Runtime in that folder.
pub(crate) fn set_npm_bin() {
    if std::env::var_os("THEHOOK_NPM_BIN").is_none() {
        if let Some(native) = memories::addon_dir().map(|d| d.join("thehook")) {
            std::env::set_var("THEHOOK_NPM_BIN", native);
        }
    }
}

/// The version of the addon (the crate's).
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Options of `recall`.
#[napi(object)]
#[derive(Default)]
pub struct RecallOptionsJs {
    /// The project (default: `process.cwd()`).
    pub project_dir: Option<String>,
    /// How many results (default 5).
    pub k: Option<u32>,
    /// Only items of these types: summary, convention, adr, gotcha, history, note, text.
    pub types: Option<Vec<String>>,
    /// Only items dated on or after this RFC 3339 time or date.
    pub since: Option<String>,
    /// Retrievers: hybrid (default), lexical or vector.
    pub mode: Option<String>,
}

/// One result of `recall`.
#[napi(object)]
pub struct RecallHit {
    /// The item's id (`forget` takes it, or a unique prefix).
    pub id: String,
    /// summary, convention, adr, gotcha, history, note or text.
    pub r#type: String,
    pub text: String,
    /// `path:line`, relative to the project.
    pub citation: String,
    /// RFC 3339.
    pub date: String,
    /// Fused score in [0, 1]; only the order is meaningful.
    pub score: f64,
}

/// Searches the project's memory (BM25 and vectors fused). The index and the
/// model stay open between calls.
#[napi(ts_return_type = "Promise<Array<RecallHit>>")]
pub fn recall(
    query: String,
    options: Option<RecallOptionsJs>,
) -> AsyncTask<CoreTask<Vec<RecallHit>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let kinds = o
            .types
            .unwrap_or_default()
            .iter()
            .map(|t| {
                ItemKind::parse(t).ok_or_else(|| Failure::usage(format!("unknown type {t:?}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let since = o
            .since
            .map(|s| {
                thehook_core::memory::store::parse_date(&s)
                    .and_then(|d| d.parse().ok())
                    .ok_or_else(|| Failure::usage(format!("since {s:?} is not a date")))
            })
            .transpose()?;
        let options = RecallOptions {
            k: o.k.unwrap_or(5).clamp(1, 100) as usize,
            filter: Filter { kinds, since },
            mode: match o.mode.as_deref() {
                None => Mode::Hybrid,
                Some(m) => Mode::parse(m).ok_or_else(|| {
                    Failure::usage(format!(
                        "mode {m:?} is unknown: use hybrid, lexical or vector"
                    ))
                })?,
            },
            ..RecallOptions::default()
        };
        let hits = memories::with(o.project_dir.as_deref(), false, |m| {
            m.recall(&query, &options)
        })?;
        Ok(hits
            .into_iter()
            .map(|h| RecallHit {
                id: h.item.id,
                r#type: h.item.kind.as_str().to_string(),
                text: h.item.text,
                citation: h.citation,
                date: h.item.date,
                score: h.score as f64,
            })
            .collect())
    }))
}

/// For the tests of this package: a Promise whose work panics, to show that
/// a panic in Rust rejects (code `THEHOOK_PANIC`) instead of killing Node.
#[doc(hidden)]
#[napi(js_name = "__panicForTests", ts_return_type = "Promise<void>")]
pub fn panic_for_tests() -> AsyncTask<CoreTask<()>> {
    AsyncTask::new(CoreTask::new(|| panic!("a test asked for this panic")))
}
