//! Each agent CLI as a one-shot completion of thehook's prompt: its small
//! model unless `llm.model` names one, a one-line system prompt instead of
//! the agent's own, no tools, no MCP servers, no hooks, nothing of the
//! project's (rules, AGENTS.md, settings), no session saved where thehook's
//! sweep would find it. The switches are the real CLIs', found in their
//! bundled code and measured against the agent suite's mock server with a
//! 3,000-byte prompt (request bytes sent, before -> after):
//!
//! | CLI | before | after |
//! |---|---:|---:|
//! | Claude Code 2.1.328 (8,166-byte prompt) | 57,184 | 10,150 |
//! | Codex 0.169.0 | 42,573 | 4,786 |
//! | Gemini CLI 0.61.0 | 41,790 | 3,740 |

use std::path::{Path, PathBuf};

use super::{LlmCommand, Output, PromptIn};

/// The system prompt that replaces each agent's own: the task is all in
/// thehook's prompt.
const SYSTEM: &str = "You turn coding session transcripts into project memory. Answer exactly in the format the prompt asks for, nothing else.";

/// A folder of thehook's own under the temp folder, for a CLI that must not
/// run in the project (it would record a session there, or read its rules).
fn own_folder(name: &str) -> PathBuf {
    std::env::temp_dir().join(name)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Claude Code's small model, for a task that is summarising text.
const CLAUDE_SMALL_MODEL: &str = "haiku";

/// `claude -p`: no tools, no MCP servers, no slash commands, no project or
/// local settings (the user's own settings stay: they may hold how the user
/// authenticates), no hooks, no session saved, and the answer as JSON,
/// which reports tokens and cost. Plain `claude -p` sent 7.0x the prompt on
/// the default (Opus) model; these flags 1.24x on `claude-haiku-5-5`.
pub(super) fn claude(program: PathBuf, model: Option<&str>) -> LlmCommand {
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
pub(super) fn cursor(program: PathBuf, label: &str, model: Option<&str>) -> LlmCommand {
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

/// Codex's small model ("fast and affordable model for easier tasks" in
/// its bundled catalog), used when Codex talks to OpenAI itself.
const CODEX_SMALL_MODEL: &str = "gpt-6-luna";

/// A model catalog of one placeholder model. Every model of Codex's own
/// catalog runs in "code mode", which adds about 18 KB of tools and role
/// text that no switch removes; a model the catalog does not list runs
/// plainly, with the tools below switched off.
const CODEX_CATALOG: &str = r#"{"models":[{"slug":"thehook-placeholder","display_name":"thehook-placeholder","base_instructions":"Follow the user's instructions. Answer with text only.","supported_reasoning_levels":[],"shell_type":"shell_command","visibility":"hide","supported_in_api":true,"priority":0,"support_verbosity":false,"truncation_policy":{"mode":"tokens","limit":10000},"experimental_supported_tools":[]}]}"#;

/// `codex exec`: the prompt from stdin, only the final message on stdout,
/// no rollout saved (`--ephemeral`, so the sweep never meets it), no hooks,
/// no git check, a read-only sandbox, thehook's system prompt instead of
/// Codex's 17 KB one, no AGENTS.md, environment or permission text, no
/// skills, and no tools (shell, images, sub-agents, goals, web search,
/// questions to the user) or MCP servers of the user's `config.toml`.
/// Still sent: the user's global `~/.codex/AGENTS.md` and about 1.2 KB of
/// client metadata.
pub(super) fn codex(
    program: PathBuf,
    model: Option<&str>,
    user_config: Option<&toml_edit::DocumentMut>,
) -> LlmCommand {
    let dir = own_folder("thehook-codex-llm");
    let catalog = dir.join("catalog.json");
    let mut args = strings(&[
        "exec",
        "--ephemeral",
        "--skip-git-repo-check",
        "--disable",
        "hooks",
        "--sandbox",
        "read-only",
        "--color",
        "never",
    ]);
    let settings = [
        format!("instructions={}", toml_string(SYSTEM)),
        "developer_instructions=\"\"".to_string(),
        format!(
            "model_catalog_json={}",
            toml_string(&catalog.to_string_lossy())
        ),
        "project_doc_max_bytes=0".to_string(),
        "include_environment_context=false".to_string(),
        "include_permissions_instructions=false".to_string(),
        "skills.include_instructions=false".to_string(),
        "web_search=\"disabled\"".to_string(),
        "tools.experimental_request_user_input.enabled=false".to_string(),
    ];
    let mcp_off = mcp_servers(user_config)
        .into_iter()
        .map(|name| format!("mcp_servers.{}.enabled=false", toml_key(&name)));
    for setting in settings.into_iter().chain(mcp_off) {
        args.extend(["-c".to_string(), setting]);
    }
    for feature in ["shell_tool", "view_image", "multi_agent", "goals"] {
        args.extend(["--disable".to_string(), feature.to_string()]);
    }
    // The small model only where it exists: on OpenAI, not on a provider
    // of the user's own (a local server, Azure), whose model stays.
    let provider = user_config
        .and_then(|c| c.get("model_provider"))
        .and_then(|p| p.as_str())
        .map(str::to_string);
    let model = match (model, provider.as_deref()) {
        (Some(model), _) => Some(model.to_string()),
        (None, None | Some("openai")) => Some(CODEX_SMALL_MODEL.to_string()),
        (None, Some(_)) => None,
    };
    if let Some(model) = &model {
        args.extend(["-m".to_string(), model.clone()]);
    }
    args.push("-".into());
    LlmCommand {
        model,
        setup: vec![(catalog, CODEX_CATALOG)],
        ..LlmCommand::new(program, args, "codex")
    }
}

/// The user's Codex `config.toml`, when there is a readable one.
pub(super) fn codex_user_config() -> Option<toml_edit::DocumentMut> {
    let home = crate::env::home()?;
    let text = std::fs::read_to_string(crate::env::codex_home(&home).join("config.toml")).ok()?;
    text.parse().ok()
}

/// The MCP servers a Codex `config.toml` declares.
fn mcp_servers(config: Option<&toml_edit::DocumentMut>) -> Vec<String> {
    config
        .and_then(|c| c.get("mcp_servers"))
        .and_then(|s| s.as_table_like())
        .map(|t| t.iter().map(|(name, _)| name.to_string()).collect())
        .unwrap_or_default()
}

fn toml_string(s: &str) -> String {
    toml_edit::Value::from(s).to_string().trim().to_string()
}

/// A table key as TOML writes it: bare when it can be, else quoted.
fn toml_key(name: &str) -> String {
    toml_edit::Key::new(name).to_string()
}

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
pub(super) fn gemini(program: PathBuf, model: Option<&str>) -> LlmCommand {
    let dir = own_folder("thehook-gemini-llm");
    let settings = dir.join(".gemini").join("settings.json");
    let system = dir.join("system.md");
    let model = model.unwrap_or(GEMINI_SMALL_MODEL);
    let args = strings(&["-m", model, "-e", "none", "-p", ""]);
    LlmCommand {
        model: Some(model.to_string()),
        env: vec![
            ("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()),
            ("GEMINI_SYSTEM_MD".into(), path_string(&system)),
        ],
        setup: vec![(settings, GEMINI_SETTINGS), (system, SYSTEM)],
        cwd: Some(dir),
        ..LlmCommand::new(program, args, "gemini")
    }
}

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
pub(super) fn copilot(program: PathBuf, model: Option<&str>) -> LlmCommand {
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
pub(super) fn opencode(program: PathBuf, model: Option<&str>) -> LlmCommand {
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

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codex_with(config: &str) -> LlmCommand {
        let doc: toml_edit::DocumentMut = config.parse().unwrap();
        codex(PathBuf::from("codex"), None, Some(&doc))
    }

    #[test]
    fn codex_turns_off_the_users_mcp_servers_and_picks_the_small_model_on_openai() {
        let cmd = codex_with(
            "model = \"gpt-6-sol\"\n[mcp_servers.docs]\ncommand = \"x\"\n[mcp_servers.\"my server\"]\ncommand = \"y\"\n",
        );
        let settings: Vec<&str> = cmd
            .args
            .windows(2)
            .filter(|w| w[0] == "-c")
            .map(|w| w[1].as_str())
            .collect();
        assert!(settings.contains(&"mcp_servers.docs.enabled=false"));
        assert!(settings.contains(&"mcp_servers.\"my server\".enabled=false"));
        assert_eq!(cmd.model.as_deref(), Some(CODEX_SMALL_MODEL));
        assert!(cmd.args.windows(2).any(|w| w == ["-m", CODEX_SMALL_MODEL]));
        // A provider of the user's own keeps the user's model.
        let own = codex_with("model = \"llama\"\nmodel_provider = \"ollama\"\n");
        assert_eq!(own.model, None);
        assert!(!own.args.contains(&"-m".to_string()));
        assert_eq!(own.args.last().map(String::as_str), Some("-"));
    }
}
