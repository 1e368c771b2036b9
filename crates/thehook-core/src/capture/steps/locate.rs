//! Step 1: the job's transcript. For a session that just ended, waits (up
//! to [`SETTLE`]) while its agent is still writing it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::Stop;
use crate::capture::queue::Job;
use crate::project::Project;

/// The longest the worker waits for an agent to finish writing the
/// transcript of a session that just ended.
const SETTLE: Duration = Duration::from_secs(30);

/// The transcript of `job` (whose session id is `stem` as a file name);
/// `home` holds the agents' stores.
pub(crate) fn transcript(
    job: &Job,
    stem: &str,
    project: &Project,
    home: Option<&Path>,
) -> Result<PathBuf, Stop> {
    let ended = job
        .queued_at
        .parse::<jiff::Timestamp>()
        .map(SystemTime::from)
        .unwrap_or_else(|_| SystemTime::now());
    let deadline = Instant::now() + SETTLE;
    loop {
        let found = find(job, stem, project, home);
        let settled =
            job.origin != "hook" || job.agent.spec().transcript_settled(found.as_deref(), ended);
        if settled || Instant::now() >= deadline {
            return found.ok_or_else(|| Stop::Failed {
                transcript: None,
                reason: match &job.transcript_path {
                    Some(p) => format!("its transcript {} is gone", p.display()),
                    None => "the agent named no transcript and none was found for it".into(),
                },
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn find(job: &Job, stem: &str, project: &Project, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = job.transcript_path.as_ref().filter(|p| p.is_file()) {
        return Some(p.clone());
    }
    // A failed capture's redacted copy stands in when the agent deleted the
    // original (which, while it lasts, holds subagents and what came after).
    let copy = project.failed_dir().join(format!("{stem}.jsonl"));
    if copy.is_file() {
        return Some(copy);
    }
    // Agents that name none: the session id finds it in the agent's store
    // (as a file name, so a payload's id never walks out of the folder).
    crate::agents::transcript_of(job.agent, stem, home?)
}
