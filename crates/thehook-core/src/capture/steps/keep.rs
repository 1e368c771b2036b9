//! Step 7: the outcome. A session distilled by the LLM clears `failed/`; a
//! heuristic file, or no file at all, keeps the job there (with the
//! redacted transcript, when there is one) for `capture --retry` and the
//! automatic retries; an empty conversation is remembered as skipped.

use std::path::Path;

use super::write::Written;
use super::Stop;
use crate::capture::files::redact_file;
use crate::capture::outcome::Outcome;
use crate::capture::queue::{mark_skipped, Job};
use crate::capture::retry;
use crate::capture::workbench::Workbench;
use crate::error::Result;
use crate::project::Project;
use crate::store::write_atomic;

/// How one session ended, and lines for the worker's log.
pub(crate) struct Captured {
    pub(crate) outcome: Outcome,
    pub(crate) notes: Vec<String>,
}

/// The outcome of the steps before for the session `job` names (`stem` its
/// id as a file name).
pub(crate) fn outcome(
    workbench: &Workbench,
    job: &Job,
    stem: &str,
    done: std::result::Result<Written, Stop>,
) -> Captured {
    let project = &workbench.project;
    let redacting = workbench.config.capture.redact_secrets;
    let session_id = job.session_id.clone();
    let (outcome, mut notes, kept) = match done {
        Ok(Written {
            file,
            without_llm: None,
            notes,
            ..
        }) => {
            remove_failed(project, stem);
            (Outcome::Captured { session_id, file }, notes, Ok(()))
        }
        Ok(Written {
            file,
            transcript,
            without_llm: Some(reason),
            over_budget,
            notes,
        }) => {
            let why = reason.to_string();
            let kept = keep_failed(
                project,
                redacting,
                job,
                stem,
                Some(&transcript),
                &why,
                over_budget,
            );
            let outcome = Outcome::Heuristic {
                session_id,
                file,
                reason,
                not_kept: not_kept(&kept),
            };
            (outcome, notes, kept)
        }
        Err(Stop::Skipped { why }) => {
            mark_skipped(project, stem);
            (Outcome::Skipped { session_id, why }, Vec::new(), Ok(()))
        }
        Err(Stop::Failed { transcript, reason }) => {
            let kept = keep_failed(
                project,
                redacting,
                job,
                stem,
                transcript.as_deref(),
                &reason,
                false,
            );
            let not_kept = not_kept(&kept);
            let outcome = Outcome::Failed {
                session_id,
                reason,
                not_kept,
            };
            (outcome, Vec::new(), kept)
        }
    };
    if let Err(e) = kept {
        notes.push(format!("could not keep {} in failed/: {e}", job.session_id));
    }
    Captured { outcome, notes }
}

/// Why `failed/` could not keep the session, in one line.
fn not_kept(kept: &Result<()>) -> Option<String> {
    kept.as_ref()
        .err()
        .map(|e| crate::transcript::first_line(&e.to_string()))
}

/// `failed/<id>.jsonl` (the redacted transcript), `<id>.json` (the
/// job, for `--retry`), `<id>.retry` (when it is tried again by itself)
/// and `<id>.reason`, the last written last: it is what counts a
/// capture as failed.
fn keep_failed(
    project: &Project,
    redacting: bool,
    job: &Job,
    stem: &str,
    transcript: Option<&Path>,
    reason: &str,
    over_budget: bool,
) -> Result<()> {
    let dir = project.failed_dir();
    let plan = retry::read(project, stem).after(over_budget, &jiff::Zoned::now());
    let plan = retry::file(project, stem, &plan);
    let copy = dir.join(format!("{stem}.jsonl"));
    let transcript = transcript
        .filter(|p| *p != copy)
        .and_then(|p| crate::transcript::bounded::read(p).ok())
        .map(|read| read.bytes)
        .map(|bytes| {
            if redacting {
                redact_file(&bytes)
            } else {
                bytes
            }
        });
    let json = serde_json::to_vec_pretty(job).unwrap_or_default();
    let reason = format!(
        "{reason}\n\nsession: {}\nagent: {}\ntranscript: {}\nfailed at: {}\nretry: thehook capture --retry\n",
        job.session_id,
        job.agent.as_str(),
        job.transcript_path
            .as_ref()
            .map_or("(none)".to_string(), |p| p.display().to_string()),
        jiff::Timestamp::now()
    );
    // The reason last: it is what counts the capture as failed.
    let files = [
        transcript.map(|bytes| (copy, bytes)),
        Some((dir.join(format!("{stem}.json")), json)),
        Some(plan),
        Some((dir.join(format!("{stem}.reason")), reason.into_bytes())),
    ];
    // All or none: files this call added are taken back if a later one
    // cannot be written (a `.json` without its `.reason` would count as
    // neither queued nor failed).
    let mut added = Vec::new();
    for (path, bytes) in files.into_iter().flatten() {
        let existed = path.exists();
        if let Err(e) = write_atomic(&path, &bytes) {
            for path in added {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
        if !existed {
            added.push(path);
        }
    }
    Ok(())
}

/// Clears a session from `failed/`.
fn remove_failed(project: &Project, stem: &str) {
    // The reason first: without it the capture no longer counts as failed.
    for ext in ["reason", "json", "jsonl", "retry"] {
        let _ = std::fs::remove_file(project.failed_dir().join(format!("{stem}.{ext}")));
    }
}
