//! The one hook protocol. An agent's hook event (session start, a prompt,
//! a file tool call, a subagent's start, session end) comes in: which event, the
//! agent the hook was written for, the payload's bytes, where it runs. The
//! answer goes out: what to print, the log line, the detached half to
//! start; the front end exits 0 whatever it is (a hook fails open). Reading the payload, finding the project, checking its
//! layout, the echo of another agent's hook, the log line and failing open
//! happen here, once, for every event; the CLI and the Node addon only carry
//! the bytes and start the process.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::agents::{Agent, HookEvent, HookPayload};
use crate::capture::hook::{session_end, HOOK_LOG};
use crate::capture::Surroundings;
use crate::inject::{file, prompt, session_start, subagent, Added};
use crate::model::SearchPaths;
use crate::project::Project;
use crate::{env, logs};

/// One hook event as an agent sent it.
pub struct HookCall<'a> {
    pub event: HookEvent,
    /// The agent the hook command was written for (`--agent`); the
    /// payload's shape overrules it.
    pub declared: Option<Agent>,
    /// The hook's stdin.
    pub payload: &'a [u8],
    /// Where the hook runs, for a payload that names no `cwd`.
    pub cwd: &'a Path,
    /// Where user-level agent settings live.
    pub home: Option<&'a Path>,
    pub paths: &'a SearchPaths,
}

/// What a hook answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookAnswer {
    /// What to print on stdout: the agent's JSON, or nothing.
    pub stdout: Option<String>,
    /// The line for the project's hook log, written already when the
    /// project has memory; empty when a hook of thehook's own LLM CLI ran.
    pub log: String,
    /// The detached half to start.
    pub detached: Option<Detached>,
}

/// A process to start detached: `thehook -C <root> <args>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    pub root: PathBuf,
    pub args: Vec<String>,
}

impl Detached {
    /// Starts it with `exe` (the native binary), unless the environment
    /// says not to (`THEHOOK_BACKGROUND=0`).
    pub fn start(&self, exe: &Path) {
        if env::background_allowed() {
            let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
            crate::process::spawn_detached(exe, &self.root, &args);
        }
    }
}

/// Answers one hook event, and logs what it decided in the project's hook
/// log. Never fails and never panics: what goes wrong is logged.
pub fn answer(call: &HookCall) -> HookAnswer {
    if env::is_child() {
        return HookAnswer::default();
    }
    let began = Instant::now();
    let decided = fail_open(|| decide(call)).unwrap_or_else(|why| Decided {
        log: format!("panicked: {why}"),
        ..Decided::default()
    });
    let prefix = match call.event {
        HookEvent::SessionStart => "retrieve ",
        HookEvent::Prompt => "prompt: ",
        HookEvent::FileTouch => "file: ",
        HookEvent::SubagentStart => "subagent: ",
        HookEvent::SessionEnd => "capture: ",
    };
    let log = format!(
        "{prefix}{} ({} ms)",
        decided.log,
        began.elapsed().as_millis()
    );
    // The project decide found has memory: no second walk up the folders.
    match &decided.project {
        Some(root) => logs::append(&Project::at(root), HOOK_LOG, &log),
        None => append_log(call.cwd, &log),
    }
    HookAnswer {
        stdout: decided.stdout,
        log,
        detached: decided.detached,
    }
}

/// The session-start hook's detached half (`retrieve --background`):
/// warm the caches, sweep, capture what waits. Fails open like the hooks.
pub fn background(cwd: &Path, paths: &SearchPaths, session: Option<&str>) {
    if env::is_child() {
        return;
    }
    let around = Surroundings::from_process();
    if let Err(why) = fail_open(|| session_start::background::run(cwd, paths, session, &around)) {
        append_log(cwd, &format!("retrieve panicked: {why}"));
    }
}

/// What one event decided.
#[derive(Default)]
struct Decided {
    /// The project, when it has memory.
    project: Option<PathBuf>,
    stdout: Option<String>,
    log: String,
    detached: Option<Detached>,
}

fn decide(call: &HookCall) -> Decided {
    let said = |project: Option<&Path>, log: String| Decided {
        project: project.map(Path::to_path_buf),
        log,
        ..Decided::default()
    };
    let stdin = String::from_utf8_lossy(call.payload);
    let payload = match HookPayload::parse(&stdin, call.declared) {
        Ok(payload) => payload,
        Err(why) => return said(None, format!("ignored the payload: {why}")),
    };
    let mut project = Project::discover(payload.cwd.as_deref().unwrap_or(call.cwd));
    match project.find_layout() {
        Ok(true) => {}
        Ok(false) => {
            let root = project.root().display();
            return said(None, format!("no .thehook/ at {root}"));
        }
        Err(e) => return said(None, format!("failed: {e}")),
    }
    let root = project.root();
    if let Some(echo) = payload.echo(call.declared, call.event, root, call.home) {
        return said(Some(root), echo);
    }
    let detached = |args: Vec<&str>| Detached {
        root: root.to_path_buf(),
        args: args.into_iter().map(str::to_string).collect(),
    };
    // Context to print, or nothing, and a log line.
    let added = |answer: crate::error::Result<Added>| match answer {
        Ok(a) => Decided {
            project: Some(root.to_path_buf()),
            stdout: a.output.map(|json| json.to_string()),
            log: a.log,
            detached: None,
        },
        Err(e) => said(Some(root), format!("failed: {e}")),
    };
    match call.event {
        HookEvent::SessionStart => {
            let answer = session_start::on_session_start(&payload, &project, call.paths);
            let answered = answer.is_ok();
            let mut decided = added(answer);
            // The slow half runs after every answer, whatever it gave.
            if answered {
                let mut args = vec![
                    "retrieve",
                    "--background",
                    "--agent",
                    payload.agent.as_str(),
                ];
                if let Some(session) = payload.session_id.as_deref() {
                    args.extend(["--session", session]);
                }
                decided.detached = Some(detached(args));
            }
            decided
        }
        HookEvent::Prompt => added(prompt::on_prompt(&payload, &project, call.paths)),
        HookEvent::FileTouch => added(file::on_file(&payload, &project, call.paths)),
        HookEvent::SubagentStart => added(subagent::on_subagent(&payload, &project, call.paths)),
        HookEvent::SessionEnd => {
            let ended = session_end(&payload, &project);
            Decided {
                project: Some(root.to_path_buf()),
                stdout: None,
                log: ended.log,
                detached: ended
                    .start_worker
                    .then(|| detached(vec!["capture", "--worker"])),
            }
        }
    }
}

/// A panic caught in a hook, by its message.
#[derive(Debug)]
struct Panicked(String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs `body`; a panic inside it is caught.
fn fail_open<T>(body: impl FnOnce() -> T) -> Result<T, Panicked> {
    std::panic::catch_unwind(AssertUnwindSafe(body))
        .map_err(|panic| Panicked(crate::error::panic_message(panic.as_ref())))
}

/// Appends to the hook log of the project at or above `start`, if it has memory.
fn append_log(start: &Path, line: &str) {
    let project = Project::discover(start);
    if project.dir().is_dir() {
        logs::append(&project, HOOK_LOG, line);
    }
}
