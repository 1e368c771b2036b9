//! One module per group of commands; each maps its flags to the core's
//! requests, calls the core, and renders the answer.

mod browse;
mod capture;
pub(crate) mod hooks;
mod memory;
mod review;
mod setup;

use std::path::PathBuf;

use thehook_core::memory::embed::SearchPaths;
use thehook_core::Project;

use crate::args::{Cli, Command};
use crate::output::Output;
use crate::CommandResult;

pub(crate) fn dispatch(cli: Cli, out: &mut Output) -> CommandResult {
    let start = cli.project_dir.unwrap_or_else(|| PathBuf::from("."));
    let project = Project::discover(&start);
    let paths = SearchPaths::from_env();
    match cli.command {
        Command::Recall(args) => memory::recall(&project, &paths, args, out),
        Command::Reindex(args) => memory::reindex(&project, &paths, args, out),
        Command::Status(args) => memory::status(&project, &paths, args, out),
        Command::Remember(args) => memory::remember(&project, &paths, args, out),
        Command::Forget(args) => memory::forget(&project, &paths, args, out),
        Command::Review(args) => review::review(&project, &paths, args, out),
        Command::Doctor(args) => setup::doctor(&project, &paths, args, out),
        Command::Init(args) => setup::init(&start, args, out),
        Command::Uninstall(args) => setup::uninstall(&start, args, out),
        Command::Retrieve(args) => Ok(hooks::retrieve(&start, &paths, args, out)),
        Command::Prompt(args) => Ok(hooks::on_prompt(&start, &paths, args, out)),
        Command::Capture(args) if args.worker => Ok(capture::worker(&start, &paths)),
        Command::Capture(args) if args.retry || args.transcript.is_some() => {
            capture::by_hand(&project, &paths, args, out)
        }
        Command::Capture(args) => Ok(hooks::capture(&start, args.hook, out)),
        Command::Consolidate(args) => capture::consolidate(&project, &paths, args, out),
        Command::Sessions(args) => browse::sessions(&project, args, out),
        Command::Read(args) => browse::read(&project, args, out),
        Command::Mcp => crate::mcp::serve(start, paths, out),
    }
}

/// Starts `thehook -C <root> <args>` detached (the hooks' slow halves, the
/// embedding a command left for later), unless told not to.
pub(crate) fn start_detached(root: &std::path::Path, args: &[&str]) {
    if !thehook_core::env::background_allowed() {
        return;
    }
    if let Ok(exe) = std::env::current_exe() {
        thehook_core::process::spawn_detached(&exe, root, args);
    }
}
