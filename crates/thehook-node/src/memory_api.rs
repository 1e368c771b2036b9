//! The memory functions: remember, forget, reindex, status.

use napi::bindgen_prelude::AsyncTask;
use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use thehook_core::given::kept::{Share, UseCounts};
use thehook_core::memory::Refresh;
use thehook_core::{Item, ItemRef, RememberRequest};

use crate::memories;
use crate::task::CoreTask;

/// Where to work.
#[napi(object)]
#[derive(Default)]
pub struct ProjectOptions {
    /// The project (default: `process.cwd()`; the nearest folder upwards with `.thehook/`).
    pub project_dir: Option<String>,
}

/// Options of `remember`.
#[napi(object)]
#[derive(Default)]
pub struct RememberOptions {
    pub project_dir: Option<String>,
    /// convention, adr, gotcha or note (default note).
    pub r#type: Option<String>,
}

/// A memory item.
#[napi(object)]
pub struct MemoryItem {
    /// Stable id (`forget` takes it, or a unique prefix of 4+ characters).
    pub id: String,
    /// summary, convention, adr, gotcha, history, note or text.
    pub r#type: String,
    pub text: String,
    /// `path:line`, relative to the project.
    pub citation: String,
    /// RFC 3339.
    pub date: String,
}

impl From<Item> for MemoryItem {
    fn from(item: Item) -> MemoryItem {
        MemoryItem {
            citation: item.citation(),
            id: item.id,
            r#type: item.kind.as_str().to_string(),
            text: item.text,
            date: item.date,
        }
    }
}

/// Appends a fact to `.thehook/knowledge/notes.md` and indexes it (secrets redacted).
#[napi(ts_return_type = "Promise<MemoryItem>")]
pub fn remember(text: String, options: Option<RememberOptions>) -> AsyncTask<CoreTask<MemoryItem>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let request = RememberRequest::parse(text, o.r#type.as_deref())?;
        Ok(
            memories::with(o.project_dir.as_deref(), true, Refresh::EveryFile, |m| {
                m.remember(&request)
            })?
            .into(),
        )
    }))
}

/// Removes an item from its markdown file and the index.
#[napi(ts_return_type = "Promise<MemoryItem>")]
pub fn forget(id: String, options: Option<ProjectOptions>) -> AsyncTask<CoreTask<MemoryItem>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let item = ItemRef::parse(&id)?;
        Ok(
            memories::with(o.project_dir.as_deref(), false, Refresh::EveryFile, |m| {
                m.forget(&item)
            })?
            .into(),
        )
    }))
}

/// What `reindex` did.
#[napi(object)]
pub struct ReindexResult {
    pub files_changed: u32,
    pub items_added: u32,
    pub items_removed: u32,
    pub items_embedded: u32,
    /// Items whose vector came from the embedding cache, not the model.
    pub items_cached: u32,
    /// How long the rebuild took.
    pub seconds: f64,
    /// The embedding model, or `none, lexical-only (<why>)`.
    pub embeddings: String,
    /// Findings about the markdown (bad front matter, non-UTF-8 bytes...).
    pub warnings: Vec<String>,
}

type Progress = ThreadsafeFunction<FnArgs<(u32, u32)>, (), FnArgs<(u32, u32)>, Status, false>;

/// Rebuilds the index from the markdown, embedding in parallel.
/// `onProgress(done, total)` is called as items are embedded.
#[napi(
    ts_args_type = "options?: ProjectOptions, onProgress?: (done: number, total: number) => void",
    ts_return_type = "Promise<ReindexResult>"
)]
pub fn reindex(
    options: Option<ProjectOptions>,
    on_progress: Option<Progress>,
) -> AsyncTask<CoreTask<ReindexResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let report = |done: usize, total: usize| {
            if let Some(callback) = &on_progress {
                callback.call(
                    (done as u32, total as u32).into(),
                    ThreadsafeFunctionCallMode::NonBlocking,
                );
            }
        };
        let done = memories::with(o.project_dir.as_deref(), false, Refresh::EveryFile, |m| {
            m.reindex_reported(&report)
        })?;
        // The core's report, field for field (`reindex --json` prints it).
        Ok(ReindexResult {
            files_changed: done.files as u32,
            items_added: done.items as u32,
            items_removed: done.removed as u32,
            items_embedded: done.embedded as u32,
            items_cached: done.cached as u32,
            seconds: done.seconds,
            embeddings: done.embeddings,
            warnings: done.warnings,
        })
    }))
}

/// What `status` reports.
#[napi(object)]
pub struct StatusResult {
    /// The project's root.
    pub project: String,
    pub sessions: u32,
    pub items: u32,
    pub vectors: u32,
    /// Items that cite a path or symbol gone from the checkout, or that a
    /// later decision superseded: never injected (`thehook review` lists them).
    pub stale_items: u32,
    /// Items and session titles a safety rule withholds from agents
    /// (`thehook review` lists them).
    pub withheld_items: u32,
    /// Whether the learned check judges memory beside the rules (not when
    /// thehook runs lexical-only), and the checks in a sentence.
    pub learned_check: bool,
    pub safety_check: String,
    pub failed_captures: u32,
    pub queued_captures: u32,
    /// The embedding model in use, or null when thehook runs lexical-only.
    pub model: Option<String>,
    /// Why there is no model, and the fix.
    pub model_missing: Option<String>,
    /// Agent settings files that run thehook.
    pub hooks: Vec<String>,
    /// What thehook's LLM calls cost today (local time).
    pub llm_today: LlmSpend,
    /// ... and over the last 30 days.
    pub llm_last30_days: LlmSpend,
    /// What of `llm.daily_budget` is spent ("50 of 50 calls"), when no more
    /// LLM calls are made today; null otherwise.
    pub llm_budget_spent: Option<String>,
    /// Lines the hooks gave sessions captured in the last 30 days, and how
    /// many those sessions used.
    pub given_last30_days: GivenCounts,
}

/// Lines given, and how many of them were used, in all and per hook.
#[napi(object)]
pub struct GivenCounts {
    pub given: u32,
    pub used: u32,
    pub start: GivenShare,
    pub prompt: GivenShare,
    pub file: GivenShare,
}

/// Lines one hook gave, and how many were used.
#[napi(object)]
pub struct GivenShare {
    pub given: u32,
    pub used: u32,
}

impl From<Share> for GivenShare {
    fn from(s: Share) -> GivenShare {
        GivenShare {
            given: s.given as u32,
            used: s.used as u32,
        }
    }
}

impl From<UseCounts> for GivenCounts {
    fn from(c: UseCounts) -> GivenCounts {
        GivenCounts {
            given: c.given as u32,
            used: c.used as u32,
            start: c.start.into(),
            prompt: c.prompt.into(),
            file: c.file.into(),
        }
    }
}

/// What some LLM calls cost, as the CLIs reported it (or estimated).
#[napi(object)]
pub struct LlmSpend {
    pub calls: u32,
    pub input_tokens: f64,
    pub output_tokens: f64,
    pub cost_usd: f64,
    /// Calls whose tokens are estimated from bytes.
    pub estimated_calls: u32,
}

impl From<&thehook_core::capture::bill::Spend> for LlmSpend {
    fn from(s: &thehook_core::capture::bill::Spend) -> LlmSpend {
        LlmSpend {
            calls: s.calls as u32,
            input_tokens: s.input_tokens as f64,
            output_tokens: s.output_tokens as f64,
            cost_usd: s.cost_usd,
            estimated_calls: s.estimated_calls as u32,
        }
    }
}

/// Sessions, items, failed captures, the queue, the model, the hooks wired.
#[napi(ts_return_type = "Promise<StatusResult>")]
pub fn status(options: Option<ProjectOptions>) -> AsyncTask<CoreTask<StatusResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let s = memories::with(o.project_dir.as_deref(), false, Refresh::EveryFile, |m| {
            thehook_core::status::Status::of(m)
        })?;
        Ok(StatusResult {
            model: s.model().map(str::to_string),
            model_missing: s.model_missing(),
            project: s.project,
            sessions: s.sessions as u32,
            items: s.index.items as u32,
            vectors: s.index.vectors as u32,
            stale_items: s.stale_items as u32,
            withheld_items: s.withheld_items as u32,
            learned_check: s.safety_check.learned,
            safety_check: s.safety_check.summary,
            failed_captures: s.failed_captures as u32,
            queued_captures: s.queued_captures as u32,
            llm_today: (&s.llm.today).into(),
            llm_last30_days: (&s.llm.last_30_days).into(),
            llm_budget_spent: s.llm.budget_spent,
            given_last30_days: s.given_last_30_days.into(),
            hooks: s.hooks,
        })
    }))
}
