//! The hook commands agents run: `retrieve` at session start, `prompt` at
//! each prompt, `file` at each file a tool reads or edits, `subagent` when
//! a subagent starts and `capture` at session end. The core decides what each
//! payload means (`thehook_core::hook`); this carries stdin to it, prints
//! the answer, and starts the detached half. Whatever happens, a hook exits
//! 0 and prints valid JSON or nothing on stdout.

use std::io::Read;
use std::path::Path;

use thehook_core::agents::{HookEvent, HOOK_COMMANDS};
use thehook_core::env;
use thehook_core::hook::{self, HookCall};
use thehook_core::model::SearchPaths;

use crate::args::{CaptureRole, HookArgs};
use crate::exit::Exit;
use crate::output::Output;

/// Whether `args` run a hook command (`thehook [-C DIR] retrieve|prompt|file|subagent|capture ...`).
pub(crate) fn is_hook_invocation(args: &[std::ffi::OsString]) -> bool {
    let mut rest = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(arg) = rest.next() {
        match arg.as_ref() {
            "-C" | "--project-dir" => {
                rest.next();
            }
            flag if flag.starts_with('-') => {}
            "capture" => {
                let has = |flag: &str| {
                    args.iter()
                        .any(|a| a.to_string_lossy().split('=').next() == Some(flag))
                };
                let role = CaptureRole::of(has("--worker"), has("--retry"), has("--transcript"));
                return role != CaptureRole::ByHand;
            }
            command => return HOOK_COMMANDS.contains(&command),
        }
    }
    false
}

/// Carries a hook event to the core's one protocol ([`hook::answer`]):
/// stdin's bytes in; what to print and the detached half to start out.
/// The core parses, decides, logs and fails open.
pub(crate) fn run(
    event: HookEvent,
    start: &Path,
    paths: &SearchPaths,
    args: HookArgs,
    out: &mut Output,
) -> Exit {
    // A panic is the core's to log, never the agent's to show.
    std::panic::set_hook(Box::new(|_| {}));
    if args.background {
        hook::background(start, paths, args.session.as_deref());
        return Exit::Success;
    }
    let mut payload = Vec::new();
    let _ = out.stdin.read_to_end(&mut payload);
    let cwd = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let answer = hook::answer(&HookCall {
        event,
        declared: args.agent,
        payload: &payload,
        cwd: &cwd,
        home: env::home().as_deref(),
        paths,
    });
    if let Some(stdout) = &answer.stdout {
        out.print(stdout);
    }
    out.flush();
    if let (Some(detached), Ok(exe)) = (&answer.detached, std::env::current_exe()) {
        detached.start(&exe);
    }
    // A hook fails open: exit 0, whatever happened.
    Exit::Success
}
