//! thehook for Node: a thin napi-rs layer over `thehook-core`. Every
//! function but `cli` returns a Promise whose work runs on libuv's thread
//! pool; errors are JS `Error`s with the core's stable `code`.
//!
//! # What the addon never does
//!
//! - It shapes no answer of its own: each function maps its JS options onto
//!   the core's front door and the core's values onto JS objects.
//! - It never blocks Node's event loop with the core's work (`task.rs`),
//!   and never lets a Rust panic cross into JS.

mod given_api;
mod memories;
mod memory_api;
mod review_api;
mod session_api;
mod task;

pub use given_api::*;
pub use memory_api::*;
pub use review_api::*;
pub use session_api::*;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::memory::rank::fusion::Hit;
use thehook_core::memory::Refresh;
use thehook_core::RecallOptions;

use task::CoreTask;

/// Runs the `thehook` command line (the npm `bin` shim's body): `argv`
/// without the program name; returns the exit code. The command runs in
/// the native `thehook` this package ships beside the addon, as a child
/// with this process's stdin, stdout and stderr: this package depends on
/// the core only, and the binary is the one the hooks run.
#[napi(catch_unwind)]
pub fn cli(argv: Vec<String>) -> i32 {
    let Some(native) = memories::native_binary() else {
        eprintln!(
            "thehook: the native thehook is missing beside the addon\n  fix: reinstall the package (npm install thehook), or set {} to a thehook binary",
            thehook_core::env::NPM_BIN
        );
        return 2;
    };
    let status = std::process::Command::new(&native)
        .args(argv)
        .stdin(inherited(std::io::stdin()))
        .stdout(inherited(std::io::stdout()))
        .stderr(inherited(std::io::stderr()))
        // init writes hooks that run this binary, not `node`.
        .env(thehook_core::env::NPM_BIN, &native)
        .status();
    match status {
        Ok(s) => s.code().unwrap_or(2),
        Err(e) => {
            eprintln!(
                "thehook: cannot run {}: {e}\n  fix: reinstall the package",
                native.display()
            );
            2
        }
    }
}

/// One of this process's standard streams for the child. Inherited plainly
/// from Node, they were closed in the child (measured: `cli(['--version'])`
/// printed nothing, and strace showed the child's first `open` get fd 0),
/// as close-on-exec descriptors are. A duplicate handed over explicitly is
/// installed as the child's 0, 1 or 2 without that flag.
#[cfg(unix)]
fn inherited(stream: impl std::os::fd::AsFd) -> std::process::Stdio {
    stream
        .as_fd()
        .try_clone_to_owned()
        .map(std::process::Stdio::from)
        .unwrap_or_else(|_| std::process::Stdio::inherit())
}

/// On Windows a handle is inherited only when the child is started with
/// handle inheritance, which std turns on for the handles it is given, so
/// a duplicate is handed over as on Unix.
#[cfg(windows)]
fn inherited(stream: impl std::os::windows::io::AsHandle) -> std::process::Stdio {
    stream
        .as_handle()
        .try_clone_to_owned()
        .map(std::process::Stdio::from)
        .unwrap_or_else(|_| std::process::Stdio::inherit())
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
    /// How many results (default 5, at most 100).
    pub k: Option<u32>,
    /// Only items of these types: summary, convention, adr, gotcha, history, note or text.
    pub types: Option<Vec<String>>,
    /// Only items dated on or after DATE: 2026-02-01, an RFC 3339 time, or 7d / 2w ago.
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
    /// The markdown file, relative to the project, and the item's lines in it.
    pub path: String,
    pub line_start: u32,
    pub line_end: u32,
    /// `path:line`, relative to the project.
    pub citation: String,
    /// RFC 3339.
    pub date: String,
    /// The session the item came from, when it came from one.
    pub session_id: Option<String>,
    /// Fused score in [0, 1], times what agents' use of the line says (1
    /// for a line never given); only the order is meaningful.
    pub score: f64,
    /// Citations of near-duplicates folded into this hit.
    pub duplicates: Vec<String>,
    /// In how many captured sessions the line was given; absent when never.
    pub times_given: Option<u32>,
    /// In how many of those the agent used it.
    pub times_used: Option<u32>,
    /// Why the item may no longer be true (a path or symbol gone from the
    /// checkout, a superseded decision); absent when it is not stale.
    pub stale: Option<String>,
    /// The safety rule that withholds the item from agents and why
    /// (`rule: what it catches`, then the learned check's score and the
    /// known attack nearest, when it read the item); absent when agents may
    /// be given it.
    pub withheld: Option<String>,
    /// Captured from what only a source outside the project said (a fetched
    /// page, a search, an MCP server, a file outside the project): the
    /// tool and what it read. Absent for the project's own lines.
    pub outside: Option<String>,
}

/// The core's hit, every field of it (the CLI's `recall --json` prints the same).
impl From<Hit> for RecallHit {
    fn from(h: Hit) -> RecallHit {
        RecallHit {
            id: h.item.id,
            r#type: h.item.kind.as_str().to_string(),
            text: h.item.text,
            path: h.item.path,
            line_start: h.item.line_start as u32,
            line_end: h.item.line_end as u32,
            citation: h.citation,
            date: h.item.date,
            session_id: h.item.session_id,
            score: h.score as f64,
            duplicates: h.duplicates,
            times_given: h.used.map(|u| u.given),
            times_used: h.used.map(|u| u.used),
            stale: h.stale,
            withheld: h.item.withheld.map(|w| w.describe()),
            outside: h.item.outside,
        }
    }
}

/// What `recall` resolves to (the core's `RecallAnswer`).
#[napi(object)]
pub struct RecallAnswer {
    pub hits: Vec<RecallHit>,
    /// The mode the search ran in: `lexical` when the embedding model cannot
    /// be used, whatever was asked.
    pub mode: String,
    /// What went wrong but was worked around (the model unusable, so keywords
    /// only; the index rebuilt; a config key ignored): show them.
    pub notices: Vec<String>,
}

/// Searches the project's memory (BM25 and vectors fused). The index and the
/// model stay open between calls.
#[napi(ts_return_type = "Promise<RecallAnswer>")]
pub fn recall(
    query: String,
    options: Option<RecallOptionsJs>,
) -> AsyncTask<CoreTask<RecallAnswer>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let request = RecallOptions::parse(
            o.k.map(i64::from),
            &o.types.unwrap_or_default(),
            o.since.as_deref(),
            o.mode.as_deref(),
        )?
        .request(query)?;
        let answer = memories::with(o.project_dir.as_deref(), false, Refresh::Stamped, |m| {
            m.recall_answer(&request)
        })?;
        Ok(RecallAnswer {
            hits: answer.hits.into_iter().map(RecallHit::from).collect(),
            mode: answer.mode.as_str().to_string(),
            notices: answer.notices,
        })
    }))
}

/// For the tests of this package: a Promise whose work panics, to show that
/// a panic in Rust rejects (code `THEHOOK_PANIC`) instead of killing Node.
/// Only in the addon built with the `test-hooks` feature (scripts/test.sh),
/// never in the published one.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
#[napi(js_name = "__panicForTests", ts_return_type = "Promise<void>")]
pub fn panic_for_tests() -> AsyncTask<CoreTask<()>> {
    AsyncTask::new(CoreTask::new(|| panic!("a test asked for this panic")))
}
