//! `thehook init`: memory set up and the agents wired; `uninstall` (which
//! reports the same way) takes back exactly that.

use std::path::Path;

use thehook_core::setup::init::Action;
use thehook_core::setup::plan::{InitPlan, InitReport, InitRequest};

use crate::args::{InitArgs, UninstallArgs};
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};

pub(super) fn init(start: &Path, args: InitArgs, out: &mut Output) -> CommandResult {
    let request = InitRequest {
        start: start.to_path_buf(),
        agents: args.agents,
        global: args.global,
        bin: args.bin,
        mcp: args.mcp,
        // Set by the Node addon for the native binary it runs.
        npm_bin: thehook_core::env::npm_bin(),
        current_exe: std::env::current_exe().ok(),
    };
    let done = InitPlan::init(&request)?.run_init()?;
    report(&done, args.json, out);
    Ok(Exit::Success)
}

pub(super) fn uninstall(start: &Path, args: UninstallArgs, out: &mut Output) -> CommandResult {
    let done = InitPlan::uninstall(start, args.global)?.run_uninstall()?;
    report(&done, args.json, out);
    Ok(Exit::Success)
}

fn report(r: &InitReport, as_json: bool, out: &mut Output) {
    let (changes, base, bin) = (&r.changes, &r.base, r.bin.as_ref());
    if as_json {
        match serde_json::to_string_pretty(&r.summary()) {
            Ok(json) => out.print(&json),
            Err(e) => out.err(&format!("error: cannot print JSON: {e}")),
        }
        return;
    }
    if changes.iter().all(|c| c.action == Action::Kept) && bin.is_none() {
        out.print("nothing to remove: no agent settings run thehook here");
    }
    for c in changes {
        let style = match c.action {
            Action::Created | Action::Updated => Style::Good,
            Action::Removed | Action::ToDo => Style::Warn,
            Action::Unchanged | Action::Kept => Style::Dim,
        };
        let word = c.action.as_str();
        let shown = match c.path.strip_prefix(base) {
            Ok(rel) => thehook_core::project::slashed(rel),
            Err(_) => c.path.display().to_string(),
        };
        let line = format!(
            "{} {}  {}",
            out.paint(style, &format!("{word:<9}")),
            out.paint(Style::Path, &shown),
            c.detail
        );
        out.print(&line);
    }
    if let Some(bin) = bin {
        out.print(&bin.note);
        if let Some(w) = &bin.warning {
            out.note(&format!("warning: {w}"));
        }
    }
}
