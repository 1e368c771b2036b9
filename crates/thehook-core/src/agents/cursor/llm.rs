//! cursor-agent (`cursor-agent -p`) as the LLM that distils sessions: its one-shot command line.

use std::path::PathBuf;

use crate::agents::llm::{own_folder, strings};
use crate::process::llm_command::{LlmCommand, Output, PromptIn};

/// cursor-agent's model unless `llm.model` names one: Cursor's router,
/// the one every plan may use (model ids differ by account, and an unknown
/// one fails the call).
const CURSOR_DEFAULT_MODEL: &str = "auto";

/// `cursor-agent -p` in ask mode (read-only: no edits, no shell), without
/// `--force` or `--approve-mcps`, in an empty folder of its own (trusted,
/// so print mode does not stop to ask), where no project rules, AGENTS.md,
/// MCP servers or project hooks are found; the answer as JSON, which
/// reports tokens in newer builds. The prompt is its last argument: users
/// report that `-p` ignores piped stdin (the prompt, at most about 23 KB,
/// is within every platform's argument limit). From Cursor's CLI
/// documentation and other projects' wrappers: cursor-agent is not on npm
/// and was not run here.
pub(super) fn command(program: PathBuf, label: &str, model: Option<&str>) -> LlmCommand {
    let dir = own_folder("thehook-cursor-llm");
    let model = model.unwrap_or(CURSOR_DEFAULT_MODEL);
    let workspace = dir.to_string_lossy().into_owned();
    let args = strings(&[
        "-p",
        "--output-format",
        "json",
        "--mode",
        "ask",
        "--trust",
        "--model",
        model,
        "--workspace",
        &workspace,
    ]);
    LlmCommand {
        output: Output::ResultJson,
        model: Some(model.to_string()),
        setup: vec![(dir.join(".keep"), "")],
        cwd: Some(dir),
        prompt_in: PromptIn::LastArgument,
        ..LlmCommand::new(program, args, label)
    }
}
