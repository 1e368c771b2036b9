//! Claude Code: `.claude/settings.json` hooks (timeouts in seconds),
//! transcripts in `~/.claude/projects/<slug>/<session>.jsonl`.

use std::path::{Path, PathBuf};

use super::spec::{
    command_hooks, AgentSpec, HookCommands, HookSpec, Identity, McpConfig, RecallCommand,
    StoreScope, StoredTranscript,
};
use super::store::{head_records, name_of, subdirs};
use super::Agent;
use crate::transcript::{self, Format};

pub(super) struct ClaudeCode;

const IDENTITY: Identity = Identity {
    name: "claude-code",
    short_name: "claude",
    display_name: "Claude Code",
    aliases: &["claudecode"],
    folder: ".claude",
    settings_file: "settings.json",
    binaries: &["claude"],
    format: Format::ClaudeCode,
};

impl AgentSpec for ClaudeCode {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        // The timeout raises SessionEnd's default budget of 1.5 s.
        command_hooks(c, 30)
    }
    /// Git Bash, which Claude Code finds itself and prefers on Windows;
    /// its Bash tool (the `/recall` command, the subagent) runs there too.
    fn windows_shell(&self) -> super::shell::Shell {
        super::shell::Shell::Posix
    }

    fn takes_permission_rules(&self) -> bool {
        true
    }
    fn mcp(&self) -> McpConfig {
        // User-scope servers live in ~/.claude.json, Claude Code's own state.
        McpConfig::Json {
            file: ".mcp.json",
            typed: true,
            user_scope_command: Some("claude mcp add --scope user"),
        }
    }
    fn recall_command(&self) -> Option<RecallCommand> {
        Some(RecallCommand {
            file: "commands/recall.md",
            runs_inline: true,
        })
    }
    fn has_subagents(&self) -> bool {
        true
    }

    /// Sessions started in a subfolder have a longer slug; the records' cwd
    /// decides. A subagent's own file starts as a sidechain and is left to
    /// its session.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let slug = slug(scope.root);
        let mut found = Vec::new();
        for dir in subdirs(&scope.home.join(".claude/projects")) {
            let name = name_of(&dir);
            if name != slug && !name.starts_with(&format!("{slug}-")) {
                continue;
            }
            for path in transcript::jsonl_files(&dir)
                .into_iter()
                .filter(|p| (scope.keep)(p))
            {
                let head = head_records(&path);
                let cwd = head
                    .iter()
                    .find_map(|r| r.value.get("cwd")?.as_str())
                    .map(PathBuf::from);
                let id = head.iter().find_map(|r| r.value.get("sessionId")?.as_str());
                // A 1.0 session starts as the main chain and has its
                // subagents' turns inline.
                let is_sidechain = head
                    .iter()
                    .find_map(|r| r.value.get("isSidechain")?.as_bool())
                    == Some(true);
                if let (Some(id), false, true) = (id, is_sidechain, scope.belongs(&cwd)) {
                    found.push(StoredTranscript {
                        agent: Agent::ClaudeCode,
                        path: path.clone(),
                        session_id: id.to_string(),
                        cwd,
                    });
                }
            }
        }
        found
    }
    fn subagent_transcripts(&self, session: &Path, session_id: &str) -> Vec<PathBuf> {
        transcript::claude_subagent_files(session, Some(session_id))
    }
}

/// Claude Code's folder name for a project: every non-alphanumeric
/// character of the path becomes `-`.
pub(super) fn slug(root: &Path) -> String {
    root.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
