//! The order of the two things writing a memory file takes: the index
//! opened first (opening may take the project lock itself, to create or
//! repair the index), the project lock second. [`lock`] is the only way to
//! a [`Locked`], and only a [`Locked`] indexes, so no caller can take them
//! the other way round (which waited on itself for ever, and reported a
//! damaged index).

use std::fs::File;

use crate::error::{Error, Result};
use crate::logs;
use crate::memory::{Memory, SyncPolicy, NO_PROGRESS};
use crate::model::SearchPaths;
use crate::project::Project;

/// The project lock, held with the memory opened before it.
pub(crate) struct Locked<'m> {
    /// `Err`: the index could not be opened; the markdown is still written
    /// under the lock, and the next sync indexes it.
    memory: std::result::Result<&'m mut Memory, Error>,
    project: &'m Project,
    _lock: File,
}

/// Opens `memory` (once per run) if it is not open, then takes the lock.
pub(crate) fn lock<'m>(
    memory: &'m mut Option<Memory>,
    project: &'m Project,
    paths: &SearchPaths,
) -> Result<Locked<'m>> {
    let opened = match memory {
        Some(_) => Ok(()),
        None => Memory::open(project, paths, false).map(|m| *memory = Some(m)),
    };
    let lock = project.lock()?;
    Ok(Locked {
        memory: opened.map(|()| memory.as_mut().expect("opened above")),
        project,
        _lock: lock,
    })
}

impl Locked<'_> {
    /// The lock, only when the index could be opened: else that error.
    pub(crate) fn opened(self) -> Result<Self> {
        match self.memory {
            Ok(memory) => Ok(Locked {
                memory: Ok(memory),
                ..self
            }),
            Err(e) => Err(e),
        }
    }

    /// Why the index could not be opened, if it could not.
    pub(crate) fn open_failure(&self) -> Option<&Error> {
        self.memory.as_ref().err()
    }

    /// Brings the index up to date with what was written under the lock,
    /// then lets the lock go; its notices go to `log` (a file in
    /// `.thehook/logs/`). An index that could not be opened fails it with
    /// that error.
    pub(crate) fn sync(self, log: &str) -> Result<()> {
        let memory = self.memory?;
        memory.sync(SyncPolicy::FULL, NO_PROGRESS)?;
        for notice in memory.take_notices() {
            logs::append(self.project, log, &notice);
        }
        Ok(())
    }
}
