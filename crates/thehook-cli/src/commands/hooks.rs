//! The hook commands agents run: `retrieve` at session start, `prompt` at
//! each prompt and `capture` at session end. The core decides what each payload means; this reads
//! stdin, prints the answer, and starts the detached halves. Whatever
//! happens, a hook exits 0 and prints valid JSON or nothing on stdout.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use thehook_core::agents::{Agent, HOOK_COMMANDS};
use thehook_core::capture::hook::{session_end, HOOK_LOG};
use thehook_core::capture::Surroundings;
use thehook_core::inject::background::session_start_background;
use thehook_core::inject::{prompt, retrieve};
use thehook_core::memory::embed::SearchPaths;
use thehook_core::{env, logs, Project};

use super::start_detached;
use crate::args::HookArgs;
use crate::output::Output;
use crate::Exit;

/// Whether `args` run a hook command (`thehook [-C DIR] retrieve|prompt|capture ...`).
pub(crate) fn is_hook_invocation(args: &[std::ffi::OsString]) -> bool {
    let mut rest = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(arg) = rest.next() {
        match arg.as_ref() {
            "-C" | "--project-dir" => {
                rest.next();
            }
            flag if flag.starts_with('-') => {}
            // `capture --retry` and `--transcript` are typed by a person.
            "capture" => {
                return !args.iter().any(|a| {
                    let a = a.to_string_lossy();
                    a == "--retry" || a.starts_with("--transcript")
                })
            }
            command => return HOOK_COMMANDS.contains(&command),
        }
    }
    false
}

/// Runs a hook body; a panic inside it is logged, never shown to the agent.
fn fail_open(start: &Path, name: &str, body: impl FnOnce() -> Exit) -> Exit {
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    let _ = std::panic::take_hook();
    result.unwrap_or_else(|panic| {
        let why = thehook_core::error::panic_message(panic.as_ref());
        let project = Project::discover(start);
        if project.dir().is_dir() {
            logs::append(&project, HOOK_LOG, &format!("{name} panicked: {why}"));
        }
        Exit::Success
    })
}

/// The payload; bytes that are not UTF-8 make it unreadable JSON, which
/// the core logs.
fn read_stdin(out: &mut Output) -> String {
    let mut bytes = Vec::new();
    let _ = out.stdin.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

fn absolute(start: &Path) -> std::path::PathBuf {
    std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf())
}

pub(crate) fn retrieve(
    start: &Path,
    paths: &SearchPaths,
    args: HookArgs,
    out: &mut Output,
) -> Exit {
    fail_open(start, "retrieve", || {
        if env::is_child() {
            return Exit::Success;
        }
        if args.background {
            session_start_background(
                start,
                paths,
                args.session.as_deref(),
                &Surroundings::from_process(),
            );
            return Exit::Success;
        }
        session_start(start, paths, args.agent, out);
        Exit::Success
    })
}

fn session_start(start: &Path, paths: &SearchPaths, agent: Option<Agent>, out: &mut Output) {
    let began = Instant::now();
    let stdin = read_stdin(out);
    let cwd = absolute(start);
    match retrieve::retrieve(&stdin, agent, &cwd, env::home().as_deref(), paths) {
        Ok(r) => {
            if let Some(json) = &r.output {
                out.print(&json.to_string());
            }
            out.flush();
            let project = Project::discover(r.project.as_deref().unwrap_or(&cwd));
            if project.dir().is_dir() {
                let line = format!("retrieve {} ({} ms)", r.log, began.elapsed().as_millis());
                logs::append(&project, HOOK_LOG, &line);
            }
            if let (Some(root), true) = (&r.project, r.background) {
                let mut args: Vec<&str> = vec!["retrieve", "--background"];
                if let Some(agent) = r.agent {
                    args.extend(["--agent", agent.as_str()]);
                }
                if let Some(session) = r.session_id.as_deref() {
                    args.extend(["--session", session]);
                }
                start_detached(root, &args);
            }
        }
        Err(e) => {
            let project = Project::discover(&cwd);
            if project.dir().is_dir() {
                logs::append(&project, HOOK_LOG, &format!("retrieve failed: {e}"));
            }
        }
    }
}

/// The prompt hook: memory relevant to the prompt that the session was not
/// given yet, or nothing.
pub(crate) fn on_prompt(
    start: &Path,
    paths: &SearchPaths,
    args: HookArgs,
    out: &mut Output,
) -> Exit {
    fail_open(start, "prompt", || {
        if env::is_child() {
            return Exit::Success;
        }
        let began = Instant::now();
        let stdin = read_stdin(out);
        let cwd = absolute(start);
        let (log, project) = match prompt::on_prompt(&stdin, args.agent, &cwd, paths) {
            Ok(p) => {
                if let Some(json) = &p.output {
                    out.print(&json.to_string());
                }
                out.flush();
                (p.log, p.project)
            }
            Err(e) => (format!("prompt failed: {e}"), None),
        };
        let project = Project::discover(project.as_deref().unwrap_or(&cwd));
        if project.dir().is_dir() {
            let line = format!("{log} ({} ms)", began.elapsed().as_millis());
            logs::append(&project, HOOK_LOG, &line);
        }
        Exit::Success
    })
}

/// The session-end hook: queues the session, starts the capture worker
/// (`thehook capture --worker`) detached, and returns at once.
pub(crate) fn capture(start: &Path, args: HookArgs, out: &mut Output) -> Exit {
    fail_open(start, "capture", || {
        if env::is_child() {
            return Exit::Success;
        }
        let stdin = read_stdin(out);
        let decided = session_end(&stdin, args.agent, &absolute(start), env::home().as_deref());
        if let (Some(root), true) = (&decided.project, decided.start_worker) {
            start_detached(root, &["capture", "--worker"]);
        }
        Exit::Success
    })
}
