//! opencode (`opencode run`) as the LLM that distils sessions: its one-shot command line.

use std::path::PathBuf;

use crate::agents::llm::{own_folder, strings};
use crate::process::llm_command::{LlmCommand, Output};

/// thehook's agent for `opencode run`: its system prompt instead of
/// opencode's, and every permission denied, which leaves it no tools.
const OPENCODE_CONFIG: &str = r#"{"agent":{"thehook-distill":{"mode":"primary","prompt":"You turn coding session transcripts into project memory. Answer exactly in the format the prompt asks for, nothing else.","permission":{"*":"deny"}}}}"#;

/// `opencode run` on the prompt from stdin: `--pure` (no plugins, so
/// thehook's own never runs inside it), thehook's agent from the inline
/// config (`OPENCODE_CONFIG_CONTENT`, merged over the user's, whose
/// providers stay), a fixed title (no title-generation request), and
/// events as JSON lines, which report tokens and cost. Its model is
/// `llm.model` (`provider/model`), else the user's default. It records a
/// session like any run, in a folder of its own.
pub(super) fn command(program: PathBuf, _found_as: &str, model: Option<&str>) -> LlmCommand {
    let dir = own_folder("thehook-opencode-llm");
    let mut args = strings(&[
        "run",
        "--pure",
        "--title",
        "thehook",
        "--agent",
        "thehook-distill",
        "--format",
        "json",
    ]);
    if let Some(model) = model {
        args.extend(["-m".to_string(), model.to_string()]);
    }
    LlmCommand {
        output: Output::EventLines,
        model: model.map(str::to_string),
        env: vec![
            ("OPENCODE_CONFIG_CONTENT".into(), OPENCODE_CONFIG.into()),
            ("OPENCODE_DISABLE_AUTOUPDATE".into(), "1".into()),
        ],
        setup: vec![(dir.join(".keep"), "")],
        cwd: Some(dir),
        ..LlmCommand::new(program, args, "opencode")
    }
}
