//! The user's own headless LLM CLI (`claude -p`, `cursor-agent -p`, or any
//! command), run with the prompt on stdin. The child never fires thehook's
//! hooks again (`THEHOOK_CHILD=1`, and for claude hooks disabled), runs as a
//! [`Tree`] (a process group, a job object on Windows) that is killed whole
//! on timeout and after it exits (so nothing it started lingers), and dies
//! with the worker on Linux and Windows.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::agents::Agent;
use crate::config::{Llm, LlmCli};
use crate::process::llm_command::{LlmCommand, Output, PromptIn};
use crate::process::Tree;

/// One answer, with what the CLI reported it cost.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub text: String,
    pub usage: Option<Usage>,
}

/// Tokens and cost as the CLI reported them.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub(crate) struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
}

impl Output {
    /// The answer in what the CLI printed.
    fn read(self, printed: String) -> Result<Answer, LlmFailure> {
        match self {
            Output::Text => Ok(Answer {
                text: printed,
                usage: None,
            }),
            Output::ResultJson => read_result_json(&printed),
            Output::EventLines => read_event_lines(&printed),
        }
    }
}

/// `opencode run --format json`: `{"type": "text", "part": {"text"}}` lines
/// make the answer; each `step_finish` part has `tokens` (`input`, `output`,
/// `cache.read`, `cache.write`) and `cost` in dollars.
fn read_event_lines(printed: &str) -> Result<Answer, LlmFailure> {
    let mut text = String::new();
    let mut usage: Option<Usage> = None;
    for event in printed
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        let part = &event["part"];
        match event["type"].as_str() {
            Some("text") => text.push_str(part["text"].as_str().unwrap_or_default()),
            Some("step_finish") => {
                let tokens = &part["tokens"];
                let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
                let u = usage.get_or_insert_with(Usage::default);
                u.input_tokens += n(&tokens["input"])
                    + n(&tokens["cache"]["read"])
                    + n(&tokens["cache"]["write"]);
                u.output_tokens += n(&tokens["output"]);
                if let Some(cost) = part["cost"].as_f64() {
                    *u.cost_usd.get_or_insert(0.0) += cost;
                }
            }
            Some("error") => {
                return Err(LlmFailure::Exit {
                    status: "an error event".into(),
                    stderr: tail(&event["error"].to_string(), 300),
                })
            }
            _ => {}
        }
    }
    if text.trim().is_empty() {
        return Err(LlmFailure::Exit {
            status: "no answer in its events".into(),
            stderr: tail(printed, 300),
        });
    }
    Ok(Answer { text, usage })
}

fn read_result_json(printed: &str) -> Result<Answer, LlmFailure> {
    let garbled = || LlmFailure::Exit {
        status: "no JSON result".into(),
        stderr: tail(printed, 300),
    };
    let v: serde_json::Value = serde_json::from_str(printed.trim()).map_err(|_| garbled())?;
    let text = v
        .get("result")
        .and_then(|r| r.as_str())
        .ok_or_else(garbled)?;
    if v.get("is_error").and_then(|e| e.as_bool()) == Some(true) {
        return Err(LlmFailure::Exit {
            status: "an error result".into(),
            stderr: tail(text, 300),
        });
    }
    Ok(Answer {
        text: text.to_string(),
        usage: reported_usage(&v),
    })
}

/// Tokens as claude reports them (`usage.input_tokens`, cache reads and
/// writes apart, `total_cost_usd`) or as cursor-agent does (`usage.inputTokens`
/// in newer builds, the same at the top level in some, none in older ones;
/// never a cost).
fn reported_usage(v: &serde_json::Value) -> Option<Usage> {
    let usage = v.get("usage").unwrap_or(v);
    let sum = |keys: &[&str]| -> Option<u64> {
        let found: Vec<u64> = keys
            .iter()
            .filter_map(|k| usage.get(*k).and_then(|t| t.as_u64()))
            .collect();
        (!found.is_empty()).then(|| found.iter().sum())
    };
    let input = sum(&[
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "inputTokens",
        "cacheReadTokens",
        "cacheWriteTokens",
    ])?;
    Some(Usage {
        input_tokens: input,
        output_tokens: sum(&["output_tokens", "outputTokens"]).unwrap_or(0),
        cost_usd: v.get("total_cost_usd").and_then(|c| c.as_f64()),
    })
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
    /// `llm.daily_budget` is spent (e.g. `50 of 50 calls`): not called.
    OverBudget(String),
}

impl LlmFailure {
    /// The same failure with any secret in its text replaced.
    pub fn redacted(self) -> LlmFailure {
        let clean = |s: String| crate::text::redact::redact(&s).into_owned();
        match self {
            LlmFailure::Unavailable(why) => LlmFailure::Unavailable(clean(why)),
            LlmFailure::Spawn(why) => LlmFailure::Spawn(clean(why)),
            LlmFailure::Timeout(secs) => LlmFailure::Timeout(secs),
            LlmFailure::OverBudget(spent) => LlmFailure::OverBudget(spent),
            LlmFailure::Exit { status, stderr } => LlmFailure::Exit {
                status,
                stderr: clean(stderr),
            },
        }
    }
}

impl std::error::Error for LlmFailure {}

impl std::fmt::Display for LlmFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmFailure::Unavailable(why) => write!(f, "no LLM CLI: {why}"),
            LlmFailure::Spawn(why) => write!(f, "the LLM CLI could not be started: {why}"),
            LlmFailure::Timeout(secs) => write!(
                f,
                "the LLM CLI gave no answer within {secs} s and was stopped (raise llm.timeout_secs)"
            ),
            LlmFailure::OverBudget(spent) => write!(
                f,
                "today's LLM budget is spent ({spent}; llm.daily_budget): not asked until tomorrow"
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

/// The command `llm` names, looked up on `path_var` (the `PATH` value).
/// With `llm.cli: auto`, the CLI of `agent` (whose session is captured)
/// comes first, then any installed one.
pub(crate) fn resolve(
    llm: &Llm,
    path_var: Option<&OsStr>,
    agent: Option<Agent>,
) -> Result<LlmCommand, LlmFailure> {
    let find = |name: &str| path_var.and_then(|p| crate::env::find_on_path(p, name));
    let installed = |agent: Agent| {
        let cli = &agent.description().distill;
        cli.programs.iter().find_map(|name| {
            find(name).map(|program| (cli.command)(program, name, llm.model.as_deref()))
        })
    };
    let missing = |what: &str| {
        LlmFailure::Unavailable(format!(
            "{what}; install one, or set `llm.cli: command` and `llm.command` in .thehook/config.yaml"
        ))
    };
    match llm.cli {
        LlmCli::Auto => agent
            .into_iter()
            .chain(Agent::ALL)
            .find_map(installed)
            .ok_or_else(|| {
                let every = Agent::ALL.map(|a| {
                    let programs: Vec<String> = a
                        .description()
                        .distill
                        .programs
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect();
                    programs.join("/")
                });
                let every: Vec<&str> = every.iter().map(String::as_str).collect();
                missing(&format!(
                    "none of {} is on PATH",
                    crate::text::either(&every)
                ))
            }),
        LlmCli::Agent(agent) => installed(agent).ok_or_else(|| {
            let (first, others) = agent
                .description()
                .distill
                .programs
                .split_first()
                .expect("a CLI has a program");
            let others: String = others.iter().map(|p| format!(" (or `{p}`)")).collect();
            missing(&format!("`{first}`{others} is not on PATH"))
        }),
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
            Ok(LlmCommand::new(program, args.to_vec(), "command"))
        }
    }
}

/// Most of an answer thehook keeps; a CLI printing more is not answering.
const MAX_ANSWER: u64 = 1 << 20;
/// How long the pipes may stay open after the CLI exited.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Runs `cmd` in `cwd` with `prompt` on stdin and returns its answer.
pub(crate) fn run(
    cmd: &LlmCommand,
    prompt: &str,
    timeout: Duration,
    cwd: &Path,
) -> Result<Answer, LlmFailure> {
    for (file, content) in &cmd.setup {
        if std::fs::read(file).ok().as_deref() != Some(content.as_bytes()) {
            let written = file
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(file, content));
            written.map_err(|e| LlmFailure::Spawn(format!("{}: {e}", file.display())))?;
        }
    }
    let mut command = Command::new(&cmd.program);
    command.args(&cmd.args);
    let stdin_text = match cmd.prompt_in {
        PromptIn::Stdin => prompt,
        PromptIn::LastArgument => {
            command.arg(prompt);
            ""
        }
    };
    command
        .current_dir(cmd.cwd.as_deref().unwrap_or(cwd))
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .env(crate::env::CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Tree::prepare(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| LlmFailure::Spawn(format!("{}: {e}", cmd.program.display())))?;
    let tree = Tree::of(&child);

    let mut stdin = child.stdin.take().expect("stdin is piped");
    let prompt = stdin_text.to_string();
    // A CLI that never reads its stdin must not block the worker.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(prompt.as_bytes());
    });
    let stdout = read_in_background(child.stdout.take().expect("stdout is piped"));
    let stderr = read_in_background(child.stderr.take().expect("stderr is piped"));

    let status = wait_until(&mut child, Instant::now() + timeout);
    // Whatever happened, nothing the CLI started outlives it.
    tree.kill();
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
    let mut answer = cmd
        .output
        .read(String::from_utf8_lossy(&out).into_owned())?;
    if let Some(file) = &cmd.usage_file {
        answer.usage = answer.usage.or_else(|| usage_file(file));
        let _ = std::fs::remove_file(file);
    }
    Ok(answer)
}

/// The tokens in a usage file as Copilot CLI writes it: per model,
/// `modelMetrics.<model>.usage` with `inputTokens`, `outputTokens` and the
/// cache reads and writes (no cost in dollars: premium requests).
fn usage_file(path: &Path) -> Option<Usage> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let models = v.get("modelMetrics")?.as_object()?;
    let per_model: Vec<Usage> = models
        .values()
        .filter_map(|m| reported_usage(m.get("usage")?))
        .collect();
    (!per_model.is_empty()).then(|| Usage {
        input_tokens: per_model.iter().map(|u| u.input_tokens).sum(),
        output_tokens: per_model.iter().map(|u| u.output_tokens).sum(),
        cost_usd: None,
    })
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

// The fake CLIs these tests put on PATH are shell scripts with the
// execute bit (Windows names executables by extension instead).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A PATH holding executables with these names.
    fn path_with(names: &[&str]) -> (tempfile::TempDir, std::ffi::OsString) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in names {
            let file = dir.path().join(name);
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = dir.path().as_os_str().to_owned();
        (dir, path)
    }

    #[test]
    fn auto_asks_the_captured_agents_own_cli_first_then_any() {
        let llm = Llm::default();
        let (_all, all) = path_with(&["claude", "codex", "gemini", "copilot"]);
        let label =
            |path: &std::ffi::OsString, agent| resolve(&llm, Some(path), agent).unwrap().label;
        assert_eq!(label(&all, Some(Agent::Codex)), "codex");
        assert_eq!(label(&all, Some(Agent::Gemini)), "gemini");
        assert_eq!(label(&all, Some(Agent::Copilot)), "copilot");
        let (_oc, opencode_too) = path_with(&["claude", "opencode"]);
        assert_eq!(label(&opencode_too, Some(Agent::Opencode)), "opencode");
        assert_eq!(label(&all, Some(Agent::ClaudeCode)), "claude");
        assert_eq!(label(&all, None), "claude");
        // A Codex-only user: codex, whatever the session.
        let (_codex, codex_only) = path_with(&["codex"]);
        assert_eq!(label(&codex_only, Some(Agent::ClaudeCode)), "codex");
        let none = resolve(&llm, Some(&path_with(&[]).1), None)
            .unwrap_err()
            .to_string();
        assert!(none.contains("`copilot` or `opencode`"), "{none}");
    }

    #[test]
    fn codex_and_gemini_run_as_one_shot_completions_on_their_small_model() {
        let (_dir, path) = path_with(&["codex", "gemini"]);
        let mut llm = Llm {
            cli: LlmCli::Agent(Agent::Codex),
            ..Llm::default()
        };
        let codex = resolve(&llm, Some(&path), None).unwrap();
        assert!(codex
            .args
            .starts_with(&["exec".into(), "--ephemeral".into()]));
        assert!(codex.args.windows(2).any(|w| w == ["--disable", "hooks"]));
        assert_eq!(codex.args.last().map(String::as_str), Some("-"));
        llm.cli = LlmCli::Agent(Agent::Gemini);
        let gemini = resolve(&llm, Some(&path), None).unwrap();
        assert_eq!(gemini.model.as_deref(), Some("flash-lite"));
        assert!(gemini.args.windows(2).any(|w| w == ["-e", "none"]));
        // Its chats are recorded for the folder it runs in: never the project.
        assert!(gemini
            .cwd
            .as_ref()
            .is_some_and(|d| d.starts_with(std::env::temp_dir())));
        // Hooks, tools and MCP servers off in its own folder's settings,
        // read because that folder is trusted; its system prompt replaced.
        let vars: Vec<&str> = gemini.env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(vars, ["GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_SYSTEM_MD"]);
        let dir = gemini.cwd.as_ref().unwrap();
        assert_eq!(gemini.setup[0].0, dir.join(".gemini/settings.json"));
        let (settings, system) = (gemini.setup[0].1, gemini.setup[1].1);
        assert!(settings.contains(r#""hooksConfig":{"enabled":false}"#));
        assert!(settings.contains(r#""tools":{"core":[]}"#));
        assert!(system.starts_with("You turn coding session transcripts"));
        // Codex: its instructions replaced, its tools off, its small model.
        llm.cli = LlmCli::Agent(Agent::Codex);
        let codex = resolve(&llm, Some(&path), None).unwrap();
        assert!(codex
            .args
            .iter()
            .any(|a| a.starts_with("instructions=\"You turn")));
        assert!(codex
            .args
            .windows(2)
            .any(|w| w == ["--disable", "shell_tool"]));
    }
}

#[cfg(test)]
mod result_json_tests {
    use super::*;

    #[test]
    fn tokens_are_read_from_claudes_and_every_cursor_agent_shape() {
        let claude = r#"{"type":"result","is_error":false,"result":"ok","total_cost_usd":0.01,
            "usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}"#;
        let nested = r#"{"type":"result","result":"ok","usage":{"inputTokens":7,"cacheReadTokens":2,"outputTokens":4}}"#;
        let top = r#"{"type":"result","result":"ok","inputTokens":9,"outputTokens":1}"#;
        let none = r#"{"type":"result","subtype":"success","result":"ok","duration_ms":900}"#;
        let usage = |s: &str| read_result_json(s).unwrap().usage;
        assert_eq!(
            usage(claude),
            Some(Usage {
                input_tokens: 15,
                output_tokens: 3,
                cost_usd: Some(0.01)
            })
        );
        assert_eq!(
            usage(nested).map(|u| (u.input_tokens, u.output_tokens)),
            Some((9, 4))
        );
        assert_eq!(
            usage(top).map(|u| (u.input_tokens, u.output_tokens)),
            Some((9, 1))
        );
        // No tokens said: the bill estimates them from bytes, marked so.
        assert_eq!(usage(none), None);
        assert!(read_result_json("Error: not logged in").is_err());
    }
}
