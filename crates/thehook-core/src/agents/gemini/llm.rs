//! Gemini CLI (`gemini -p`) as the LLM that distils sessions: its one-shot command line.

use std::path::PathBuf;

use crate::agents::llm::{own_folder, path_string, strings, SYSTEM};
use crate::process::llm_command::LlmCommand;

/// Gemini CLI's small model.
const GEMINI_SMALL_MODEL: &str = "flash-lite";

/// Settings for Gemini CLI as thehook's LLM: no hooks, no tools (an empty
/// allowlist), no MCP server (an allowlist naming none that exists), no
/// skills, no folder listing.
const GEMINI_SETTINGS: &str = r#"{"hooksConfig":{"enabled":false},"tools":{"core":[]},"mcp":{"allowed":["thehook-no-mcp"]},"skills":{"enabled":false},"context":{"includeDirectoryTree":false}}"#;

/// `gemini -p ""` reads the prompt from stdin and prints the answer. It
/// always records a chat for the folder it runs in, so it runs in a folder
/// of its own, whose `.gemini/settings.json` holds the settings above; that
/// folder is trusted for the call (`GEMINI_CLI_TRUST_WORKSPACE`), as an
/// untrusted folder's settings are not read. (System settings, which need
/// no trust, are read only from a file that root owns in folders only root
/// can write: Gemini CLI 0.61 skips any other with a security warning.)
/// `GEMINI_SYSTEM_MD` replaces its 30 KB system prompt, `-e none` loads no
/// extension. Still sent: the user's global `~/.gemini/GEMINI.md` and about
/// 250 bytes of session context (date, OS, folder).
pub(super) fn command(program: PathBuf, _found_as: &str, model: Option<&str>) -> LlmCommand {
    let dir = own_folder("thehook-gemini-llm");
    let settings = dir.join(".gemini").join("settings.json");
    let system = dir.join("system.md");
    let model = model.unwrap_or(GEMINI_SMALL_MODEL);
    let args = strings(&["-m", model, "-e", "none", "-p", ""]);
    LlmCommand {
        model: Some(model.to_string()),
        env: vec![
            (super::GEMINI_CLI_TRUST_WORKSPACE.into(), "true".into()),
            ("GEMINI_SYSTEM_MD".into(), path_string(&system)),
        ],
        setup: vec![(settings, GEMINI_SETTINGS), (system, SYSTEM)],
        cwd: Some(dir),
        ..LlmCommand::new(program, args, "gemini")
    }
}
