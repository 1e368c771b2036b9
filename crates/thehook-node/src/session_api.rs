//! The session functions: retrieve (session start), capture, consolidate,
//! and init.

use std::path::Path;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::agents::{Agent, HookEvent};
use thehook_core::capture::{with_worker, OutcomeReport};
use thehook_core::front_door::parse_agent;
use thehook_core::hook::{self, HookCall};
use thehook_core::setup::plan::{InitPlan, InitRequest};
use thehook_core::Project;

use crate::memories::{native_binary, search_paths, start_dir};
use crate::task::{CoreTask, Failure};

fn agent(name: Option<&str>) -> Result<Option<Agent>, Failure> {
    Ok(name.map(parse_agent).transpose()?)
}

/// Options of `retrieve`.
#[napi(object)]
#[derive(Default)]
pub struct RetrieveOptions {
    /// Where the session runs when the payload has no `cwd` (default: `process.cwd()`).
    pub project_dir: Option<String>,
    /// The agent the payload comes from: claude, cursor, codex, gemini, copilot or opencode (its shape can overrule it).
    pub agent: Option<String>,
}

/// What the session-start hook answers.
#[napi(object)]
pub struct RetrieveResult {
    /// The JSON for the agent (memory to inject); absent when there is nothing to say.
    pub output: Option<String>,
    /// One line on what was decided (the hook log's).
    pub log: String,
}

/// The session-start hook in-process: `payload` is the agent's stdin JSON.
/// Like the `thehook retrieve` command, it logs in the hook log and starts
/// the background half (the package's native binary) that warms the caches.
#[napi(ts_return_type = "Promise<RetrieveResult>")]
pub fn retrieve(
    payload: String,
    options: Option<RetrieveOptions>,
) -> AsyncTask<CoreTask<RetrieveResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let cwd = start_dir(o.project_dir.as_deref())?;
        let answer = hook::answer(&HookCall {
            event: HookEvent::SessionStart,
            declared: agent(o.agent.as_deref())?,
            payload: payload.as_bytes(),
            cwd: &cwd,
            home: thehook_core::env::home().as_deref(),
            paths: &search_paths(),
        });
        if let (Some(detached), Some(exe)) = (&answer.detached, native_binary()) {
            detached.start(&exe);
        }
        Ok(RetrieveResult {
            output: answer.stdout,
            log: answer.log,
        })
    }))
}

/// Options of `capture`.
#[napi(object)]
#[derive(Default)]
pub struct CaptureOptions {
    pub project_dir: Option<String>,
    /// Capture this transcript file; without it, capture again the failed sessions (`--retry`).
    pub transcript: Option<String>,
}

/// What became of one session.
#[napi(object)]
pub struct CaptureOutcome {
    pub session_id: String,
    /// captured, heuristic (written without the LLM; kept in failed/), failed or skipped.
    pub status: String,
    /// The session file written, relative to the project.
    pub file: Option<String>,
    /// Why it was not distilled by the LLM, or skipped.
    pub reason: Option<String>,
}

impl From<OutcomeReport> for CaptureOutcome {
    fn from(o: OutcomeReport) -> CaptureOutcome {
        CaptureOutcome {
            session_id: o.session_id,
            status: o.status.into(),
            file: o.file,
            reason: o.reason,
        }
    }
}

/// Captures a transcript by hand, or the failed sessions again, through the LLM CLI.
#[napi(ts_return_type = "Promise<Array<CaptureOutcome>>")]
pub fn capture(options: Option<CaptureOptions>) -> AsyncTask<CoreTask<Vec<CaptureOutcome>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let project = Project::discover(&start_dir(o.project_dir.as_deref())?);
        let outcomes = with_worker(
            &project,
            &search_paths(),
            || {},
            |w| match &o.transcript {
                Some(path) => w.capture_file(Path::new(path)).map(|o| vec![o]),
                None => Ok(w.retry()),
            },
        )?;
        Ok(outcomes.iter().map(|o| o.report().into()).collect())
    }))
}

/// What `consolidate` merged.
#[napi(object)]
pub struct ConsolidateResult {
    /// Sessions merged.
    pub sessions: u32,
    /// Items in conventions.md, architecture.md and history.md before and after.
    pub items_before: u32,
    pub items_after: u32,
    /// Why the index could not follow the files just written (a full disk):
    /// consolidation took effect, and the next sync indexes it.
    pub not_indexed: Option<String>,
}

/// Merges the sessions not yet consolidated into knowledge/ through the LLM
/// CLI; `null` when none waited (as the CLI's `"consolidated": null`).
#[napi(ts_return_type = "Promise<ConsolidateResult | null>")]
pub fn consolidate(
    options: Option<crate::memory_api::ProjectOptions>,
) -> AsyncTask<CoreTask<Option<ConsolidateResult>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let project = Project::discover(&start_dir(o.project_dir.as_deref())?);
        let done = with_worker(
            &project,
            &search_paths(),
            || {},
            thehook_core::capture::consolidate::consolidate,
        )?;
        Ok(done.map(|c| ConsolidateResult {
            sessions: c.sessions as u32,
            items_before: c.items_before as u32,
            items_after: c.items_after as u32,
            not_indexed: c.not_indexed,
        }))
    }))
}

/// Options of `init`.
#[napi(object)]
#[derive(Default)]
pub struct InitOptions {
    pub project_dir: Option<String>,
    /// Agents to wire: claude, cursor, codex, gemini, copilot or opencode (default: those found, else Claude Code).
    pub agents: Option<Vec<String>>,
    /// Also register the MCP server (`thehook mcp`).
    pub mcp: Option<bool>,
    /// The thehook program hooks run (default: the native binary of this package).
    pub bin: Option<String>,
}

/// One file init touched.
#[napi(object)]
pub struct InitChange {
    pub path: String,
    /// created, updated, unchanged, removed or kept.
    pub action: String,
    pub detail: String,
}

/// Sets up `.thehook/` and wires the agents' hooks, exactly as `thehook init` does.
#[napi(ts_return_type = "Promise<Array<InitChange>>")]
pub fn init(options: Option<InitOptions>) -> AsyncTask<CoreTask<Vec<InitChange>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let agents = o
            .agents
            .unwrap_or_default()
            .iter()
            .map(|a| parse_agent(a))
            .collect::<thehook_core::Result<Vec<_>>>()?;
        let request = InitRequest {
            start: start_dir(o.project_dir.as_deref())?,
            agents,
            global: false,
            bin: o.bin.map(Into::into),
            mcp: o.mcp == Some(true),
            // Hooks run the native binary of this package (`node` is this
            // process's executable, never what a hook should run).
            npm_bin: native_binary(),
            current_exe: None,
        };
        let done = InitPlan::init(&request)?.run_init()?;
        Ok(done
            .changes
            .into_iter()
            .map(|c| InitChange {
                path: c.path.to_string_lossy().into_owned(),
                action: c.action.as_str().to_string(),
                detail: c.detail,
            })
            .collect())
    }))
}
