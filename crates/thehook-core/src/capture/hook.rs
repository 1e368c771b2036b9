//! The session-end hook's policy: which payloads become a capture job. The
//! hook protocol (`crate::hook`) reads the payload, finds the project, calls
//! [`session_end`], logs, and starts the worker when told to.

use crate::agents::HookPayload;
use crate::capture::queue::{capture_enabled, enqueue, Job, JOB_VERSION};
use crate::project::Project;

/// The hooks' log in `.thehook/logs/`.
pub const HOOK_LOG: &str = "hooks.log";

/// What the session-end hook decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEnd {
    /// Start `capture --worker` in the project now.
    pub start_worker: bool,
    /// The line written to the hook log.
    pub log: String,
}

/// Queues the session `payload` describes in `project`, which has memory.
pub fn session_end(payload: &HookPayload, project: &Project) -> SessionEnd {
    let mut start_worker = false;
    let log = match &payload.session_id {
        // A config that cannot be read does not lose the session: it is queued.
        _ if !capture_enabled(project).unwrap_or(true) => "capture.enabled is off".to_string(),
        None => "the payload has no session_id".to_string(),
        Some(id) => {
            let job = Job {
                version: JOB_VERSION,
                session_id: id.clone(),
                agent: payload.agent,
                transcript_path: payload.transcript_path.clone(),
                cwd: payload.cwd.clone(),
                origin: "hook".into(),
                queued_at: jiff::Timestamp::now().to_string(),
                reason: payload.reason.clone(),
            };
            let queued = enqueue(project, &job);
            start_worker = queued.is_ok();
            match queued {
                Ok(true) => format!("queued {} session {id}", payload.agent),
                Ok(false) => format!("updated the queued job of session {id}"),
                Err(e) => format!("could not queue session {id}: {e}"),
            }
        }
    };
    SessionEnd { start_worker, log }
}
