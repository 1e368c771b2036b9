//! The capture queue: `.thehook/queue/<session id>.json`, one job per
//! session, written atomically by the session-end hook and by the
//! session-start sweep, drained by the capture worker. A job for a session
//! that is already queued replaces it, so a session is never queued twice.

use std::collections::HashSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::error::{Error, IoContext, Result};
use crate::project::Project;
use crate::store::write_atomic;

/// The job format's version, for the worker to refuse what it does not know.
pub(crate) const JOB_VERSION: u32 = 1;

/// One session waiting to be captured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    pub version: u32,
    pub session_id: String,
    pub agent: Agent,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    /// `hook` (session end) or `sweep` (found at a later session start).
    pub origin: String,
    /// RFC 3339.
    pub queued_at: String,
    /// Why the session ended, when the agent said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Whether this project captures sessions at all (`capture.enabled`, or
/// `THEHOOK_CAPTURE_ENABLED`). Nothing is queued when it does not.
pub(crate) fn capture_enabled(project: &Project) -> Result<bool> {
    Ok(crate::config::Config::load(&project.config_path())?
        .config
        .capture
        .enabled)
}

pub(crate) use crate::project::file_stem;

/// Writes `job` to the queue. Returns false when it replaced a job for the
/// same session.
pub(crate) fn enqueue(project: &Project, job: &Job) -> Result<bool> {
    let dir = project.queue_dir();
    std::fs::create_dir_all(&dir).at("cannot create folder", &dir)?;
    let path = dir.join(format!("{}.json", file_stem(&job.session_id)));
    let new = !path.exists();
    // Paths that are not UTF-8 cannot be JSON strings.
    let json = serde_json::to_vec_pretty(job).map_err(|e| Error::Layout {
        path: path.clone(),
        problem: format!("the job cannot be written as JSON ({e})"),
        source: crate::error::cause(e),
        fix: "use a project and transcript path that are valid UTF-8".into(),
    })?;
    write_atomic(&path, &json)?;
    Ok(new)
}

/// The file that lists sessions the worker found nothing to capture in.
fn skipped_path(project: &Project) -> PathBuf {
    project.queue_dir().join(".skipped")
}

/// Records that `session_id` held no conversation, so the sweep does not
/// queue it again at every session start.
pub(crate) fn mark_skipped(project: &Project, session_id: &str) {
    let line = format!("{}\n", file_stem(session_id));
    let _ = crate::append::append_whole(&skipped_path(project), line.as_bytes());
}

/// Session ids (as file stems) with a job in the queue, a failed capture,
/// or nothing to capture.
pub(crate) fn pending_or_failed(project: &Project) -> HashSet<String> {
    let mut ids: HashSet<String> = std::fs::read_to_string(skipped_path(project))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    // A job or a reason makes a session pending or failed; a transcript
    // copy or retry plan left behind alone does not.
    for dir in [project.queue_dir(), project.failed_dir()] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let counts = path
                .extension()
                .is_some_and(|x| x == "json" || x == "reason");
            if let Some(stem) = path.file_stem().filter(|_| counts) {
                ids.insert(stem.to_string_lossy().into_owned());
            }
        }
    }
    ids
}

/// Counts for the line retrieve adds: (failed captures, queued sessions).
pub(crate) fn counts(project: &Project) -> (usize, usize) {
    let count = |dir: PathBuf, ext: &str| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .count()
    };
    (
        count(project.failed_dir(), "reason"),
        count(project.queue_dir(), "json"),
    )
}
