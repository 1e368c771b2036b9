//! The worker's workbench: what every step of its run reads (the project,
//! its config, where the model and the LLM CLI are), and the memory it
//! opens once. [`Worker`](super::worker::Worker) holds it; the steps
//! (`capture/steps/`) take it, so they need not know the worker.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::config::Config;
use crate::error::Result;
use crate::logs;
use crate::memory::Memory;
use crate::model::SearchPaths;
use crate::project::Project;

/// The worker's log in `.thehook/logs/`.
pub const LOG: &str = "worker.log";

/// What the worker needs from the world outside the project.
#[derive(Debug, Clone, Default)]
pub struct Surroundings {
    /// `PATH`, to find the LLM CLI.
    pub path: Option<OsString>,
    /// The home folder, to find transcripts a job names no path for.
    pub home: Option<PathBuf>,
}

impl Surroundings {
    pub fn from_process() -> Self {
        Surroundings {
            path: crate::env::path_var(),
            home: crate::env::home(),
        }
    }
}

/// What the steps of one worker run share.
pub(crate) struct Workbench<'a> {
    pub(crate) project: Project,
    pub(crate) config: Config,
    pub(crate) paths: &'a SearchPaths,
    pub(crate) around: Surroundings,
    /// Opened once for the run, before the project lock (`capture/locked.rs`).
    pub(crate) memory: Option<Memory>,
}

impl<'a> Workbench<'a> {
    pub(crate) fn new(
        project: Project,
        paths: &'a SearchPaths,
        around: Surroundings,
    ) -> Result<Self> {
        let config = Config::load(&project.config_path())?.config;
        Ok(Workbench {
            project,
            config,
            paths,
            around,
            memory: None,
        })
    }

    /// Appends to `logs/worker.log`.
    pub(crate) fn log(&self, line: &str) {
        logs::append(&self.project, LOG, line);
    }
}
