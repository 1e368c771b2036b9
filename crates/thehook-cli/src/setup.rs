//! `thehook init` and `thehook uninstall`.

use std::path::{Path, PathBuf};

use serde_json::json;
use thehook_core::config::Config;
use thehook_core::init::{
    self, detect_agents, resolve_hook_bin, Action, Change, HookBin, InitOptions,
};
use thehook_core::Project;

use crate::output::{Output, Style};
use crate::{exit, InitArgs, UninstallArgs};

fn no_home(out: &mut Output) -> i32 {
    out.err("error: HOME is not set, so the user-level agent settings cannot be found\n  fix: set HOME and run the command again");
    exit::USAGE
}

pub fn init(start: &Path, args: InitArgs, out: &mut Output) -> i32 {
    let Some(home) = crate::home_dir() else {
        return no_home(out);
    };
    // init sets up the project it is run in (the git root, like git does),
    // not a parent that happens to have memory.
    let root = Project::for_init(start).root().to_path_buf();
    let bin = match &args.bin {
        Some(path) => init::given_hook_bin(path),
        None => resolve_hook_bin(
            std::env::var_os("PATH").as_deref(),
            std::env::current_exe().ok().as_deref(),
            // Set by the Node addon: the native binary beside it.
            std::env::var_os("THEHOOK_NPM_BIN")
                .map(PathBuf::from)
                .as_deref(),
        ),
    };
    let base = if args.global {
        home.clone()
    } else {
        root.clone()
    };
    let agents = if args.agents.is_empty() {
        let path = std::env::var_os("PATH");
        detect_agents(&base, |name| {
            path.as_deref()
                .is_some_and(|p| std::env::split_paths(p).any(|d| d.join(name).is_file()))
        })
    } else {
        args.agents.clone()
    };
    let inject_on = Config::load(&Project::at(&root).config_path())
        .map(|c| c.config.retrieval.inject_on)
        .unwrap_or_else(|_| Config::default().retrieval.inject_on);
    let options = InitOptions {
        agents,
        global: args.global,
        home,
        hook_bin: bin.command.clone(),
        inject_on,
        mcp: args.mcp,
    };
    match init::init(&root, &options) {
        Ok(changes) => {
            report(&changes, &base, args.json, out, Some(&bin));
            exit::SUCCESS
        }
        Err(e) => crate::commands::fail(out, &e),
    }
}

pub fn uninstall(start: &Path, args: UninstallArgs, out: &mut Output) -> i32 {
    let Some(home) = crate::home_dir() else {
        return no_home(out);
    };
    let root = Project::for_init(start).root().to_path_buf();
    let options = InitOptions {
        agents: Vec::new(),
        global: args.global,
        home: home.clone(),
        hook_bin: String::new(),
        inject_on: Vec::new(),
        mcp: false,
    };
    let base = if args.global { home } else { root.clone() };
    match init::uninstall(&root, &options) {
        Ok(changes) => {
            report(&changes, &base, args.json, out, None);
            exit::SUCCESS
        }
        Err(e) => crate::commands::fail(out, &e),
    }
}

fn report(changes: &[Change], base: &Path, as_json: bool, out: &mut Output, bin: Option<&HookBin>) {
    if as_json {
        let value = json!({
            "changes": changes,
            "hook_command": bin.map(|b| &b.command),
            "warning": bin.and_then(|b| b.warning.as_ref()),
        });
        match serde_json::to_string_pretty(&value) {
            Ok(json) => out.print(&json),
            Err(e) => out.err(&format!("error: cannot print JSON: {e}")),
        }
        return;
    }
    if changes.iter().all(|c| c.action == Action::Kept) && bin.is_none() {
        out.print("nothing to remove: no agent settings run thehook here");
    }
    for c in changes {
        let (word, style) = match c.action {
            Action::Created => ("created", Style::Good),
            Action::Updated => ("updated", Style::Good),
            Action::Unchanged => ("unchanged", Style::Dim),
            Action::Removed => ("removed", Style::Warn),
            Action::Kept => ("kept", Style::Dim),
        };
        let shown = c
            .path
            .strip_prefix(base)
            .unwrap_or(&c.path)
            .display()
            .to_string();
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
