//! How thehook is doing in this project: what `doctor` says, the index and
//! what `status` counts, and the captures that wait (queued) or failed
//! (with why, to retry).

use serde::Serialize;

use crate::capture::files::{failed_jobs, queued_jobs};
use crate::capture::queue::Job;
use crate::error::Result;
use crate::memory::Memory;
use crate::model::SearchPaths;
use crate::setup::doctor::{doctor, Check};
use crate::status::Status;

#[derive(Debug, Clone, Serialize)]
pub struct HealthPage {
    pub checks: Vec<Check>,
    pub status: Status,
    pub queued: Vec<Job>,
    pub failed: Vec<FailedCapture>,
}

/// A capture that failed, and why.
#[derive(Debug, Clone, Serialize)]
pub struct FailedCapture {
    pub job: Job,
    /// The reason the worker wrote beside the job, when it did.
    pub reason: Option<String>,
}

pub fn health(memory: &Memory, paths: &SearchPaths) -> Result<HealthPage> {
    let project = memory.project();
    let failed = failed_jobs(project)
        .into_iter()
        .map(|(path, job)| FailedCapture {
            reason: std::fs::read_to_string(path.with_extension("reason")).ok(),
            job,
        })
        .collect();
    Ok(HealthPage {
        checks: doctor(project.root(), paths),
        status: Status::of(memory)?,
        queued: queued_jobs(project)
            .into_iter()
            .map(|(_, job)| job)
            .collect(),
        failed,
    })
}

/// What the page's header says: the project's folder name and what memory holds.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    pub project: String,
    pub sessions: usize,
    pub items: u64,
}

pub fn overview(memory: &Memory) -> Result<Overview> {
    let project = memory
        .project()
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Overview {
        project,
        sessions: memory.index().sessions()?.len(),
        items: memory.index().stats()?.items,
    })
}
