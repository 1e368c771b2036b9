//! How thehook is doing in this project: what `doctor` says, the index and
//! what `status` counts, and the captures that wait (queued) or failed
//! (with why, to retry).

use serde::Serialize;

use crate::capture::files::{failed_jobs, queued_jobs};
use crate::capture::queue::Job;
use crate::error::Result;
use crate::memory::embed::SearchPaths;
use crate::memory::Memory;
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
        queued: queued_jobs(project).into_iter().map(|(_, job)| job).collect(),
        failed,
    })
}
