//! The slow half of session start, run detached where nobody waits: embeds
//! the context query for next time, sweeps the agents' stores for sessions
//! whose end hook never fired, and captures what is queued.

use std::path::Path;
use std::time::{Instant, SystemTime};

use super::warm;
use crate::capture::hook::HOOK_LOG;
use crate::capture::retry;
use crate::capture::{failed_jobs, queued_jobs, run_worker, summary, sweep, Surroundings};
use crate::logs;
use crate::model::SearchPaths;
use crate::project::Project;

/// Runs the background half for the project at `start` (nothing without a
/// `.thehook/`); `session` is the session that is starting, left out of the
/// sweep. What it did goes to the hook log.
pub(crate) fn run(start: &Path, paths: &SearchPaths, session: Option<&str>, around: &Surroundings) {
    let project = Project::discover(start);
    if !project.dir().is_dir() {
        return;
    }
    let began = Instant::now();
    let warmed = warm(&project, paths).unwrap_or_else(|e| format!("warming failed: {e}"));
    let swept = match &around.home {
        Some(home) => match sweep::sweep(&project, home, session, SystemTime::now()) {
            Ok(found) if found.is_empty() => "no uncaptured sessions".to_string(),
            Ok(found) => format!(
                "queued {} uncaptured session(s): {}",
                found.len(),
                found
                    .iter()
                    .map(|f| f.session_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!("sweep failed: {e}"),
        },
        None => "no HOME: no sweep".to_string(),
    };
    // Sessions the sweep (or an earlier hook) queued are captured here, and
    // failed captures whose next attempt is due are tried again.
    let idle = queued_jobs(&project).is_empty()
        && retry::due(&project, failed_jobs(&project), jiff::Timestamp::now()).is_empty();
    let captured = if idle {
        String::new()
    } else {
        match run_worker(&project, paths, around) {
            Ok(run) if run.busy => "; the capture worker is busy".to_string(),
            Ok(run) => format!("; capture worker: {}", summary(&run.outcomes)),
            Err(e) => format!("; capture worker failed: {e}"),
        }
    };
    logs::append(
        &project,
        HOOK_LOG,
        &format!(
            "retrieve --background: {warmed}; {swept}{captured} ({} ms)",
            began.elapsed().as_millis()
        ),
    );
}
