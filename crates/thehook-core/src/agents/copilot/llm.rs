//! Copilot CLI (`copilot -s`, the prompt on stdin) as the LLM that distils sessions: its one-shot
//! command line.

use std::path::PathBuf;

use crate::agents::llm::{own_folder, path_string, strings};
use crate::process::llm_command::LlmCommand;

/// Copilot CLI's small model ("gpt-5-mini" in `copilot help config`).
const COPILOT_SMALL_MODEL: &str = "gpt-5-mini";

/// Copilot CLI's tools, all of which `--excluded-tools` takes away (1.0.102
/// offered 17 to a model; the rest are its own bookkeeping).
const COPILOT_TOOLS: &[&str] = &[
    "bash",
    "read_bash",
    "write_bash",
    "stop_bash",
    "list_bash",
    "view",
    "create",
    "edit",
    "grep",
    "glob",
    "task",
    "sql",
    "session_store_sql",
    "skill",
    "web_fetch",
    "fetch_copilot_cli_documentation",
    "read_agent",
    "list_agents",
    "write_agent",
];

/// `copilot -s`, the prompt piped on stdin (which it runs as `-p` does):
/// only the answer on stdout, no custom instructions (AGENTS.md, the
/// repository's), no built-in MCP servers, no questions, no update check,
/// its tools excluded, and the tokens written to a usage file (its JSON
/// output reports premium requests, not tokens; a BYOK provider reports no
/// cost). It records every run as a session and runs the user's hooks, so
/// it runs in a folder of its own (the sweep never takes it for the
/// project's, and no repository hooks load) and thehook's hooks skip it
/// (`THEHOOK_CHILD`). Still sent: its 9 KB system prompt, which no switch
/// replaces.
pub(super) fn command(program: PathBuf, _found_as: &str, model: Option<&str>) -> LlmCommand {
    let dir = own_folder("thehook-copilot-llm");
    let usage = dir.join(format!("usage-{}.json", std::process::id()));
    let model = model.unwrap_or(COPILOT_SMALL_MODEL);
    let mut args = strings(&[
        "-s",
        "--model",
        model,
        "--no-custom-instructions",
        "--no-ask-user",
        "--disable-builtin-mcps",
        "--no-auto-update",
        "--usage-output-file",
        &path_string(&usage),
        "--excluded-tools",
    ]);
    args.extend(strings(COPILOT_TOOLS));
    LlmCommand {
        model: Some(model.to_string()),
        setup: vec![(dir.join(".keep"), "")],
        cwd: Some(dir),
        usage_file: Some(usage),
        ..LlmCommand::new(program, args, "copilot")
    }
}
