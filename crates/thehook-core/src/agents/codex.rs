//! Codex CLI: `.codex/hooks.json` (Claude Code's shape; no SessionEnd is
//! written, so its sessions are captured by the sweep), rollouts in
//! `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, MCP servers in
//! `.codex/config.toml`.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::spec::{
    AgentSpec, HookCommands, HookSpec, Identity, McpConfig, StoreScope, StoredTranscript,
};
use super::store::head_records;
use super::Agent;
use crate::capture::transcript::Format;

pub(super) struct Codex;

const IDENTITY: Identity = Identity {
    name: "codex",
    short_name: "codex",
    aliases: &[],
    folder: ".codex",
    settings_file: "hooks.json",
    binaries: &["codex"],
    format: Format::Codex,
};

impl AgentSpec for Codex {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sent(&self, payload: &Map<String, Value>) -> bool {
        transcript_path(payload).is_some_and(|p| p.contains("/.codex/"))
    }

    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        vec![HookSpec {
            event: "SessionStart",
            matcher: Some(c.inject_on.join("|")),
            handler: json!({"type": "command", "command": c.retrieve, "timeout": 10}),
        }]
    }
    fn mcp(&self) -> McpConfig {
        McpConfig::Toml {
            file: ".codex/config.toml",
        }
    }

    /// All projects' rollouts are together; the `session_meta` line names
    /// the cwd.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let mut found = Vec::new();
        let store = scope.home.join(".codex/sessions");
        for entry in walkdir::WalkDir::new(&store).into_iter().flatten() {
            let path = entry.path();
            let is_rollout = entry.file_type().is_file()
                && path.extension().is_some_and(|x| x == "jsonl")
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"));
            if !is_rollout || !(scope.keep)(path) {
                continue;
            }
            let head = head_records(path);
            let meta = head.iter().find_map(|r| {
                (r.value.get("type")?.as_str()? == "session_meta")
                    .then(|| r.value.get("payload"))
                    .flatten()
            });
            let Some(meta) = meta else { continue };
            let cwd = meta.get("cwd").and_then(|v| v.as_str()).map(PathBuf::from);
            let id = meta
                .get("id")
                .or_else(|| meta.get("session_id"))
                .and_then(|v| v.as_str());
            if let (Some(id), true) = (id, scope.belongs(&cwd)) {
                found.push(StoredTranscript {
                    agent: Agent::Codex,
                    path: path.to_path_buf(),
                    session_id: id.to_string(),
                    cwd,
                });
            }
        }
        found
    }
}

pub(super) fn transcript_path(payload: &Map<String, Value>) -> Option<&str> {
    payload.get("transcript_path").and_then(Value::as_str)
}
