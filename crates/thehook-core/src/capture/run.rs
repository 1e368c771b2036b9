//! Running the worker: the detached `capture --worker` that drains the
//! queue and consolidates when enough sessions wait, and the worker a
//! waiting caller (a person at a terminal, the Node addon) borrows.

use crate::capture::consolidate;
use crate::capture::files::{queued_jobs, worker_lock};
use crate::capture::outcome::Outcome;
use crate::capture::workbench::{Surroundings, LOG};
use crate::capture::worker::Worker;
use crate::error::{Error, Result};
use crate::logs;
use crate::model::SearchPaths;
use crate::project::Project;

/// What a worker run did.
#[derive(Debug, Clone, Default)]
pub struct WorkerRun {
    pub outcomes: Vec<Outcome>,
    /// Another worker held the queue.
    pub busy: bool,
}

/// Runs `body` on a worker for a caller that waits for the answer (a person
/// at a terminal, the Node addon): it waits for a running worker rather than
/// racing it, calling `waiting` first when it has to.
pub fn with_worker<T>(
    project: &Project,
    paths: &SearchPaths,
    waiting: impl FnOnce(),
    body: impl FnOnce(&mut Worker) -> Result<T>,
) -> Result<T> {
    if !project.check_layout()? {
        return Err(Error::no_memory(project.root()));
    }
    let lock = match worker_lock(project, false)? {
        Some(lock) => lock,
        None => {
            waiting();
            worker_lock(project, true)?.expect("a waiting lock is always taken")
        }
    };
    let mut worker = Worker::new(project.clone(), paths, Surroundings::from_process())?;
    let result = body(&mut worker);
    drop(lock);
    result
}

/// `thehook capture --worker`: drains the queue unless another worker is
/// at it, tries again the failed captures that are due, then consolidates
/// when enough sessions wait. A job queued just as
/// the previous worker let go is picked up by a second round.
pub fn run_worker(
    project: &Project,
    paths: &SearchPaths,
    around: &Surroundings,
) -> Result<WorkerRun> {
    let mut run = WorkerRun::default();
    for round in 0..3 {
        let Some(lock) = worker_lock(project, false)? else {
            run.busy = round == 0;
            return Ok(run);
        };
        // A consolidation killed after its commit point is finished first.
        if let Err(e) = consolidate::finish_interrupted(project) {
            logs::append(
                project,
                LOG,
                &format!("could not finish an interrupted consolidation: {e}"),
            );
        }
        let mut worker = Worker::new(project.clone(), paths, around.clone())?;
        let outcomes = worker.run(round == 0);
        // Only a run that wrote a session may consolidate: a refused or
        // failed consolidation is not retried (and paid for) on every spawn.
        let wrote = outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Captured { .. } | Outcome::Heuristic { .. }));
        run.outcomes.extend(outcomes);
        let every = worker.workbench.config.consolidation.every_n_sessions;
        if wrote && consolidate::due(project, every) {
            let result = consolidate::consolidate(&mut worker);
            let line = match &result {
                Ok(Some(c)) => format!(
                    "consolidated {} session(s): {} -> {} knowledge items{}",
                    c.sessions,
                    c.items_before,
                    c.items_after,
                    c.not_indexed
                        .as_ref()
                        .map_or(String::new(), |why| format!("; not indexed yet: {why}"))
                ),
                Ok(None) => "nothing to consolidate".to_string(),
                Err(e) => format!("consolidation failed: {e}"),
            };
            logs::append(project, LOG, &line);
        }
        drop(lock);
        if queued_jobs(project).is_empty() {
            break;
        }
    }
    Ok(run)
}
