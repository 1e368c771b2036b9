//! The files of the capture pipeline besides the session files: jobs in
//! `queue/`, failed captures in `failed/`, and writers' leftovers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::capture::queue::Job;
use crate::error::{Error, IoContext, Result};
use crate::project::Project;
use crate::store::write_atomic;
use crate::text::redact::{self, Findings};

/// A transcript's bytes with secrets redacted, still parseable: one JSON
/// document (Gemini) stays one, JSONL stays JSONL.
pub(crate) fn redact_file(bytes: &[u8]) -> Vec<u8> {
    let mut found = Findings::default();
    if let Ok(mut doc) = serde_json::from_slice::<serde_json::Value>(bytes) {
        redact::redact_json(&mut doc, &mut found);
        return doc.to_string().into_bytes();
    }
    redact::redact_jsonl(bytes, &mut found).into_bytes()
}

fn read_jobs(dir: &Path) -> Vec<(PathBuf, Job)> {
    let mut jobs: Vec<(PathBuf, Job)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let job: Job = serde_json::from_slice(&std::fs::read(&p).ok()?).ok()?;
            Some((p, job))
        })
        .collect();
    jobs.sort_by(|a, b| a.1.queued_at.cmp(&b.1.queued_at));
    jobs
}

/// The queue, oldest first. Files that are not jobs are left alone.
pub fn queued_jobs(project: &Project) -> Vec<(PathBuf, Job)> {
    read_jobs(&project.queue_dir())
}

/// Moves queue files that are not readable jobs (damaged by hand or by a
/// full disk) to `failed/` with a reason, so they are reported rather than
/// counted as queued for ever. A job still being written is never seen:
/// jobs are written to a temp file and renamed.
pub(crate) fn set_aside_damaged_jobs(project: &Project) -> Vec<String> {
    let mut moved = Vec::new();
    for entry in std::fs::read_dir(project.queue_dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let why = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<Job>(&bytes) {
                Ok(_) => continue,
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        };
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let dir = project.failed_dir();
        let reason = format!(
            "the queued job .thehook/queue/{stem}.json could not be read ({why})\n\nfix: repair its JSON and move it back to .thehook/queue/, or delete .thehook/failed/{stem}.*\n"
        );
        let moved_ok = std::fs::create_dir_all(&dir).is_ok()
            && std::fs::rename(&path, dir.join(format!("{stem}.json"))).is_ok()
            && write_atomic(&dir.join(format!("{stem}.reason")), reason.as_bytes()).is_ok();
        if moved_ok {
            moved.push(stem);
        }
    }
    moved
}

/// The jobs of failed captures.
pub fn failed_jobs(project: &Project) -> Vec<(PathBuf, Job)> {
    read_jobs(&project.failed_dir())
}

/// Removes a job unless it was replaced while the worker ran (a resumed
/// session ended again): then the new job stays for the next round.
pub(crate) fn remove_job_if_unchanged(path: &Path, job: &Job) {
    let current: Option<Job> = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    if current
        .as_ref()
        .is_some_and(|c| c.queued_at == job.queued_at)
    {
        let _ = std::fs::remove_file(path);
    }
}

/// Temp files of writers that were killed before their rename. Old ones
/// only: a live writer's temp file is seconds old.
pub(crate) fn remove_stale_temp_files(project: &Project) {
    let stale = Duration::from_secs(600);
    for dir in [project.sessions_dir(), project.knowledge_dir()] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let is_temp = entry
                .file_name()
                .to_string_lossy()
                .starts_with(".thehook-tmp-");
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > stale));
            if is_temp && old {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// An exclusive lock that one capture worker per project holds while it
/// works. The OS releases it when the process dies, so a crashed worker
/// never blocks the next. `None` when another worker holds it and `wait`
/// is false.
pub fn worker_lock(project: &Project, wait: bool) -> Result<Option<std::fs::File>> {
    let path = project.queue_dir().join(".worker.lock");
    let file = crate::project::open_lock_file(&path)?;
    if wait {
        file.lock().at("cannot lock", &path)?;
        return Ok(Some(file));
    }
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", &path, e)),
    }
}
