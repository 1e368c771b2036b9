//! The hook commands agents run: `retrieve` at session start and `capture`
//! at session end. They never fail the agent: whatever happens, they exit 0,
//! print valid JSON or nothing on stdout, and log to `.thehook/logs/`.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use thehook_core::agent::{Agent, HookPayload};
use thehook_core::capture::Surroundings;
use thehook_core::embed::SearchPaths;
use thehook_core::queue::{enqueue, Job, JOB_VERSION};
use thehook_core::{logs, retrieve, sweep, Project};

use crate::output::Output;
use crate::{exit, HookArgs};

const LOG: &str = "hooks.log";

/// Whether `args` run a hook command (`thehook [-C DIR] retrieve|capture ...`).
pub fn is_hook_invocation(args: &[std::ffi::OsString]) -> bool {
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
            command => return command == "retrieve",
        }
    }
    false
}

/// Runs a hook body; a panic inside it is logged, never shown to the agent.
fn fail_open(start: &Path, name: &str, body: impl FnOnce() -> i32) -> i32 {
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    let _ = std::panic::take_hook();
    result.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let project = Project::discover(start);
        if project.dir().is_dir() {
            logs::append(&project, LOG, &format!("{name} panicked: {why}"));
        }
        exit::SUCCESS
    })
}

/// A hook started by thehook's own LLM child must do nothing (no recursion).
fn is_child() -> bool {
    std::env::var_os("THEHOOK_CHILD").is_some_and(|v| v == "1")
}

/// The payload; bytes that are not UTF-8 make it unreadable JSON, which
/// the caller logs.
fn read_stdin(out: &mut Output) -> String {
    let mut bytes = Vec::new();
    let _ = out.stdin.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn retrieve(start: &Path, paths: &SearchPaths, args: HookArgs, out: &mut Output) -> i32 {
    fail_open(start, "retrieve", || retrieve_hook(start, paths, args, out))
}

fn retrieve_hook(start: &Path, paths: &SearchPaths, args: HookArgs, out: &mut Output) -> i32 {
    if is_child() {
        return exit::SUCCESS;
    }
    if args.background {
        return background(start, paths, &args);
    }
    let began = Instant::now();
    let stdin = read_stdin(out);
    let cwd = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let result = retrieve::retrieve(
        &stdin,
        args.agent,
        &cwd,
        crate::home_dir().as_deref(),
        paths,
    );
    match result {
        Ok(r) => {
            if let Some(json) = &r.output {
                out.print(&json.to_string());
            }
            out.flush();
            let project = Project::discover(r.project.as_deref().unwrap_or(&cwd));
            if project.dir().is_dir() {
                logs::append(
                    &project,
                    LOG,
                    &format!("retrieve {} ({} ms)", r.log, began.elapsed().as_millis()),
                );
            }
            if let (Some(root), true) = (&r.project, r.background && background_allowed()) {
                spawn_background(root, r.agent, r.session_id.as_deref());
            }
        }
        Err(e) => {
            let project = Project::discover(&cwd);
            if project.dir().is_dir() {
                logs::append(&project, LOG, &format!("retrieve failed: {e}"));
            }
        }
    }
    exit::SUCCESS
}

/// `THEHOOK_BACKGROUND=0` keeps retrieve from starting its background half
/// (benchmarks of the foreground use it).
fn background_allowed() -> bool {
    std::env::var_os("THEHOOK_BACKGROUND").is_none_or(|v| v != "0")
}

/// Starts `thehook retrieve --background` detached.
fn spawn_background(root: &Path, agent: Option<Agent>, session: Option<&str>) {
    let mut args: Vec<&str> = vec!["retrieve", "--background"];
    if let Some(agent) = agent {
        args.extend(["--agent", agent.as_str()]);
    }
    if let Some(session) = session {
        args.extend(["--session", session]);
    }
    spawn_detached(root, &args);
}

/// Starts `thehook -C <root> <args>` fully detached: its own process group,
/// no stdio, so the agent neither waits for it nor signals it, and it
/// outlives the agent.
fn spawn_detached(root: &Path, args: &[&str]) {
    use std::os::unix::process::CommandExt;
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("-C").arg(root).args(args);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    let _ = cmd.spawn();
}

/// The slow half of session start, where nobody waits: embeds the context
/// query for next time and sweeps for uncaptured sessions.
fn background(start: &Path, paths: &SearchPaths, args: &HookArgs) -> i32 {
    let project = Project::discover(start);
    if !project.dir().is_dir() {
        return exit::SUCCESS;
    }
    let began = Instant::now();
    let warmed =
        retrieve::warm(project.root(), paths).unwrap_or_else(|e| format!("warming failed: {e}"));
    let swept = match crate::home_dir() {
        Some(home) => match sweep::sweep(
            &project,
            &home,
            args.session.as_deref(),
            std::time::SystemTime::now(),
        ) {
            Ok(found) if found.is_empty() => "no uncaptured sessions".to_string(),
            Ok(found) => format!(
                "queued {} uncaptured session(s): {}",
                found.len(),
                found
                    .iter()
                    .map(|f| f.session_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!("sweep failed: {e}"),
        },
        None => "no HOME: no sweep".to_string(),
    };
    // Sessions the sweep (or an earlier hook) queued are captured here,
    // where nobody waits.
    let captured = if thehook_core::capture::queued_jobs(&project).is_empty() {
        String::new()
    } else {
        match thehook_core::capture::run_worker(&project, paths, &Surroundings::from_process()) {
            Ok(run) if run.busy => "; the capture worker is busy".to_string(),
            Ok(run) => format!(
                "; capture worker: {}",
                thehook_core::capture::summary(&run.outcomes)
            ),
            Err(e) => format!("; capture worker failed: {e}"),
        }
    };
    logs::append(
        &project,
        LOG,
        &format!(
            "retrieve --background: {warmed}; {swept}{captured} ({} ms)",
            began.elapsed().as_millis()
        ),
    );
    exit::SUCCESS
}

/// The session-end hook: queues the session, starts the capture worker
/// (`thehook capture --worker`) detached, and returns at once.
pub fn capture(start: &Path, args: HookArgs, out: &mut Output) -> i32 {
    fail_open(start, "capture", || capture_hook(start, args, out))
}

fn capture_hook(start: &Path, args: HookArgs, out: &mut Output) -> i32 {
    if is_child() {
        return exit::SUCCESS;
    }
    let stdin = read_stdin(out);
    let cwd = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let payload = match HookPayload::parse(&stdin, args.agent) {
        Ok(p) => p,
        Err(why) => {
            let project = Project::discover(&cwd);
            if project.dir().is_dir() {
                logs::append(
                    &project,
                    LOG,
                    &format!("capture ignored the payload: {why}"),
                );
            }
            return exit::SUCCESS;
        }
    };
    let project = Project::discover(payload.cwd.as_deref().unwrap_or(&cwd));
    if !project.dir().is_dir() {
        return exit::SUCCESS;
    }
    let line = match (&payload.session_id, args.agent) {
        // A config that cannot be read does not lose the session: it is queued.
        _ if !thehook_core::queue::capture_enabled(&project).unwrap_or(true) => {
            "capture: capture.enabled is off".to_string()
        }
        // Cursor also runs Claude Code's hooks: its own sessionEnd hook captures.
        (_, Some(Agent::ClaudeCode))
            if payload.agent == Agent::Cursor
                && thehook_core::agent::cursor_runs_thehook(
                    project.root(),
                    crate::home_dir().as_deref(),
                ) =>
        {
            "capture: Cursor ran Claude Code's hook; its own sessionEnd hook captures".to_string()
        }
        (None, _) => "capture: the payload has no session_id".to_string(),
        (Some(id), _) => {
            let job = Job {
                version: JOB_VERSION,
                session_id: id.clone(),
                agent: payload.agent,
                transcript_path: payload.transcript_path.clone(),
                cwd: payload.cwd.clone(),
                origin: "hook".into(),
                queued_at: jiff::Timestamp::now().to_string(),
                reason: payload.reason.clone(),
            };
            let queued = enqueue(&project, &job);
            if queued.is_ok() && background_allowed() {
                spawn_detached(project.root(), &["capture", "--worker"]);
            }
            match queued {
                Ok(true) => format!("capture: queued {} session {id}", payload.agent),
                Ok(false) => format!("capture: updated the queued job of session {id}"),
                Err(e) => format!("capture: could not queue session {id}: {e}"),
            }
        }
    };
    logs::append(&project, LOG, &line);
    exit::SUCCESS
}
