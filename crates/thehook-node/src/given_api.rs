//! What the hooks gave a captured session and what it used: `given()`, and
//! the share used in `status()`.

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::given::kept;
use thehook_core::given::used::{GivenLine, UsedBlock};
use thehook_core::given::Hook;
use thehook_core::Project;

use crate::memories;
use crate::memory_api::{GivenCounts, ProjectOptions};
use crate::task::CoreTask;

/// What one hook gave a session.
#[napi(object)]
pub struct GivenBlock {
    /// start, prompt, file, subagent or unknown (a record older than the
    /// hook's name).
    pub hook: String,
    /// For the file hook: the file touched.
    pub path: Option<String>,
    /// For the subagent hook: the subagent's type.
    pub agent_type: Option<String>,
    /// When (RFC 3339), when known.
    pub at: Option<String>,
    pub lines: Vec<GivenLineResult>,
}

/// One line given, and the tool call that used it.
#[napi(object)]
pub struct GivenLineResult {
    /// `path:line` of the line given.
    pub cited: String,
    /// read, edited, ran, opened or fetched; null when it was not used.
    pub used: Option<String>,
    /// The tool that used it, and what that call was about.
    pub tool: Option<String>,
    pub target: Option<String>,
}

/// What a captured session was given and used.
#[napi(object)]
pub struct SessionGiven {
    pub session_id: String,
    pub captured_at: String,
    pub blocks: Vec<GivenBlock>,
    pub counts: GivenCounts,
}

fn line(l: GivenLine) -> GivenLineResult {
    let used = l.used.map(|e| {
        let how = serde_json::to_value(e.how).expect("a name");
        (
            how.as_str().unwrap_or_default().to_string(),
            e.tool,
            e.target,
        )
    });
    GivenLineResult {
        cited: l.cited,
        used: used.as_ref().map(|u| u.0.clone()),
        tool: used.as_ref().map(|u| u.1.clone()),
        target: used.map(|u| u.2),
    }
}

fn block(b: UsedBlock) -> GivenBlock {
    let (hook, path, agent_type) = match b.hook {
        Hook::Start => ("start", None, None),
        Hook::Prompt => ("prompt", None, None),
        Hook::File { path } => ("file", Some(path), None),
        Hook::Subagent { agent_type } => ("subagent", None, Some(agent_type)),
        Hook::Unknown => ("unknown", None, None),
    };
    GivenBlock {
        hook: hook.into(),
        path,
        agent_type,
        at: b.at,
        lines: b.lines.into_iter().map(line).collect(),
    }
}

/// What the hooks gave the captured session `sessionId` and which lines it
/// used; null for a session not captured, or given nothing.
#[napi(ts_return_type = "Promise<SessionGiven | null>")]
pub fn given(
    session_id: String,
    options: Option<ProjectOptions>,
) -> AsyncTask<CoreTask<Option<SessionGiven>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let project = Project::discover(&memories::start_dir(o.project_dir.as_deref())?);
        Ok(kept::load(&project, &session_id).map(|u| {
            let counts = u.counts().into();
            SessionGiven {
                session_id: u.session_id,
                captured_at: u.captured_at,
                blocks: u.blocks.into_iter().map(block).collect(),
                counts,
            }
        }))
    }))
}
