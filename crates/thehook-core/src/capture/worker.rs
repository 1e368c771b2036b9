//! The capture worker: drains `.thehook/queue/`, turns each session's
//! transcript into a session file, and never loses one.
//!
//! For each job, the steps of `capture/steps/`: find the transcript, read
//! and redact it, condense it, ask the LLM and check the answer, write
//! `sessions/<date>-<slug>.md` atomically and index it, then (and only
//! then) remove the job. A worker killed at any point
//! leaves the job queued and at most a complete session file that the next
//! run rewrites in place. Without a usable answer the session file comes
//! from a deterministic extraction (`extracted: heuristic`) and the redacted
//! transcript waits in `failed/` with its reason for `capture --retry`.

use std::path::{Path, PathBuf};

use crate::agents::Agent;
use crate::capture::files::{
    failed_jobs, queued_jobs, remove_job_if_unchanged, remove_stale_temp_files,
    set_aside_damaged_jobs,
};
use crate::capture::outcome::Outcome;
use crate::capture::queue::Job;
use crate::capture::retry;
use crate::capture::steps::{self, Captured};
use crate::capture::workbench::{Surroundings, Workbench};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::SearchPaths;
use crate::project::Project;
use crate::transcript::NotATranscript;

#[cfg(test)]
mod tests;

/// One run of the pipeline over a project.
pub struct Worker<'a> {
    pub(crate) workbench: Workbench<'a>,
}

impl<'a> Worker<'a> {
    pub fn new(project: Project, paths: &'a SearchPaths, around: Surroundings) -> Result<Self> {
        Ok(Worker {
            workbench: Workbench::new(project, paths, around)?,
        })
    }

    pub fn project(&self) -> &Project {
        &self.workbench.project
    }
    pub fn config(&self) -> &Config {
        &self.workbench.config
    }

    /// Appends to `logs/worker.log`.
    pub fn log(&self, line: &str) {
        self.workbench.log(line);
    }

    /// One round of the detached worker: every queued session captured,
    /// including those queued while it ran; then, with `retry_due`, the
    /// failed captures whose automatic attempt is due (`capture/retry.rs`),
    /// while the daily budget allows.
    pub fn run(&mut self, retry_due: bool) -> Vec<Outcome> {
        let project = &self.workbench.project;
        // Read before damaged jobs join them: those are no jobs to retry.
        let failed = failed_jobs(project);
        remove_stale_temp_files(project);
        let damaged = set_aside_damaged_jobs(project);
        for stem in damaged {
            self.log(&format!(
                "queue/{stem}.json is not a readable job: moved to failed/"
            ));
        }
        let mut outcomes = Vec::new();
        let mut tried = std::collections::HashSet::new();
        loop {
            let jobs: Vec<(PathBuf, Job)> = queued_jobs(&self.workbench.project)
                .into_iter()
                .filter(|(_, job)| {
                    !tried.contains(&(job.session_id.clone(), job.queued_at.clone()))
                })
                .collect();
            if jobs.is_empty() {
                break;
            }
            for (file, job) in jobs {
                tried.insert((job.session_id.clone(), job.queued_at.clone()));
                let outcome = self.capture(&job, "");
                if !outcome.keeps_job() {
                    remove_job_if_unchanged(&file, &job);
                }
                outcomes.push(outcome);
            }
        }
        let due = if retry_due {
            retry::due(&self.workbench.project, failed, jiff::Timestamp::now())
        } else {
            Vec::new()
        };
        for (_, job) in due {
            let budget = &self.workbench.config.llm.daily_budget;
            if crate::capture::budget::spent_today(&self.workbench.project, budget).is_some() {
                break;
            }
            outcomes.push(self.capture(&job, "automatic retry: "));
        }
        outcomes
    }

    /// Captures again every session in `failed/`.
    pub fn retry(&mut self) -> Vec<Outcome> {
        failed_jobs(&self.workbench.project)
            .into_iter()
            .map(|(_, job)| self.capture(&job, "retry: "))
            .collect()
    }

    /// Captures one transcript file given by hand.
    pub fn capture_file(&mut self, path: &Path) -> Result<Outcome> {
        let t = crate::agents::read::load(path)?;
        let agent = t.format.and_then(Agent::named).unwrap_or(Agent::DEFAULT);
        let session_id = t.session_id.clone().ok_or_else(|| Error::Transcript {
            path: path.to_path_buf(),
            problem: NotATranscript::NoSessionId,
            formats: crate::agents::titles(),
        })?;
        let job = Job {
            version: crate::capture::queue::JOB_VERSION,
            session_id,
            agent,
            transcript_path: Some(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
            cwd: None,
            origin: "manual".into(),
            queued_at: jiff::Timestamp::now().to_string(),
            reason: None,
        };
        Ok(self.capture(&job, "by hand: "))
    }

    /// The whole pipeline for one session (`capture/steps/`), and its log
    /// lines, the outcome last (after `how`).
    fn capture(&mut self, job: &Job, how: &str) -> Outcome {
        let Captured { outcome, notes } = steps::capture(&mut self.workbench, job);
        for note in notes {
            self.log(&note);
        }
        self.log(&format!("{how}{outcome}"));
        outcome
    }
}
