//! Gemini CLI: `.gemini/settings.json` holds hooks (timeouts in
//! milliseconds, matchers exact strings) and MCP servers both.

use serde_json::{json, Map, Value};

use super::codex::transcript_path;
use super::spec::{
    AgentSpec, HookCommands, HookSpec, Identity, McpConfig, StoreScope, StoredTranscript,
};
use crate::capture::transcript::Format;

pub(super) struct Gemini;

const IDENTITY: Identity = Identity {
    name: "gemini",
    short_name: "gemini",
    aliases: &["gemini-cli"],
    folder: ".gemini",
    settings_file: "settings.json",
    binaries: &["gemini"],
    format: Format::Gemini,
};

impl AgentSpec for Gemini {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    /// Its payloads carry a `timestamp`, and no Claude-only `permission_mode`.
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        transcript_path(payload).is_some_and(|p| p.contains("/.gemini/"))
            || (payload.contains_key("timestamp") && !payload.contains_key("permission_mode"))
    }

    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        let only = (c.inject_on.len() == 1).then(|| c.inject_on[0].to_string());
        vec![
            HookSpec {
                event: "SessionStart",
                matcher: only,
                handler: json!({"name": "thehook-retrieve", "type": "command", "command": c.retrieve, "timeout": 10000}),
            },
            HookSpec {
                event: "SessionEnd",
                matcher: None,
                handler: json!({"name": "thehook-capture", "type": "command", "command": c.capture, "timeout": 10000}),
            },
        ]
    }
    fn mcp(&self) -> McpConfig {
        McpConfig::Json {
            file: ".gemini/settings.json",
            typed: false,
            user_scope_command: None,
        }
    }

    /// Not swept yet: its chats are found through the SessionEnd payload.
    fn transcripts(&self, _scope: &StoreScope) -> Vec<StoredTranscript> {
        Vec::new()
    }
}
