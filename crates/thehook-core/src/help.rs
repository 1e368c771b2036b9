//! Help text that names item types, agents, limits and defaults, built from
//! the constants it describes, so that the CLI's `--help`, the MCP tools'
//! descriptions and the generated `docs/commands.md` cannot drift from what
//! [`crate::request`] accepts.

use crate::agents::Agent;
use crate::front_door::{DEFAULT_K, DEFAULT_SESSION_LIMIT, MAX_K, MIN_ID_PREFIX, REMEMBERABLE};
use crate::store::item::ItemKind;

/// The agents by the names people type: `claude, cursor, codex, gemini, copilot or opencode`.
pub fn agent_names() -> String {
    crate::text::either(&Agent::ALL.map(Agent::short_name))
}

/// The agents by their names in prose: `Claude Code, Cursor, Codex, Gemini CLI, Copilot CLI or opencode`.
pub fn agent_titles() -> String {
    crate::agents::titles().to_string()
}

/// The agent init wires when it finds none, in prose (`Claude Code`).
pub fn default_agent() -> &'static str {
    Agent::DEFAULT.display_name()
}

/// The types `remember` takes, and its default:
/// `convention, adr, gotcha or note (default note)`.
pub fn rememberable_kinds_and_default() -> String {
    format!(
        "{} (default {})",
        rememberable_kinds(),
        crate::front_door::DEFAULT_REMEMBERED.as_str()
    )
}

/// The files `init --mcp` registers the MCP server in, one an agent that
/// takes it from a file: `.mcp.json, .cursor/mcp.json, ...`.
pub fn mcp_files() -> String {
    let files: Vec<&str> = Agent::ALL.into_iter().filter_map(Agent::mcp_file).collect();
    files.join(", ")
}

/// Every item type: `summary, convention, ... or text`.
pub fn kinds() -> String {
    crate::text::either(&ItemKind::ALL.map(ItemKind::as_str))
}

/// The types `remember` takes: `convention, adr, gotcha or note`.
pub fn rememberable_kinds() -> String {
    crate::text::either(&REMEMBERABLE.map(ItemKind::as_str))
}

/// The recall's `k`.
pub fn k() -> String {
    format!("How many results (default {DEFAULT_K}, at most {MAX_K}).")
}

/// An item's id argument, as the command `shown_by` prints ids.
pub fn item_id(shown_by: &str) -> String {
    format!(
        "The item's id as `{shown_by}` prints it (a unique prefix of {MIN_ID_PREFIX}+ characters)."
    )
}

/// The dates `since` takes, for `what` (e.g. "items dated").
pub fn since(what: &str) -> String {
    format!("Only {what} on or after DATE: 2026-02-01, an RFC 3339 time, or 7d / 2w ago.")
}

/// The sessions listing's `limit`.
pub fn session_limit() -> String {
    format!("At most N sessions (default {DEFAULT_SESSION_LIMIT}; 0: all).")
}

/// What `sessions` lists.
pub fn sessions() -> String {
    format!(
        "List this project's past sessions ({}), newest first: `<id> <start> <lines> <summary>`.",
        agent_titles()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_prose_and_follow_the_constants() {
        assert_eq!(
            agent_names(),
            "claude, cursor, codex, gemini, copilot or opencode"
        );
        assert_eq!(
            agent_titles(),
            "Claude Code, Cursor, Codex, Gemini CLI, Copilot CLI or opencode"
        );
        assert_eq!(
            kinds(),
            "summary, convention, adr, gotcha, history, note or text"
        );
        assert_eq!(rememberable_kinds(), "convention, adr, gotcha or note");
        assert_eq!(k(), "How many results (default 5, at most 100).");
    }

    /// Messages below this module's layer (errors, transcript parsing) cannot
    /// call it: they are checked against it instead.
    #[test]
    fn lower_layers_name_every_agent_as_help_does() {
        let e = crate::error::Error::Transcript {
            path: "t.jsonl".into(),
            problem: crate::transcript::NotATranscript::NotJsonl,
            formats: crate::agents::titles(),
        };
        assert!(e.to_string().contains(&agent_titles()), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "{\"a\": 1}\n{\"b\": 2}\n").unwrap();
        let e = crate::agents::read::load(&path).unwrap_err().to_string();
        assert!(e.contains(&agent_titles()), "{e}");
    }
}
