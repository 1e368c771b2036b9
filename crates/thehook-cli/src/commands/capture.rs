//! `thehook capture --worker | --retry | --transcript PATH`: the capture
//! pipeline run in the background by the hooks, or by hand.

use std::path::Path;

use serde_json::json;
use thehook_core::capture::{run_worker, Outcome, Surroundings, Worker};
use thehook_core::model::SearchPaths;
use thehook_core::{env, logs, Error, Project};

use crate::args::CaptureArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};

/// The detached worker: nobody reads its output, so it logs, and it
/// always exits 0.
pub(super) fn worker(start: &Path, paths: &SearchPaths) -> Exit {
    let project = Project::discover(start);
    if !project.dir().is_dir() || env::is_child() {
        return Exit::Success;
    }
    let line = match run_worker(&project, paths, &Surroundings::from_process()) {
        Ok(run) if run.busy => "another capture worker is running; it takes the queue".to_string(),
        Ok(_) => return Exit::Success,
        Err(e) => format!("worker failed: {e}"),
    };
    logs::append(&project, thehook_core::capture::LOG, &line);
    Exit::Success
}

/// A worker for a person at a terminal (see [`thehook_core::capture::with_worker`]).
pub(super) fn with_worker<T>(
    project: &Project,
    paths: &SearchPaths,
    out: &mut Output,
    body: impl FnOnce(&mut Worker) -> Result<T, Error>,
) -> Result<T, Error> {
    thehook_core::capture::with_worker(
        project,
        paths,
        || out.note("waiting for the capture worker that is running…"),
        body,
    )
}

pub(super) fn by_hand(
    project: &Project,
    paths: &SearchPaths,
    args: CaptureArgs,
    out: &mut Output,
) -> CommandResult {
    let outcomes = with_worker(project, paths, out, |w| match &args.transcript {
        Some(path) => w.capture_file(path).map(|o| vec![o]),
        None => Ok(w.retry()),
    })?;
    if args.json {
        let list: Vec<_> = outcomes.iter().map(Outcome::report).collect();
        out.print(&serde_json::to_string_pretty(&json!({ "sessions": list })).unwrap_or_default());
    } else if outcomes.is_empty() {
        out.print("no failed captures to retry");
    } else {
        for o in &outcomes {
            let mark = match o {
                Outcome::Captured { .. } => out.paint(Style::Good, "ok"),
                Outcome::Skipped { .. } => out.paint(Style::Dim, "skipped"),
                _ => out.paint(Style::Bad, "failed"),
            };
            out.print(&format!("{mark} {o}"));
        }
    }
    let all_done = outcomes
        .iter()
        .all(|o| matches!(o, Outcome::Captured { .. } | Outcome::Skipped { .. }));
    Ok(Exit::found(all_done))
}
