//! Claude Code: `.claude/settings.json` hooks (timeouts in seconds),
//! transcripts in `~/.claude/projects/<slug>/<session>.jsonl`.

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::shell::Shell;
use super::spec::{
    command_hooks, Described, Description, DistillCli, HookCommands, HookSpec, Identity, Install,
    Mark, McpConfig, Output, Payloads, Protocol, RecallCommand, Settings, StoreScope,
    StoredTranscript, TranscriptFormat, TranscriptStore, Trust,
};
use super::store::{head_records, name_of, slug, subdirs};
use super::Agent;
use crate::transcript::{NotATranscript, Record, ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct ClaudeCode;

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "claude-code",
        short_name: "claude",
        display_name: "Claude Code",
        aliases: &["claudecode"],
        folder: ".claude",
        settings_file: "settings.json",
        binaries: &["claude"],
    },
    protocol: Protocol {
        // `additionalContext` of a `PreToolUse` hook reaches the model
        // beside the tool's result.
        file: Output::HookSpecific("PreToolUse"),
        // `additionalContext` of `SubagentStart` reaches the subagent's
        // first request (2.1.332).
        subagent: Output::HookSpecific("SubagentStart"),
        ..Protocol::COMMON
    },
    install: Install {
        user_folder: None,
        used_if: &[Mark::Folder(".claude")],
        nests_handlers: true,
        settings_version: None,
        takes_permission_rules: true,
        // Git Bash, which Claude Code finds itself and prefers on Windows;
        // its Bash tool (the `/recall` command, the subagent) runs there too.
        windows_shell: Shell::Posix,
        // User-scope servers live in ~/.claude.json, Claude Code's own state.
        mcp: McpConfig::Json {
            file: ".mcp.json",
            typed: true,
            user_scope_command: Some("claude mcp add --scope user"),
        },
        recall_command: Some(RecallCommand {
            file: "commands/recall.md",
            runs_inline: true,
        }),
        subagents_folder: Some("agents"),
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "claude",
        title: "Claude Code",
        programs: &["claude"],
        command: llm::command,
    },
    writes_documents: false,
};

/// Its tools, by what they do. (Cursor's transcripts name some of these
/// too: tools are known by name, whichever agent lists them.)
const TOOLS: &[(&str, ToolKind)] = &[
    ("Read", ToolKind::new(ToolRole::Looks, ToolShape::Read)),
    ("Grep", ToolKind::new(ToolRole::Looks, ToolShape::Search)),
    ("Glob", ToolKind::new(ToolRole::Looks, ToolShape::Glob)),
    ("LS", ToolKind::new(ToolRole::Looks, ToolShape::Other)),
    ("TodoWrite", ToolKind::new(ToolRole::Looks, ToolShape::Plan)),
    ("TodoRead", ToolKind::new(ToolRole::Looks, ToolShape::Other)),
    ("Edit", ToolKind::new(ToolRole::Writes, ToolShape::Edit)),
    (
        "MultiEdit",
        ToolKind::new(ToolRole::Writes, ToolShape::Edit),
    ),
    ("Write", ToolKind::new(ToolRole::Writes, ToolShape::Write)),
    (
        "NotebookEdit",
        ToolKind::new(ToolRole::Writes, ToolShape::Other),
    ),
    (
        "NotebookRead",
        ToolKind::new(ToolRole::Other, ToolShape::Read),
    ),
    ("Bash", ToolKind::new(ToolRole::Runs, ToolShape::Shell)),
    ("Task", ToolKind::new(ToolRole::Other, ToolShape::Subagent)),
    ("Agent", ToolKind::new(ToolRole::Other, ToolShape::Subagent)),
    (
        "AskUserQuestion",
        ToolKind::new(ToolRole::Other, ToolShape::Ask),
    ),
    (
        "ExitPlanMode",
        ToolKind::new(ToolRole::Other, ToolShape::ExitPlan),
    ),
];

/// The tools its file hook runs on (a `PreToolUse` matcher): those that
/// read or change one file.
const FILE_TOOLS: &str = "Read|Edit|Write|MultiEdit|NotebookEdit";
/// The tools whose call starts a subagent and says its task
/// ([`crate::agents::SUBAGENT_TOOLS`]), for the subagent hook to read it
/// (`SubagentStart` names only the subagent's type).
const TASK_TOOLS: &str = "Agent|Task";

impl Described for ClaudeCode {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for ClaudeCode {}

impl Settings for ClaudeCode {
    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        // The timeout raises SessionEnd's default budget of 1.5 s.
        command_hooks(c, 30, Some(FILE_TOOLS), Some(TASK_TOOLS))
    }
}

impl Trust for ClaudeCode {}

impl TranscriptStore for ClaudeCode {
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
            for path in crate::transcript::jsonl_files(&dir)
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
        transcript::subagent_files(session, Some(session_id))
    }
}

impl TranscriptFormat for ClaudeCode {
    fn sniffs(&self, record: &Map<String, Value>) -> bool {
        let ty = record.get("type").and_then(Value::as_str);
        matches!(
            ty,
            Some(
                "user"
                    | "assistant"
                    | "system"
                    | "summary"
                    | "progress"
                    | "queue-operation"
                    | "file-history-snapshot"
            )
        ) && ["uuid", "sessionId", "leafUuid", "messageId", "parentUuid"]
            .iter()
            .any(|k| record.contains_key(*k))
    }

    fn read_records(&self, records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        Some(Ok(transcript::parse(records)))
    }
}
