//! GitHub Copilot CLI: a hooks file of its own in `.github/hooks/`
//! (`{"version": 1, "hooks": {...}}`, handlers directly under camelCase
//! events, each with a `bash` and a `powershell` command), or in
//! `~/.copilot/hooks/` for every project. Read from the real CLI (1.0.102)
//! run against a mock model server:
//! - payloads are camelCase (`sessionId`, `cwd`, `timestamp` in epoch
//!   milliseconds), and session end's carries no transcript path;
//! - only a flat `{"additionalContext": ...}` on stdout is read, at session
//!   start (a user message of its own, kept for the whole session) and at
//!   each prompt (a `<system_reminder>` in that turn's message);
//! - repository hooks run only in a folder the user trusted.

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::payload::TouchedFile;
use super::shell::Shell;
use super::spec::{
    file_of_call, Described, Description, DistillCli, HookCommands, HookSpec, Identity, Install,
    Mark, McpConfig, Output, Payloads, Protocol, Settings, StoreScope, StoredTranscript,
    TranscriptFormat, TranscriptStore, Trust,
};
use super::store::subdirs;
use super::Agent;
use crate::transcript::{NotATranscript, Record, ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct Copilot;

/// Its tools that condensing or compact lines know (it has more: `bash`,
/// `edit`, `create`... are not classified yet).
const TOOLS: &[(&str, ToolKind)] = &[
    ("view", ToolKind::new(ToolRole::Other, ToolShape::Read)),
    (
        "create_file",
        ToolKind::new(ToolRole::Other, ToolShape::Write),
    ),
    ("grep", ToolKind::new(ToolRole::Other, ToolShape::Search)),
];

/// How long Copilot waits for each hook (its default is 30 s, and session
/// start holds back the first model call while it runs).
const TIMEOUT_SECS: u64 = 10;
const SESSION_END_TIMEOUT_SECS: u64 = 30;

/// The tools its file hook runs on (a `preToolUse` matcher, a regex that
/// must match the whole name): those that read or change one file, named
/// by `toolArgs.path`.
const FILE_TOOLS: &str = "view|edit|create";

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "copilot",
        short_name: "copilot",
        display_name: "Copilot CLI",
        aliases: &["copilot-cli", "github-copilot"],
        folder: ".github",
        settings_file: "hooks/thehook.json",
        binaries: &["copilot"],
    },
    // Anything else on stdout (Claude Code's `hookSpecificOutput`, plain
    // text) is dropped without a word.
    protocol: Protocol {
        session_start: Output::Field("additionalContext"),
        prompt: Output::Field("additionalContext"),
        // Only the flat `additionalContext`, which it sends as a user
        // message after the tool's result. A hook that fails denies the
        // tool: thehook's exit 0 whatever happens.
        file: Output::Field("additionalContext"),
        // `subagentStart` (1.0.102) names the subagent (`agentName`) and
        // prepends `additionalContext` to its first request.
        subagent: Output::Field("additionalContext"),
        // It says `new` for what the others call `startup`.
        sources: &[("new", "startup")],
        // A subagent's hooks carry its `agentId` (and its own `sessionId`).
        subagent_field: "agentId",
        ..Protocol::COMMON
    },
    install: Install {
        // With `--global`: `~/.copilot/hooks/thehook.json`, which needs no
        // trust.
        user_folder: Some(".copilot"),
        // Most repositories have a `.github/`: its `hooks/` is Copilot's.
        used_if: &[Mark::Folder(".github/hooks"), Mark::Folder(".copilot")],
        nests_handlers: false,
        settings_version: Some(1),
        takes_permission_rules: false,
        windows_shell: Shell::PowerShell,
        mcp: McpConfig::Json {
            file: ".github/mcp.json",
            typed: true,
            user_scope_command: Some("copilot mcp add"),
        },
        recall_command: None,
        subagents_folder: None,
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "copilot",
        title: "Copilot CLI",
        programs: &["copilot"],
        command: llm::command,
    },
    writes_documents: false,
};

impl Described for Copilot {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for Copilot {
    /// Its camelCase payloads: `sessionId` where the others say `session_id`.
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        payload.contains_key("sessionId") && !payload.contains_key("session_id")
    }

    /// A `preToolUse` payload: `toolName` and `toolArgs.path` (absolute).
    fn touched_file(&self, payload: &Map<String, Value>) -> Option<TouchedFile> {
        let (tool, args) = (payload.get("toolName"), payload.get("toolArgs"));
        file_of_call(tool, FILE_TOOLS, args, "path")
    }
}

impl Settings for Copilot {
    /// No matcher on session start: thehook's own `inject_on` decides, from
    /// the payload's `source` (`new` is read as `startup`).
    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        let handler = |sub: &str, timeout: u64| {
            json!({
                "type": "command",
                "bash": c.command(Shell::Posix, sub),
                "powershell": c.command(Shell::PowerShell, sub),
                "timeoutSec": timeout,
            })
        };
        let mut hooks = vec![
            HookSpec {
                event: "sessionStart",
                matcher: None,
                handler: handler("retrieve", TIMEOUT_SECS),
            },
            HookSpec {
                event: "sessionEnd",
                matcher: None,
                handler: handler("capture", SESSION_END_TIMEOUT_SECS),
            },
        ];
        if c.prompt.is_some() {
            hooks.push(HookSpec {
                event: "userPromptSubmitted",
                matcher: None,
                handler: handler("prompt", TIMEOUT_SECS),
            });
        }
        if c.subagent.is_some() {
            hooks.push(HookSpec {
                event: "subagentStart",
                matcher: None,
                handler: handler("subagent", TIMEOUT_SECS),
            });
        }
        if c.file.is_some() {
            // Its handlers are not grouped: the matcher is the handler's own.
            let mut file = handler("file", TIMEOUT_SECS);
            file["matcher"] = json!(FILE_TOOLS);
            hooks.push(HookSpec {
                event: "preToolUse",
                matcher: None,
                handler: file,
            });
        }
        hooks
    }
}

impl Trust for Copilot {
    /// Trusted by `COPILOT_ALLOW_ALL=true`, or by an entry of `trustedFolders`
    /// in `~/.copilot/config.json` (where its trust dialog records the
    /// answer) that is the project or a folder above it.
    fn project_trusted(&self, root: &Path, home: &Path) -> Option<bool> {
        if copilot_trusts_workspace() {
            return Some(true);
        }
        let config: Value = std::fs::read_to_string(copilot_home(home).join("config.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let trusted = config
            .get("trustedFolders")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|folder| root.starts_with(folder));
        Some(trusted)
    }

    fn trust_advice(&self, root: &Path) -> String {
        format!(
            "Copilot CLI runs a repository's hooks only in a trusted folder: trust it when `copilot` asks, or add {} to `trustedFolders` in ~/.copilot/config.json (or wire every project once with `thehook init --global --agent copilot`, whose hooks need no trust)",
            serde_json::Value::from(root.to_string_lossy())
        )
    }
}

impl TranscriptStore for Copilot {
    /// `~/.copilot/session-state/<id>/events.jsonl`; `workspace.yaml`
    /// beside it names the folder the session ran in (`cwd:`).
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let mut found = Vec::new();
        for dir in subdirs(&copilot_home(scope.home).join("session-state")) {
            let path = dir.join("events.jsonl");
            if !path.is_file() || !(scope.keep)(&path) {
                continue;
            }
            let cwd = workspace_cwd(&dir.join("workspace.yaml"));
            if !scope.belongs(&cwd) {
                continue;
            }
            let Some(id) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                continue;
            };
            found.push(StoredTranscript {
                agent: Agent::Copilot,
                path,
                session_id: id,
                cwd,
            });
        }
        found
    }

    /// Session end says no transcript path: the session's id names it.
    fn transcript_of(&self, session_id: &str, home: &Path) -> Option<PathBuf> {
        let path = copilot_home(home)
            .join("session-state")
            .join(session_id)
            .join("events.jsonl");
        path.is_file().then_some(path)
    }

    /// 1.0.102 writes a new session's `events.jsonl` only after its
    /// sessionEnd hooks have run (and a resumed one's last lines), ending
    /// it with `session.shutdown`: settled once that line was written after
    /// the hook.
    fn transcript_settled(&self, path: Option<&Path>, ended: std::time::SystemTime) -> bool {
        let Some(path) = path else {
            return false;
        };
        let written_after = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= ended);
        written_after && last_event(path).as_deref() == Some("session.shutdown")
    }
}

impl TranscriptFormat for Copilot {
    fn sniffs(&self, record: &Map<String, Value>) -> bool {
        transcript::is_event(record)
    }

    fn read_records(&self, records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        Some(Ok(transcript::parse(records)))
    }
}

/// The `type` of the last event in an `events.jsonl` (read from its end).
fn last_event(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL: u64 = 64 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let line = tail
        .split(|b| *b == b'\n')
        .rev()
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    let event: Value = serde_json::from_slice(line).ok()?;
    event.get("type")?.as_str().map(str::to_string)
}

/// The `cwd` of a session's `workspace.yaml` (id, cwd, git_root, branch,
/// name, times).
fn workspace_cwd(path: &Path) -> Option<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Workspace {
        cwd: Option<PathBuf>,
    }
    let text = std::fs::read_to_string(path).ok()?;
    let workspace: Workspace = serde_yaml::from_str(&text).ok()?;
    workspace.cwd.filter(|cwd| !cwd.as_os_str().is_empty())
}

/// Copilot CLI's own: the folder of its `config.json`, user hooks and
/// sessions (default `~/.copilot`); it exports it to the hooks it runs.
const COPILOT_HOME: &str = "COPILOT_HOME";
/// Copilot CLI's own: exactly `true` allows every tool and trusts the folder
/// it runs in (its repository hooks run).
const COPILOT_ALLOW_ALL: &str = "COPILOT_ALLOW_ALL";

/// Copilot CLI's home folder: `COPILOT_HOME`, else `<home>/.copilot`.
fn copilot_home(home: &std::path::Path) -> PathBuf {
    crate::env::path(COPILOT_HOME).unwrap_or_else(|| home.join(".copilot"))
}

/// Whether Copilot CLI is told to trust whatever folder it runs in.
fn copilot_trusts_workspace() -> bool {
    crate::env::var(COPILOT_ALLOW_ALL).is_some_and(|v| v == "true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_file_names_the_sessions_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("workspace.yaml");
        std::fs::write(
            &file,
            "id: 6edc\ncwd: /tmp/proj\ngit_root: /tmp/proj\nbranch: main\n",
        )
        .unwrap();
        assert_eq!(workspace_cwd(&file), Some(PathBuf::from("/tmp/proj")));
        std::fs::write(&file, "id: x\ncwd: \"/tmp/a b: c\"\n").unwrap();
        assert_eq!(workspace_cwd(&file), Some(PathBuf::from("/tmp/a b: c")));
        std::fs::write(&file, "id: x\n").unwrap();
        assert_eq!(workspace_cwd(&file), None);
    }

    #[test]
    fn a_transcript_is_settled_once_its_shutdown_is_written_after_the_hook() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("events.jsonl");
        let before = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let after = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        assert!(!Copilot.transcript_settled(None, before));
        std::fs::write(&file, "{\"type\":\"session.start\",\"data\":{}}\n{\"type\":\"assistant.turn_end\",\"data\":{}}\n").unwrap();
        assert!(!Copilot.transcript_settled(Some(&file), before));
        std::fs::write(&file, "{\"type\":\"session.start\",\"data\":{}}\n{\"type\":\"session.shutdown\",\"data\":{}}\n").unwrap();
        assert!(Copilot.transcript_settled(Some(&file), before));
        // A shutdown of an earlier run (a resumed session): not yet.
        assert!(!Copilot.transcript_settled(Some(&file), after));
    }

    #[test]
    fn a_trusted_folder_covers_the_folders_under_it() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".copilot")).unwrap();
        std::fs::write(
            home.path().join(".copilot/config.json"),
            r#"{"trustedFolders": ["/srv/work"], "model": "gpt-5-mini"}"#,
        )
        .unwrap();
        let trusted = |p: &str| Copilot.project_trusted(Path::new(p), home.path());
        assert_eq!(trusted("/srv/work"), Some(true));
        assert_eq!(trusted("/srv/work/app"), Some(true));
        assert_eq!(trusted("/srv/workshop"), Some(false));
        assert_eq!(trusted("/elsewhere"), Some(false));
    }
}
