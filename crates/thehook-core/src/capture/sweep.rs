//! Finding sessions that ended without being captured. SessionEnd does not
//! always fire (crashes, closed terminals), and Codex has none, so each
//! session start looks through the agents' transcript stores for this
//! project's transcripts that are neither captured, queued nor failed, and
//! queues them for the capture worker.
//!
//! Only transcripts changed since thehook was set up in the project are
//! considered (capturing years of old sessions would be a surprise LLM
//! bill), and only once they have been quiet for [`QUIET`] (a transcript
//! still being written belongs to a live session).

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::agents::{project_transcripts, StoredTranscript};
use crate::capture::queue::{enqueue, file_stem, pending_or_failed, Job, JOB_VERSION};
use crate::error::Result;
use crate::project::Project;

/// How long a transcript must be unchanged before its session counts as over.
pub(crate) const QUIET: Duration = Duration::from_secs(30 * 60);

/// Queues this project's uncaptured transcripts; returns what it queued.
/// `current` is the session that is starting now (never queued).
pub(crate) fn sweep(
    project: &Project,
    home: &Path,
    current: Option<&str>,
    now: SystemTime,
) -> Result<Vec<StoredTranscript>> {
    if !crate::capture::queue::capture_enabled(project)? {
        return Ok(Vec::new());
    }
    let since = setup_time(project);
    let captured = captured_sessions(project);
    let pending = pending_or_failed(project);
    let mut queued = Vec::new();
    for found in find_transcripts(project.root(), home, since, now) {
        let stem = file_stem(&found.session_id);
        if Some(found.session_id.as_str()) == current
            || captured.contains(&found.session_id)
            || pending.contains(&stem)
        {
            continue;
        }
        let job = Job {
            version: JOB_VERSION,
            session_id: found.session_id.clone(),
            agent: found.agent,
            transcript_path: Some(found.path.clone()),
            cwd: found.cwd.clone(),
            origin: "sweep".into(),
            queued_at: jiff::Timestamp::now().to_string(),
            reason: None,
        };
        enqueue(project, &job)?;
        queued.push(found);
    }
    Ok(queued)
}

/// When thehook was set up on this machine: recorded at the first sweep in
/// `.thehook/queue/.sweep-since` (machine-local, ignored by git) from the
/// config file's time (init writes it; a clone gets the clone's time, so
/// another machine's old sessions stay out). Recorded once, so editing the
/// config later does not hide sessions from before the edit.
fn setup_time(project: &Project) -> SystemTime {
    let state = project.queue_dir().join(".sweep-since");
    let recorded = std::fs::read_to_string(&state)
        .ok()
        .and_then(|t| t.trim().parse::<jiff::Timestamp>().ok());
    if let Some(t) = recorded {
        return SystemTime::from(t);
    }
    let since = std::fs::metadata(project.config_path())
        .or_else(|_| std::fs::metadata(project.dir()))
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::now());
    if let Ok(t) = jiff::Timestamp::try_from(since) {
        let _ = std::fs::create_dir_all(project.queue_dir());
        let _ = crate::store::write_atomic(&state, t.to_string().as_bytes());
    }
    since
}

/// Session ids named in the front matter of session files.
fn captured_sessions(project: &Project) -> HashSet<String> {
    crate::store::session_files(project)
        .into_iter()
        .filter_map(|f| f.front_matter.session_id)
        .collect()
}

/// Every transcript of this project, in any agent's store, changed between
/// `since` and `now - QUIET`.
pub(crate) fn find_transcripts(
    root: &Path,
    home: &Path,
    since: SystemTime,
    now: SystemTime,
) -> Vec<StoredTranscript> {
    let in_window = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since && now.duration_since(t).is_ok_and(|age| age >= QUIET))
    };
    project_transcripts(root, home, &in_window)
}
