//! `thehook ui`: serves the local page until Ctrl-C, its URL (with the
//! token) on stdout.

use thehook_core::model::SearchPaths;
use thehook_core::Project;

use crate::args::UiArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

pub(super) fn ui(
    project: &Project,
    paths: SearchPaths,
    args: UiArgs,
    out: &mut Output,
) -> CommandResult {
    let options = crate::ui::Options {
        port: args.port.unwrap_or(0),
        open: !args.no_open,
    };
    crate::ui::serve(project, paths, options, |url| {
        out.print(&format!("thehook ui: {url}"));
        out.note("Ctrl-C stops it");
        out.flush();
    })?;
    Ok(Exit::Success)
}
