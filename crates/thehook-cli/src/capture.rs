//! `thehook capture --worker | --retry | --transcript PATH` and
//! `thehook consolidate`: the capture pipeline run in the background by the
//! hooks, or by hand.

use std::path::Path;

use serde_json::json;
use thehook_core::capture::{run_worker, Outcome, Surroundings, Worker};
use thehook_core::embed::SearchPaths;
use thehook_core::{consolidate as merge, logs, Error, Project};

use crate::commands::fail;
use crate::output::{Output, Style};
use crate::{exit, CaptureArgs, JsonFlag};

/// The detached worker: nobody reads its output, so it logs, and it
/// always exits 0.
pub fn worker(start: &Path, paths: &SearchPaths) -> i32 {
    let project = Project::discover(start);
    if !project.dir().is_dir() || is_child() {
        return exit::SUCCESS;
    }
    let line = match run_worker(&project, paths, &Surroundings::from_process()) {
        Ok(run) if run.busy => "another capture worker is running; it takes the queue".to_string(),
        Ok(_) => return exit::SUCCESS,
        Err(e) => format!("worker failed: {e}"),
    };
    logs::append(&project, thehook_core::capture::LOG, &line);
    exit::SUCCESS
}

fn is_child() -> bool {
    std::env::var_os("THEHOOK_CHILD").is_some_and(|v| v == "1")
}

/// A worker for a person at a terminal (see [`thehook_core::capture::with_worker`]).
fn with_worker<T>(
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

pub fn by_hand(project: &Project, paths: &SearchPaths, args: CaptureArgs, out: &mut Output) -> i32 {
    let result = with_worker(project, paths, out, |w| match &args.transcript {
        Some(path) => w.capture_file(path).map(|o| vec![o]),
        None => Ok(w.retry()),
    });
    let outcomes = match result {
        Ok(o) => o,
        Err(e) => return fail(out, &e),
    };
    if args.json {
        let list: Vec<_> = outcomes.iter().map(outcome_json).collect();
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
    if all_done {
        exit::SUCCESS
    } else {
        exit::NOTHING_FOUND
    }
}

fn outcome_json(o: &Outcome) -> serde_json::Value {
    match o {
        Outcome::Captured { session_id, file } => {
            json!({"session_id": session_id, "status": "captured", "file": file})
        }
        Outcome::Heuristic {
            session_id,
            file,
            reason,
        } => {
            json!({"session_id": session_id, "status": "heuristic", "file": file, "reason": reason})
        }
        Outcome::Failed { session_id, reason } => {
            json!({"session_id": session_id, "status": "failed", "reason": reason})
        }
        Outcome::Skipped { session_id, why } => {
            json!({"session_id": session_id, "status": "skipped", "reason": why})
        }
    }
}

pub fn consolidate(
    project: &Project,
    paths: &SearchPaths,
    args: JsonFlag,
    out: &mut Output,
) -> i32 {
    let result = with_worker(project, paths, out, |w| {
        let result = merge::consolidate(w);
        if let Err(e) = &result {
            w.log(&format!("consolidation failed: {e}"));
        }
        result
    });
    match result {
        Err(e) => fail(out, &e),
        Ok(done) => {
            if args.json {
                out.print(
                    &serde_json::to_string_pretty(&json!({ "consolidated": done }))
                        .unwrap_or_default(),
                );
            } else {
                match done {
                    None => out.print("no session waits for consolidation"),
                    Some(c) => out.print(&format!(
                        "consolidated {} session(s) into .thehook/knowledge/ ({} items before, {} after)",
                        c.sessions, c.items_before, c.items_after
                    )),
                }
            }
            exit::SUCCESS
        }
    }
}
