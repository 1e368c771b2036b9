//! The session-end hook's policy: which payloads become a capture job. The
//! front end reads stdin, calls [`session_end`], starts the worker when told
//! to, and exits 0 whatever happened.

use std::path::Path;

use crate::agents::{Agent, HookEvent, HookPayload};
use crate::capture::queue::{capture_enabled, enqueue, Job, JOB_VERSION};
use crate::logs;
use crate::project::Project;

/// The hooks' log in `.thehook/logs/`.
pub const HOOK_LOG: &str = "hooks.log";

/// What the session-end hook decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEnd {
    /// The project whose queue got the job.
    pub project: Option<std::path::PathBuf>,
    /// Start `capture --worker` in `project` now.
    pub start_worker: bool,
    /// The line written to the hook log.
    pub log: String,
}

/// Queues the session `stdin` describes. `declared` is the agent the hook
/// was written for; `cwd` is where the hook runs; `home` finds the user's
/// Cursor hooks. The decision is logged in the project's hook log.
pub fn session_end(
    stdin: &str,
    declared: Option<Agent>,
    cwd: &Path,
    home: Option<&Path>,
) -> SessionEnd {
    let ignored = |log: String| SessionEnd {
        project: None,
        start_worker: false,
        log,
    };
    let payload = match HookPayload::parse(stdin, declared) {
        Ok(p) => p,
        Err(why) => {
            let log = format!("capture ignored the payload: {why}");
            let project = Project::discover(cwd);
            if project.dir().is_dir() {
                logs::append(&project, HOOK_LOG, &log);
            }
            return ignored(log);
        }
    };
    let project = Project::discover(payload.cwd.as_deref().unwrap_or(cwd));
    if !project.dir().is_dir() {
        return ignored("capture: no .thehook/ here".into());
    }
    let mut start_worker = false;
    let echo = payload.echo(declared, HookEvent::SessionEnd, project.root(), home);
    let log = match (&payload.session_id, declared) {
        // A config that cannot be read does not lose the session: it is queued.
        _ if !capture_enabled(&project).unwrap_or(true) => {
            "capture: capture.enabled is off".to_string()
        }
        _ if echo.is_some() => format!("capture: {}", echo.unwrap_or_default()),
        (None, _) => "capture: the payload has no session_id".to_string(),
        (Some(id), _) => {
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
            let queued = enqueue(&project, &job);
            start_worker = queued.is_ok();
            match queued {
                Ok(true) => format!("capture: queued {} session {id}", payload.agent),
                Ok(false) => format!("capture: updated the queued job of session {id}"),
                Err(e) => format!("capture: could not queue session {id}: {e}"),
            }
        }
    };
    logs::append(&project, HOOK_LOG, &log);
    SessionEnd {
        project: Some(project.root().to_path_buf()),
        start_worker,
        log,
    }
}
