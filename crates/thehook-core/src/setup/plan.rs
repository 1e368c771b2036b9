//! `init` and `uninstall` decided before anything is written: which project,
//! which agents, which `thehook` the hooks run, which session starts inject.
//! The CLI and the Node addon fill an [`InitRequest`] and run the plan; the
//! policy lives here once.

use std::path::{Path, PathBuf};

use crate::agents::Agent;
use crate::config::Config;
use crate::error::Result;
use crate::project::Project;
use crate::setup::init::{
    detect_agents, given_hook_bin, init, resolve_hook_bin, uninstall, Change, HookBin, InitOptions,
};

/// What the caller asked of `init` (or `uninstall`).
#[derive(Debug, Clone, Default)]
pub struct InitRequest {
    /// Where it was run; the project is the git root above it.
    pub start: PathBuf,
    /// Agents to wire; empty: those whose folder or program is present, else Claude Code.
    pub agents: Vec<Agent>,
    /// Write the user-level settings under HOME instead of the project's.
    pub global: bool,
    /// The `thehook` hooks should run, when the caller names one.
    pub bin: Option<PathBuf>,
    /// Register the MCP server too.
    pub mcp: bool,
    /// The native `thehook` of the npm package, when run from it.
    pub npm_bin: Option<PathBuf>,
    /// The running program, when it is a `thehook` (not under Node).
    pub current_exe: Option<PathBuf>,
}

/// Everything `init` or `uninstall` will do, decided.
#[derive(Debug, Clone)]
pub struct InitPlan {
    /// The project: `.thehook/` is created here.
    pub root: PathBuf,
    /// Where settings files are written: the project, or HOME with `global`.
    pub base: PathBuf,
    pub options: InitOptions,
    /// The `thehook` hooks run, and why (init only).
    pub bin: Option<HookBin>,
}

/// What `init` or `uninstall` did.
#[derive(Debug, Clone)]
pub struct InitReport {
    pub changes: Vec<Change>,
    /// Where settings files are (paths in the report are shown relative to it).
    pub base: PathBuf,
    pub bin: Option<HookBin>,
}

/// What `init` or `uninstall` did, as the CLI's `--json` prints it: the
/// changes, the program hooks run and any warning about it.
#[derive(Debug, serde::Serialize)]
pub struct InitSummary<'r> {
    pub changes: &'r [Change],
    pub hook_command: Option<&'r str>,
    pub warning: Option<&'r str>,
}

impl InitReport {
    /// The report as front ends print it.
    pub fn summary(&self) -> InitSummary<'_> {
        InitSummary {
            changes: &self.changes,
            hook_command: self.bin.as_ref().map(|b| b.program.as_str()),
            warning: self.bin.as_ref().and_then(|b| b.warning.as_deref()),
        }
    }
}

fn home() -> Result<PathBuf> {
    crate::env::require_home("the user-level agent settings")
}

/// init sets up the project it is run in (the git root, like git does), not
/// a parent that happens to have memory.
fn project_root(start: &Path) -> PathBuf {
    Project::for_init(start).root().to_path_buf()
}

impl InitPlan {
    /// Decides what `init` does for `request`.
    pub fn init(request: &InitRequest) -> Result<InitPlan> {
        let home = home()?;
        let root = project_root(&request.start);
        let path_var = crate::env::path_var();
        let bin = match &request.bin {
            Some(path) => given_hook_bin(path),
            None => resolve_hook_bin(
                path_var.as_deref(),
                request.current_exe.as_deref(),
                request.npm_bin.as_deref(),
            ),
        };
        let base = if request.global {
            home.clone()
        } else {
            root.clone()
        };
        let agents = if request.agents.is_empty() {
            detect_agents(&base, |name| {
                path_var
                    .as_deref()
                    .is_some_and(|p| crate::env::find_on_path(p, name).is_some())
            })
        } else {
            request.agents.clone()
        };
        // A config that cannot be read is reported by the commands that use
        // it; init wires the default sources meanwhile.
        let retrieval = Config::load(&Project::at(&root).config_path())
            .map(|c| c.config.retrieval)
            .unwrap_or_else(|_| Config::default().retrieval);
        Ok(InitPlan {
            options: InitOptions {
                agents,
                global: request.global,
                home,
                hook_bin: bin.program.clone(),
                inject_on: retrieval.inject_on,
                on_prompt: retrieval.on_prompt,
                on_file: retrieval.on_file,
                mcp: request.mcp,
            },
            root,
            base,
            bin: Some(bin),
        })
    }

    /// Decides what `uninstall` does: every agent, whatever init was given.
    pub fn uninstall(start: &Path, global: bool) -> Result<InitPlan> {
        let home = home()?;
        let root = project_root(start);
        let base = if global { home.clone() } else { root.clone() };
        Ok(InitPlan {
            options: InitOptions {
                agents: Vec::new(),
                global,
                home,
                hook_bin: String::new(),
                inject_on: Vec::new(),
                on_prompt: false,
                on_file: false,
                mcp: false,
            },
            root,
            base,
            bin: None,
        })
    }

    /// Runs `init` as planned.
    pub fn run_init(self) -> Result<InitReport> {
        let changes = init(&self.root, &self.options)?;
        Ok(InitReport {
            changes,
            base: self.base,
            bin: self.bin,
        })
    }

    /// Runs `uninstall` as planned.
    pub fn run_uninstall(self) -> Result<InitReport> {
        let changes = uninstall(&self.root, &self.options)?;
        Ok(InitReport {
            changes,
            base: self.base,
            bin: None,
        })
    }
}
