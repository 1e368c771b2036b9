//! Claude Code (`claude -p`) as the LLM that distils sessions: its one-shot command line.

use std::path::PathBuf;

use crate::agents::llm::{strings, SYSTEM};
use crate::process::llm_command::{LlmCommand, Output};

/// Claude Code's small model, for a task that is summarising text.
const CLAUDE_SMALL_MODEL: &str = "haiku";

/// `claude -p`: no tools, no MCP servers, no slash commands, no project or
/// local settings (the user's own settings stay: they may hold how the user
/// authenticates), no hooks, no session saved, and the answer as JSON,
/// which reports tokens and cost. Plain `claude -p` sent 7.0x the prompt on
/// the default (Opus) model; these flags 1.24x on `claude-haiku-5-5`.
pub(super) fn command(program: PathBuf, _found_as: &str, model: Option<&str>) -> LlmCommand {
    let model = model.unwrap_or(CLAUDE_SMALL_MODEL);
    let args = strings(&[
        "-p",
        "--model",
        model,
        "--system-prompt",
        SYSTEM,
        "--tools",
        "",
        "--strict-mcp-config",
        "--setting-sources",
        "user",
        "--disable-slash-commands",
        "--settings",
        r#"{"disableAllHooks":true}"#,
        "--no-session-persistence",
        "--output-format",
        "json",
    ]);
    LlmCommand {
        output: Output::ResultJson,
        model: Some(model.to_string()),
        ..LlmCommand::new(program, args, "claude")
    }
}
