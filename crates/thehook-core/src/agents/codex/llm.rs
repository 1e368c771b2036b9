//! Codex (`codex exec`) as the LLM that distils sessions: its one-shot command line.

use std::path::PathBuf;

use crate::agents::llm::{own_folder, strings, SYSTEM};
use crate::process::llm_command::LlmCommand;

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
pub(super) fn command_with(
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

/// The command line for `program` with the user's `config.toml`.
pub(super) fn command(program: PathBuf, _found_as: &str, model: Option<&str>) -> LlmCommand {
    command_with(program, model, user_config().as_ref())
}

/// The user's Codex `config.toml`, when there is a readable one.
fn user_config() -> Option<toml_edit::DocumentMut> {
    let home = crate::env::home()?;
    let text = std::fs::read_to_string(super::codex_home(&home).join("config.toml")).ok()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn codex_with(config: &str) -> LlmCommand {
        let doc: toml_edit::DocumentMut = config.parse().unwrap();
        command_with(PathBuf::from("codex"), None, Some(&doc))
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
