//! Cursor: `.cursor/hooks.json` (`{"version": 1, "hooks": {...}}`, handlers
//! directly under the event), transcripts in
//! `~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl`. Cursor also runs
//! Claude Code's hooks, with its own payload (see `HookPayload::is_cursor_echo`).

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::payload::HookEvent;
use super::shell::Shell;
use super::spec::{
    Described, Description, DistillCli, ForeignHooks, HookCommands, HookSpec, Identity, Install,
    Mark, McpConfig, Output, Payloads, Protocol, RecallCommand, Settings, StoreScope,
    StoredTranscript, TranscriptFormat, TranscriptStore, Trust,
};
use super::store::{name_of, slug, subdirs};
use super::Agent;
use crate::transcript::{NotATranscript, Record, ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct Cursor;

/// Its tools, by what they do (it also runs tools named as Claude Code's).
const TOOLS: &[(&str, ToolKind)] = &[
    ("read_file", ToolKind::new(ToolRole::Looks, ToolShape::Read)),
    ("list_dir", ToolKind::new(ToolRole::Looks, ToolShape::Other)),
    (
        "grep_search",
        ToolKind::new(ToolRole::Looks, ToolShape::Search),
    ),
    (
        "file_search",
        ToolKind::new(ToolRole::Looks, ToolShape::Other),
    ),
    (
        "codebase_search",
        ToolKind::new(ToolRole::Looks, ToolShape::Search),
    ),
    (
        "glob_file_search",
        ToolKind::new(ToolRole::Other, ToolShape::Glob),
    ),
    (
        "edit_file",
        ToolKind::new(ToolRole::Writes, ToolShape::Edit),
    ),
    (
        "search_replace",
        ToolKind::new(ToolRole::Writes, ToolShape::Edit),
    ),
    (
        "StrReplace",
        ToolKind::new(ToolRole::Writes, ToolShape::Edit),
    ),
    ("Delete", ToolKind::new(ToolRole::Writes, ToolShape::Other)),
    (
        "run_terminal_cmd",
        ToolKind::new(ToolRole::Runs, ToolShape::Shell),
    ),
    ("Shell", ToolKind::new(ToolRole::Runs, ToolShape::Shell)),
];

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "cursor",
        short_name: "cursor",
        display_name: "Cursor",
        aliases: &["cursor-agent"],
        folder: ".cursor",
        settings_file: "hooks.json",
        binaries: &["cursor-agent", "cursor"],
    },
    protocol: Protocol {
        session_start: Output::Field("additional_context"),
        // `beforeSubmitPrompt` can only allow or block a prompt (its
        // documented output is `continue` and `user_message`): no prompt
        // hook for Cursor.
        prompt: Output::None,
        // It runs the hooks of the agent whose conventions the others
        // copied. Its file hooks (beforeReadFile) can only allow or deny.
        runs_hooks_of: Some(ForeignHooks {
            of: Agent::DEFAULT,
            events: &[
                (HookEvent::SessionStart, "sessionStart"),
                (HookEvent::Prompt, "beforeSubmitPrompt"),
                (HookEvent::SessionEnd, "sessionEnd"),
            ],
        }),
        ..Protocol::COMMON
    },
    install: Install {
        user_folder: None,
        used_if: &[Mark::Folder(".cursor")],
        nests_handlers: false,
        settings_version: Some(1),
        takes_permission_rules: false,
        windows_shell: Shell::PowerShell,
        mcp: McpConfig::Json {
            file: ".cursor/mcp.json",
            typed: false,
            user_scope_command: None,
        },
        recall_command: Some(RecallCommand {
            file: "commands/recall.md",
            runs_inline: false,
        }),
        subagents_folder: None,
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "cursor-agent",
        title: "cursor-agent",
        programs: &["cursor-agent", "agent"],
        command: llm::command,
    },
    writes_documents: false,
};

impl Described for Cursor {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for Cursor {
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        payload.contains_key("cursor_version") || payload.contains_key("workspace_roots")
    }
}

impl Settings for Cursor {
    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        vec![
            HookSpec {
                event: "sessionStart",
                matcher: None,
                handler: json!({"command": c.retrieve, "timeout": 10}),
            },
            HookSpec {
                event: "sessionEnd",
                matcher: None,
                handler: json!({"command": c.capture, "timeout": 30}),
            },
        ]
    }
}

impl Trust for Cursor {}

impl TranscriptStore for Cursor {
    /// Its CLI's payloads say `transcript_path: null`: the id is the file's
    /// name in one of the projects' folders.
    fn transcript_of(&self, session_id: &str, home: &Path) -> Option<PathBuf> {
        let name = format!("{session_id}.jsonl");
        subdirs(&home.join(".cursor/projects"))
            .into_iter()
            .map(|d| d.join("agent-transcripts").join(&name))
            .find(|p| p.is_file())
    }

    /// The records carry no cwd, so the folder name decides.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let slug = slug(scope.root);
        let mut found = Vec::new();
        for dir in subdirs(&scope.home.join(".cursor/projects")) {
            let name = name_of(&dir);
            if name != slug && name != slug.trim_start_matches('-') {
                continue;
            }
            let files = crate::transcript::jsonl_files(&dir.join("agent-transcripts"));
            for path in files.into_iter().filter(|p| (scope.keep)(p)) {
                let id = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                found.push(StoredTranscript {
                    agent: Agent::Cursor,
                    path,
                    session_id: id,
                    cwd: Some(scope.root.to_path_buf()),
                });
            }
        }
        found
    }
}

impl TranscriptFormat for Cursor {
    fn sniffs(&self, record: &Map<String, Value>) -> bool {
        let role = record.get("role").and_then(Value::as_str);
        matches!(role, Some("user" | "assistant"))
            && record.get("message").is_some_and(Value::is_object)
    }

    fn read_records(&self, records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        Some(Ok(transcript::parse(records)))
    }
}
