//! The user's own headless LLM CLI (`claude -p`, `cursor-agent -p`, or any
//! command), run with the prompt on stdin. The child never fires thehook's
//! hooks again (`THEHOOK_CHILD=1`, and for claude hooks disabled), runs in a
//! process group of its own that is killed whole on timeout and after it
//! exits (so nothing it started lingers), and on Linux dies with the worker.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::{Llm, LlmCli};

/// A resolved LLM command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// What to call it in logs and messages (`claude`, `command`).
    pub label: String,
}

/// Why no answer came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmFailure {
    /// No CLI to run; the text says what was looked for and the fix.
    Unavailable(String),
    /// The program could not be started.
    Spawn(String),
    /// No answer within `llm.timeout_secs`; the child's group was killed.
    Timeout(u64),
    /// It exited with a failure status; the last lines it printed on stderr.
    Exit { status: String, stderr: String },
}

impl LlmFailure {
    /// The same failure with any secret in its text replaced.
    pub fn redacted(self) -> LlmFailure {
        let clean = |s: String| crate::capture::redact::redact(&s).into_owned();
        match self {
            LlmFailure::Unavailable(why) => LlmFailure::Unavailable(clean(why)),
            LlmFailure::Spawn(why) => LlmFailure::Spawn(clean(why)),
            LlmFailure::Timeout(secs) => LlmFailure::Timeout(secs),
            LlmFailure::Exit { status, stderr } => LlmFailure::Exit {
                status,
                stderr: clean(stderr),
            },
        }
    }
}

impl std::fmt::Display for LlmFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmFailure::Unavailable(why) => write!(f, "no LLM CLI: {why}"),
            LlmFailure::Spawn(why) => write!(f, "the LLM CLI could not be started: {why}"),
            LlmFailure::Timeout(secs) => write!(
                f,
                "the LLM CLI gave no answer within {secs} s and was stopped (raise llm.timeout_secs)"
            ),
            LlmFailure::Exit { status, stderr } if stderr.is_empty() => {
                write!(f, "the LLM CLI failed ({status})")
            }
            LlmFailure::Exit { status, stderr } => {
                write!(f, "the LLM CLI failed ({status}): {stderr}")
            }
        }
    }
}

/// Claude Code in print mode, without hooks and without saving the run as
/// a session of its own.
const CLAUDE_ARGS: &[&str] = &[
    "-p",
    "--output-format",
    "text",
    "--settings",
    r#"{"disableAllHooks":true}"#,
    "--no-session-persistence",
];
const CURSOR_ARGS: &[&str] = &["-p", "--output-format", "text"];

/// The command `llm` names, looked up on `path_var` (the `PATH` value).
pub fn resolve(llm: &Llm, path_var: Option<&OsStr>) -> Result<LlmCommand, LlmFailure> {
    let find = |name: &str| path_var.and_then(|p| crate::env::find_on_path(p, name));
    let claude = || {
        find("claude").map(|program| LlmCommand {
            program,
            args: CLAUDE_ARGS.iter().map(|s| s.to_string()).collect(),
            label: "claude".into(),
        })
    };
    let cursor = || {
        ["cursor-agent", "agent"].iter().find_map(|name| {
            find(name).map(|program| LlmCommand {
                program,
                args: CURSOR_ARGS.iter().map(|s| s.to_string()).collect(),
                label: name.to_string(),
            })
        })
    };
    let missing = |what: &str| {
        LlmFailure::Unavailable(format!(
            "{what}; install one, or set `llm.cli: command` and `llm.command` in .thehook/config.yaml"
        ))
    };
    match llm.cli {
        LlmCli::Auto => claude()
            .or_else(cursor)
            .ok_or_else(|| missing("neither `claude` nor `cursor-agent`/`agent` is on PATH")),
        LlmCli::Claude => claude().ok_or_else(|| missing("`claude` is not on PATH")),
        LlmCli::CursorAgent => {
            cursor().ok_or_else(|| missing("`cursor-agent` (or `agent`) is not on PATH"))
        }
        LlmCli::Command => {
            let Some((program, args)) = llm.command.split_first() else {
                return Err(LlmFailure::Unavailable(
                    "llm.cli is `command` but llm.command is empty; give the argv, e.g. [\"my-llm\", \"--quiet\"]"
                        .into(),
                ));
            };
            let program = if program.contains('/') {
                Some(PathBuf::from(program))
            } else {
                find(program)
            };
            let program = program.ok_or_else(|| {
                missing(&format!(
                    "`{}` (llm.command) is not on PATH",
                    llm.command[0]
                ))
            })?;
            Ok(LlmCommand {
                program,
                args: args.to_vec(),
                label: "command".into(),
            })
        }
    }
}

/// Most of an answer thehook keeps; a CLI printing more is not answering.
const MAX_ANSWER: u64 = 1 << 20;
/// How long the pipes may stay open after the CLI exited.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Runs `cmd` in `cwd` with `prompt` on stdin and returns what it printed.
pub fn run(
    cmd: &LlmCommand,
    prompt: &str,
    timeout: Duration,
    cwd: &Path,
) -> Result<String, LlmFailure> {
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .current_dir(cwd)
        .env(crate::env::CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    detach(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| LlmFailure::Spawn(format!("{}: {e}", cmd.program.display())))?;
    let group = child.id() as i32;

    let mut stdin = child.stdin.take().expect("stdin is piped");
    let prompt = prompt.to_string();
    // A CLI that never reads its stdin must not block the worker.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(prompt.as_bytes());
    });
    let stdout = read_in_background(child.stdout.take().expect("stdout is piped"));
    let stderr = read_in_background(child.stderr.take().expect("stderr is piped"));

    let status = wait_until(&mut child, Instant::now() + timeout);
    // Whatever happened, nothing the CLI started outlives it.
    kill_group(group);
    let status = match status {
        Some(s) => s,
        None => {
            let _ = child.wait();
            return Err(LlmFailure::Timeout(timeout.as_secs()));
        }
    };
    drop(writer);
    let out = stdout.recv_timeout(PIPE_GRACE).unwrap_or_default();
    let err = stderr.recv_timeout(PIPE_GRACE).unwrap_or_default();
    if !status.success() {
        return Err(LlmFailure::Exit {
            status: status.to_string(),
            stderr: tail(&String::from_utf8_lossy(&err), 300),
        });
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The child leads a process group of its own (the agent's terminal
/// signals do not reach it, and a timeout kills everything it started);
/// on Linux it is killed when the worker dies. (The death signal follows
/// the spawning *thread*: spawn from a thread that lives as long as the
/// wait, as [`run`] does by waiting on the thread that spawned.)
fn detach(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

fn kill_group(group: i32) {
    // SAFETY: a plain syscall; a group that is gone already gives ESRCH.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => return None,
        }
    }
}

/// Reads a pipe on a thread. The result is awaited for a bounded time: a
/// process that left the group could hold the pipe open for ever.
fn read_in_background(pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.take(MAX_ANSWER).read_to_end(&mut buf);
        let _ = send.send(buf);
    });
    receive
}

/// The last `max` characters of `s`, trimmed, on one line.
fn tail(s: &str, max: usize) -> String {
    let s = s.trim();
    let start = s.char_indices().rev().nth(max).map_or(0, |(i, _)| i);
    s[start..].split_whitespace().collect::<Vec<_>>().join(" ")
}
