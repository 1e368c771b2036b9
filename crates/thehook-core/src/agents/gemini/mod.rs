//! Gemini CLI: `.gemini/settings.json` holds hooks (timeouts in
//! milliseconds, matchers exact strings) and MCP servers both.

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::payload::TouchedFile;
use super::shell::Shell;
use super::spec::{
    file_of_call, transcript_path, Described, Description, DistillCli, HookCommands, HookSpec,
    Identity, Install, Mark, McpConfig, Output, Payloads, Protocol, Settings, StoreScope,
    StoredTranscript, TranscriptFormat, TranscriptStore, Trust,
};
use super::store::{head_records, subdirs};
use super::Agent;
use crate::transcript::{NotATranscript, Record, ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct Gemini;

/// The tools its file hook runs after (an `AfterTool` matcher, anchored:
/// Gemini CLI's is an unanchored regex): those that read or change one
/// file, named by `tool_input.file_path`.
const FILE_TOOLS: &str = "read_file|write_file|replace";

/// Its tools, by what they do.
const TOOLS: &[(&str, ToolKind)] = &[
    (
        "list_directory",
        ToolKind::new(ToolRole::Looks, ToolShape::Other),
    ),
    ("glob", ToolKind::new(ToolRole::Looks, ToolShape::Glob)),
    (
        "search_file_content",
        ToolKind::new(ToolRole::Looks, ToolShape::Search),
    ),
    (
        "read_many_files",
        ToolKind::new(ToolRole::Looks, ToolShape::Other),
    ),
    (
        "write_todos",
        ToolKind::new(ToolRole::Looks, ToolShape::Plan),
    ),
    (
        "write_file",
        ToolKind::new(ToolRole::Writes, ToolShape::Write),
    ),
    ("replace", ToolKind::new(ToolRole::Writes, ToolShape::Edit)),
    (
        "run_shell_command",
        ToolKind::new(ToolRole::Runs, ToolShape::Shell),
    ),
];

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "gemini",
        short_name: "gemini",
        display_name: "Gemini CLI",
        aliases: &["gemini-cli"],
        folder: ".gemini",
        settings_file: "settings.json",
        binaries: &["gemini"],
    },
    protocol: Protocol {
        // Appended to the user's turn as `<hook_context>...</hook_context>`
        // (markup in it is escaped; the block has none). Plain stdout would
        // reach the user, not the model.
        prompt: Output::HookSpecific("BeforeAgent"),
        // Its `AfterTool` hook's `additionalContext` is appended to the
        // tool's result as `<hook_context>...</hook_context>`. A subagent's
        // calls carry no mark of it: they are answered like the main
        // thread's.
        file: Output::HookSpecific("AfterTool"),
        ..Protocol::COMMON
    },
    install: Install {
        user_folder: None,
        used_if: &[Mark::Folder(".gemini")],
        nests_handlers: true,
        settings_version: None,
        takes_permission_rules: false,
        windows_shell: Shell::PowerShell,
        mcp: McpConfig::Json {
            file: ".gemini/settings.json",
            typed: false,
            user_scope_command: None,
        },
        recall_command: None,
        subagents_folder: None,
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "gemini",
        title: "Gemini CLI",
        programs: &["gemini"],
        command: llm::command,
    },
    writes_documents: true,
};

impl Described for Gemini {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for Gemini {
    /// Its payloads carry a `session_id` and a `timestamp`, and no
    /// Claude-only `permission_mode` (Copilot CLI's have a `timestamp` too,
    /// beside a camelCase `sessionId`).
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        transcript_path(payload).is_some_and(|p| p.contains("/.gemini/"))
            || (payload.contains_key("session_id")
                && payload.contains_key("timestamp")
                && !payload.contains_key("permission_mode"))
    }

    /// `tool_input.file_path` of its file tools, as the model wrote it
    /// (often relative to `cwd`).
    fn touched_file(&self, payload: &Map<String, Value>) -> Option<TouchedFile> {
        let (tool, input) = (payload.get("tool_name"), payload.get("tool_input"));
        file_of_call(tool, FILE_TOOLS, input, "file_path")
    }
}

impl Settings for Gemini {
    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        let only = (c.inject_on.len() == 1).then(|| c.inject_on[0].to_string());
        let mut hooks = vec![
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
        ];
        // Gemini's UserPromptSubmit (its `hooks migrate` maps one to the
        // other); it fires once per prompt, not per tool-loop turn.
        hooks.extend(c.prompt.as_ref().map(|prompt| HookSpec {
            event: "BeforeAgent",
            matcher: None,
            handler: json!({"name": "thehook-prompt", "type": "command", "command": prompt, "timeout": 10000}),
        }));
        // After the tool: its BeforeTool drops additional context.
        hooks.extend(c.file.as_ref().map(|file| HookSpec {
            event: "AfterTool",
            matcher: Some(format!("^({FILE_TOOLS})$")),
            handler: json!({"name": "thehook-file", "type": "command", "command": file, "timeout": 10000}),
        }));
        hooks
    }
}

impl Trust for Gemini {
    /// Trusted by `GEMINI_CLI_TRUST_WORKSPACE=true`, or by the most specific
    /// rule of `~/.gemini/trustedFolders.json` that covers the project
    /// (`TRUST_FOLDER` covers a folder and what is under it, `TRUST_PARENT`
    /// its parent's, `DO_NOT_TRUST` takes trust away).
    fn project_trusted(&self, root: &Path, home: &Path) -> Option<bool> {
        if gemini_trusts_workspace() {
            return Some(true);
        }
        let rules: Map<String, Value> =
            std::fs::read_to_string(home.join(".gemini/trustedFolders.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_default();
        let rule = rules
            .iter()
            .filter_map(|(path, level)| {
                let path = Path::new(path);
                let covered = match level.as_str()? {
                    "TRUST_PARENT" => path.parent().map(|p| (p, true)),
                    "TRUST_FOLDER" => Some((path, true)),
                    "DO_NOT_TRUST" => Some((path, false)),
                    _ => None,
                }?;
                root.starts_with(covered.0).then_some(covered)
            })
            .max_by_key(|(path, _)| path.components().count());
        Some(rule.is_some_and(|(_, trusted)| trusted))
    }

    fn trust_advice(&self, root: &Path) -> String {
        format!(
            "Gemini CLI runs project hooks only in a trusted folder: trust it when `gemini` asks, or add `{}: \"TRUST_FOLDER\"` to ~/.gemini/trustedFolders.json (`--skip-trust` runs no project hooks)",
            // A JSON string, escaped as JSON needs (a Windows path's `\`).
            serde_json::Value::from(root.to_string_lossy())
        )
    }
}

impl TranscriptStore for Gemini {
    /// `~/.gemini/tmp/<project>/chats/session-*.jsonl`: `.project_root`
    /// beside `chats/` names the folder the sessions ran in, and each
    /// header's `projectHash` (SHA-256 of that path) says it too. (Older
    /// single-document `.json` chats are read by `capture` and `read`, but
    /// not swept.)
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let mut found = Vec::new();
        let hash = project_hash(scope.root);
        for dir in subdirs(&scope.home.join(".gemini/tmp")) {
            let recorded = std::fs::read_to_string(dir.join(".project_root"))
                .ok()
                .map(|t| PathBuf::from(t.trim()));
            for path in chat_files(&dir.join("chats"))
                .into_iter()
                .filter(|p| (scope.keep)(p))
            {
                let head = head_records(&path);
                let header = head.first().map(|r| &r.value);
                let id = header.and_then(|h| h.get("sessionId")?.as_str());
                let same_hash = header
                    .and_then(|h| h.get("projectHash")?.as_str())
                    .is_some_and(|h| h == hash);
                let belongs = same_hash || scope.belongs(&recorded);
                if let (Some(id), true) = (id, belongs) {
                    found.push(StoredTranscript {
                        agent: Agent::Gemini,
                        path,
                        session_id: id.to_string(),
                        cwd: recorded.clone().or_else(|| Some(scope.root.to_path_buf())),
                    });
                }
            }
        }
        found
    }
}

impl TranscriptFormat for Gemini {
    fn sniffs(&self, record: &Map<String, Value>) -> bool {
        transcript::is_log_record(record)
    }

    fn read_records(&self, records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        Some(
            transcript::parse_log(records).ok_or(NotATranscript::Incomplete(
                "a Gemini CLI chat log without its header line (sessionId)",
            )),
        )
    }

    fn read_document(&self, doc: &Value) -> Option<Transcript> {
        transcript::parse(doc)
    }
}

/// Gemini CLI's id of a project: the SHA-256 of its path, in hex.
fn project_hash(root: &Path) -> String {
    crate::hash::sha256_hex(root.to_string_lossy().as_bytes())
}

/// The chat logs in `dir` (`session-*.jsonl`).
fn chat_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("session-") && name.ends_with(".jsonl")
        })
        .collect();
    files.sort();
    files
}

/// Gemini CLI's own: `true` trusts the folder it runs in (project hooks run).
const GEMINI_CLI_TRUST_WORKSPACE: &str = "GEMINI_CLI_TRUST_WORKSPACE";

/// Whether Gemini CLI is told to trust whatever folder it runs in.
fn gemini_trusts_workspace() -> bool {
    crate::env::var(GEMINI_CLI_TRUST_WORKSPACE)
        .is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_hash_is_the_sha256_of_its_path() {
        // Gemini CLI 0.61.0 wrote a header with this scheme (checked on a
        // real chat); the value here is `printf %s <path> | sha256sum`.
        assert_eq!(
            project_hash(Path::new("/home/user/research/proj-gemini")),
            "f347e79fdb57dbd92a29a1cd2a3489ad6ccd04db1cc22e72dbc3edb7e36fae11"
        );
    }

    #[test]
    fn the_most_specific_trust_rule_decides() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(
            home.path().join(".gemini/trustedFolders.json"),
            r#"{"/srv": "TRUST_FOLDER", "/srv/secret": "DO_NOT_TRUST", "/x/y": "TRUST_PARENT"}"#,
        )
        .unwrap();
        let trusted = |p: &str| Gemini.project_trusted(Path::new(p), home.path());
        assert_eq!(trusted("/srv/app"), Some(true));
        assert_eq!(trusted("/srv/secret/app"), Some(false));
        assert_eq!(trusted("/x/z"), Some(true));
        assert_eq!(trusted("/elsewhere"), Some(false));
    }
}
