//! One module per command (the hooks share one, their fail-open protocol);
//! each maps its flags to the core's requests, calls the core, and renders
//! the answer.

mod capture;
mod consolidate;
mod doctor;
mod forget;
pub(crate) mod hooks;
mod init;
mod memory;
mod read;
mod recall;
mod reindex;
mod remember;
mod review;
mod sessions;
mod status;
mod ui;

use std::path::PathBuf;

use thehook_core::model::SearchPaths;
use thehook_core::Project;

use thehook_core::agents::HookEvent;

use crate::args::{CaptureRole, Cli, Command};
use crate::exit::CommandResult;
use crate::output::Output;

pub(crate) fn dispatch(cli: Cli, out: &mut Output) -> CommandResult {
    let start = cli.project_dir.unwrap_or_else(|| PathBuf::from("."));
    // Found here only for the commands that work on a project found once: a
    // hook finds it from its payload's `cwd` (`thehook_core::hook`), init and
    // the capture worker from `start`, the MCP server at each call (memory
    // may be made after it starts).
    let project = || Project::discover(&start);
    let paths = SearchPaths::from_env();
    match cli.command {
        Command::Recall(args) => recall::recall(&project(), &paths, args, out),
        Command::Reindex(args) => reindex::reindex(&project(), &paths, args, out),
        Command::Status(args) => status::status(&project(), &paths, args, out),
        Command::Remember(args) => remember::remember(&project(), &paths, args, out),
        Command::Forget(args) => forget::forget(&project(), &paths, args, out),
        Command::Review(args) => review::review(&project(), &paths, args, out),
        Command::Doctor(args) => doctor::doctor(&project(), &paths, args, out),
        Command::Init(args) => init::init(&start, args, out),
        Command::Uninstall(args) => init::uninstall(&start, args, out),
        Command::Retrieve(args) => Ok(hooks::run(
            HookEvent::SessionStart,
            &start,
            &paths,
            args,
            out,
        )),
        Command::Prompt(args) => Ok(hooks::run(HookEvent::Prompt, &start, &paths, args, out)),
        Command::File(args) => Ok(hooks::run(HookEvent::FileTouch, &start, &paths, args, out)),
        Command::Subagent(args) => Ok(hooks::run(
            HookEvent::SubagentStart,
            &start,
            &paths,
            args,
            out,
        )),
        Command::Capture(args) => match args.role() {
            CaptureRole::Worker => Ok(capture::worker(&start, &paths)),
            CaptureRole::ByHand => capture::by_hand(&project(), &paths, args, out),
            CaptureRole::Hook => Ok(hooks::run(
                HookEvent::SessionEnd,
                &start,
                &paths,
                args.hook,
                out,
            )),
        },
        Command::Consolidate(args) => consolidate::consolidate(&project(), &paths, args, out),
        Command::Sessions(args) => sessions::sessions(&project(), args, out),
        Command::Read(args) => read::read(&project(), args, out),
        Command::Mcp => crate::mcp::serve(start, paths, out),
        Command::Ui(args) => ui::ui(&project(), paths, args, out),
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
