//! `thehook doctor`: the core's checks, as text or JSON.

use thehook_core::model::SearchPaths;
use thehook_core::setup::doctor::{doctor as checks, Level};
use thehook_core::Project;

use crate::args::JsonFlag;
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};

pub(super) fn doctor(
    project: &Project,
    paths: &SearchPaths,
    args: JsonFlag,
    out: &mut Output,
) -> CommandResult {
    let checks = checks(project.root(), paths);
    let worst = checks
        .iter()
        .map(|c| c.level)
        .fold(Level::Ok, |a, b| match (a, b) {
            (Level::Error, _) | (_, Level::Error) => Level::Error,
            (Level::Warn, _) | (_, Level::Warn) => Level::Warn,
            _ => Level::Ok,
        });
    if args.json {
        out.print(&serde_json::to_string_pretty(&checks).expect("json"));
    } else {
        for c in &checks {
            let mark = match c.level {
                Level::Ok => out.paint(Style::Good, "ok  "),
                Level::Warn => out.paint(Style::Warn, "warn"),
                Level::Error => out.paint(Style::Bad, "FAIL"),
            };
            out.print(&format!("{mark} {:<13} {}", c.name, c.detail));
            if let Some(fix) = &c.fix {
                out.print(&format!("     {:<13} fix: {fix}", ""));
            }
        }
    }
    // Warnings (lexical-only, no hooks yet) are a working install.
    if worst == Level::Error {
        Ok(Exit::Usage)
    } else {
        Ok(Exit::Success)
    }
}
