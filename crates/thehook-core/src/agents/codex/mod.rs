//! Codex CLI: `.codex/hooks.json` (Claude Code's shape), each hook trusted
//! by hash in `$CODEX_HOME/config.toml` (Codex skips any other, silently);
//! rollouts in `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, which the
//! sweep reads when SessionEnd did not fire; MCP servers in
//! `.codex/config.toml`. Measured with Codex 0.169.0, the file hook with
//! 0.171.0 (`tests/agents/`).

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::is_thehook_command;
use super::payload::TouchedFile;
use super::shell::Shell;
use super::spec::{
    command_hooks, transcript_path, Described, Description, DistillCli, HookCommands, HookSpec,
    HookTrust, Identity, Install, Mark, McpConfig, Output, Payloads, Protocol, Settings,
    StoreScope, StoredTranscript, TranscriptFormat, TranscriptStore, Trust,
};
use super::store::head_records;
use super::Agent;
use crate::transcript::{NotATranscript, Record, ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct Codex;

/// The tools its file hook runs on (an exact `PreToolUse` matcher): the
/// shell, for the commands that read one file, and patches.
const FILE_TOOLS: &str = "Bash|apply_patch";

/// Its tools, by what they do.
const TOOLS: &[(&str, ToolKind)] = &[
    (
        "view_image",
        ToolKind::new(ToolRole::Looks, ToolShape::Other),
    ),
    (
        "update_plan",
        ToolKind::new(ToolRole::Looks, ToolShape::Plan),
    ),
    (
        "apply_patch",
        ToolKind::new(ToolRole::Writes, ToolShape::Patch),
    ),
    ("shell", ToolKind::new(ToolRole::Runs, ToolShape::Shell)),
    (
        "exec_command",
        ToolKind::new(ToolRole::Runs, ToolShape::Shell),
    ),
    (
        "local_shell",
        ToolKind::new(ToolRole::Runs, ToolShape::Shell),
    ),
];

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "codex",
        short_name: "codex",
        display_name: "Codex",
        aliases: &[],
        folder: ".codex",
        settings_file: "hooks.json",
        binaries: &["codex"],
    },
    protocol: Protocol {
        file: Output::HookSpecific("PreToolUse"),
        // Codex cuts a hook's additional context at 2,500 of its own tokens
        // (`additionalContextLimit`); the budget is counted with the
        // embedding model's tokenizer, so leave room.
        context_token_cap: Some(2_000),
        // `SubagentStart` (0.171.0) takes `additionalContext` into the
        // child's first request; its task is not in the payload.
        subagent: Output::HookSpecific("SubagentStart"),
        ..Protocol::COMMON
    },
    install: Install {
        user_folder: None,
        used_if: &[Mark::Folder(".codex")],
        nests_handlers: true,
        settings_version: None,
        takes_permission_rules: false,
        windows_shell: Shell::PowerShell,
        mcp: McpConfig::Toml {
            file: ".codex/config.toml",
        },
        recall_command: None,
        subagents_folder: None,
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "codex",
        title: "Codex",
        programs: &["codex"],
        command: llm::command,
    },
    writes_documents: false,
};

impl Described for Codex {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for Codex {
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        transcript_path(payload).is_some_and(|p| p.contains("/.codex/"))
    }

    /// Codex has no read tool: a read is a shell command (`Bash`) naming
    /// one file (`cat F`, `sed -n '1,80p' F`, `nl -ba F`, `head`/`tail`);
    /// an edit is `apply_patch`, whose files are in the patch's headers
    /// (the first is taken). Both in `tool_input.command`.
    fn touched_file(&self, payload: &Map<String, Value>) -> Option<TouchedFile> {
        let tool = payload.get("tool_name")?.as_str()?;
        let command = payload.get("tool_input")?.get("command")?.as_str()?;
        let path = match tool {
            "Bash" => read_of(command)?,
            "apply_patch" => command.lines().find_map(|l| {
                ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                    .iter()
                    .find_map(|h| l.strip_prefix(h))
                    .map(str::trim)
            })?,
            _ => return None,
        };
        Some(TouchedFile {
            tool: tool.to_string(),
            path: PathBuf::from(path),
        })
    }
}

impl Settings for Codex {
    fn hooks(&self, c: &HookCommands) -> Vec<HookSpec> {
        // Codex clamps SessionEnd's timeout to 3 s; capture returns in ms.
        command_hooks(c, 3, Some(FILE_TOOLS), None)
    }
}

impl Trust for Codex {
    fn project_trusted(&self, root: &Path, home: &Path) -> Option<bool> {
        let config = read_config(home);
        let level = config.as_ref().and_then(|c| {
            c.get("projects")?
                .get(root.to_str()?)?
                .get("trust_level")?
                .as_str()
        });
        Some(level == Some("trusted"))
    }

    fn trust_advice(&self, root: &Path) -> String {
        format!(
            "Codex runs project hooks only in a trusted project: trust it when `codex` asks, or add `[projects.{}] trust_level = \"trusted\"` to ~/.codex/config.toml",
            // A TOML key, quoted as TOML needs: a Windows path's `\` would
            // be escapes in the `"..."` form.
            toml_edit::Key::new(root.to_string_lossy()).display_repr()
        )
    }

    fn hook_trust(&self, hooks_file: &Path, settings: &Value, home: &Path) -> Option<HookTrust> {
        let mut entries = Vec::new();
        let events = settings.get("hooks")?.as_object()?;
        for (event, groups) in events {
            for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
                let matcher = group.get("matcher").and_then(Value::as_str);
                let handlers = group.get("hooks").and_then(Value::as_array);
                for (h, handler) in handlers.into_iter().flatten().enumerate() {
                    let ours = handler
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_thehook_command);
                    if ours {
                        let key = format!("{}:{}:{g}:{h}", hooks_file.display(), snake_case(event));
                        entries.push((key, hook_hash(event, matcher, handler)));
                    }
                }
            }
        }
        Some(HookTrust {
            agent: Agent::Codex,
            file: codex_home(home).join("config.toml"),
            entries,
        })
    }
}

impl TranscriptStore for Codex {
    /// All projects' rollouts are together; the `session_meta` line names
    /// the cwd.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let mut found = Vec::new();
        let store = codex_home(scope.home).join("sessions");
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
            let Some(meta) = session_meta(&head) else {
                continue;
            };
            // A subagent's rollout is read with its parent's session.
            if parent_thread(meta).is_some() {
                continue;
            }
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

    /// A subagent runs as a thread of its own, written to a rollout of its
    /// own beside its parent's (0.171.0), whose `session_meta` names the
    /// parent: `parent_thread_id`.
    fn subagent_transcripts(&self, session: &Path, session_id: &str) -> Vec<PathBuf> {
        let Some(dir) = session.parent() else {
            return Vec::new();
        };
        crate::transcript::jsonl_files(dir)
            .into_iter()
            .filter(|p| {
                p != session
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
            })
            .filter(|p| {
                let head = head_records(p);
                session_meta(&head).and_then(parent_thread) == Some(session_id)
            })
            .collect()
    }
}

impl TranscriptFormat for Codex {
    fn sniffs(&self, record: &Map<String, Value>) -> bool {
        let ty = record.get("type").and_then(Value::as_str);
        record.contains_key("payload")
            && matches!(
                ty,
                Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
            )
    }

    fn read_records(&self, records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        Some(Ok(transcript::parse(records)))
    }
}

/// The user's Codex config, parsed (`None` when missing or unreadable).
/// The `payload` of a rollout's `session_meta` record, among its first records.
fn session_meta(head: &[Record]) -> Option<&Value> {
    head.iter().find_map(|r| {
        (r.value.get("type")?.as_str()? == "session_meta")
            .then(|| r.value.get("payload"))
            .flatten()
    })
}

/// The thread a subagent's rollout was spawned from, from its `session_meta`.
fn parent_thread(meta: &Value) -> Option<&str> {
    meta.get("parent_thread_id")
        .or_else(|| meta.pointer("/source/subagent/thread_spawn/parent_thread_id"))
        .and_then(Value::as_str)
}

fn read_config(home: &Path) -> Option<toml_edit::DocumentMut> {
    let path = codex_home(home).join("config.toml");
    std::fs::read_to_string(path).ok()?.parse().ok()
}

/// `SessionStart` -> `session_start`, as Codex names events in trust keys.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The hash Codex trusts a hook by (0.169.0, `command_hook_hash`): SHA-256
/// of the hook's normalized definition as compact JSON with sorted keys,
/// with the timeout Codex will use (600 s by default; SessionEnd's 1 s by
/// default and at most 3 s). Checked against Codex's own `hooks/list` by the
/// agent suite: a mismatch shows as a hook that never runs.
pub(crate) fn hook_hash(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    // Fields in sorted order: serde writes them as declared.
    #[derive(serde::Serialize)]
    struct Handler<'a> {
        r#async: bool,
        command: &'a str,
        #[serde(rename = "statusMessage", skip_serializing_if = "Option::is_none")]
        status_message: Option<&'a str>,
        timeout: u64,
        r#type: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Identity<'a> {
        event_name: String,
        hooks: [Handler<'a>; 1],
        #[serde(skip_serializing_if = "Option::is_none")]
        matcher: Option<&'a str>,
    }
    let given = handler.get("timeout").and_then(Value::as_u64);
    let timeout = match event {
        "SessionEnd" => given.unwrap_or(1).clamp(1, 3),
        _ => given.unwrap_or(600).max(1),
    };
    let identity = Identity {
        event_name: snake_case(event),
        hooks: [Handler {
            r#async: handler
                .get("async")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            command: handler
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default(),
            status_message: handler.get("statusMessage").and_then(Value::as_str),
            timeout,
            r#type: handler
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("command"),
        }],
        matcher,
    };
    let json = serde_json::to_string(&identity).expect("plain data serializes");
    format!("sha256:{}", crate::hash::sha256_hex(json.as_bytes()))
}

/// Codex CLI's own: the folder of its `config.toml` and sessions (default `~/.codex`).
const CODEX_HOME: &str = "CODEX_HOME";
/// Codex's home folder: `CODEX_HOME`, else `<home>/.codex`.
fn codex_home(home: &std::path::Path) -> PathBuf {
    crate::env::path(CODEX_HOME).unwrap_or_else(|| home.join(".codex"))
}

/// The one file a shell command only reads: `cat F`, `nl -ba F`, `head F`,
/// `tail F` (with `-n N`), `sed -n 'A,Bp' F`; `None` for anything else
/// (pipes, several files, a command that writes).
fn read_of(command: &str) -> Option<&str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let file = match words.as_slice() {
        ["cat" | "head" | "tail", file] => *file,
        ["nl", "-ba", file] => *file,
        ["head" | "tail", "-n", n, file] if n.chars().all(|c| c.is_ascii_digit()) => *file,
        ["sed", "-n", range, file]
            if range
                .trim_matches(['\'', '"'])
                .strip_suffix('p')
                .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == ',')) =>
        {
            *file
        }
        _ => return None,
    };
    let file = file.trim_matches(['\'', '"']);
    let plain = !file.is_empty()
        && !file.starts_with('-')
        && !file.contains(['|', ';', '&', '<', '>', '$', '`', '*']);
    plain.then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Hashes Codex 0.169.0 itself reported (`codex app-server`,
    /// `hooks/list`, `currentHash`) for the hooks init writes.
    #[test]
    fn hook_hashes_match_what_codex_computes() {
        let start = json!({"type": "command", "timeout": 10,
            "command": "/usr/local/bin/thehook retrieve --agent codex"});
        assert_eq!(
            hook_hash("SessionStart", Some("startup"), &start),
            "sha256:f788da452f693868dbd865132df2e0a38b89270a8349baec9dee3afdbea1ddbb"
        );
        // SessionEnd's timeout is hashed as Codex clamps it (at most 3 s).
        for timeout in [3, 10] {
            let end = json!({"type": "command", "timeout": timeout,
                "command": "/usr/local/bin/thehook capture --agent codex"});
            assert_eq!(
                hook_hash("SessionEnd", None, &end),
                "sha256:2bddfff8e242d5bc757ad06a11021cb305b43f98d9674c55c146ed67f729f4e2"
            );
        }
    }

    /// Payloads as Codex 0.169.0 and 0.171.0 send them to a PreToolUse hook.
    #[test]
    fn a_shell_read_of_one_file_or_a_patch_names_the_file_touched() {
        let touched = |tool: &str, command: &str| {
            let payload = json!({"session_id": "s", "hook_event_name": "PreToolUse",
                "tool_name": tool, "tool_input": {"command": command}, "tool_use_id": "call_1"});
            Codex
                .touched_file(payload.as_object().unwrap())
                .map(|t| t.path.to_string_lossy().into_owned())
        };
        assert_eq!(
            touched("Bash", "cat server.js").as_deref(),
            Some("server.js")
        );
        assert_eq!(
            touched("Bash", "sed -n '1,80p' src/a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(
            touched("Bash", "nl -ba 'src/b.rs'").as_deref(),
            Some("src/b.rs")
        );
        for not_a_read in [
            "cat a b",
            "cat a | head",
            "rm -rf x",
            "cat $HOME/.env",
            "ls src",
        ] {
            assert_eq!(touched("Bash", not_a_read), None, "{not_a_read}");
        }
        let patch = "*** Begin Patch\n*** Update File: src/parser.js\n@@\n-a\n+b\n*** End Patch\n";
        assert_eq!(
            touched("apply_patch", patch).as_deref(),
            Some("src/parser.js")
        );
        assert_eq!(touched("Read", "server.js"), None);
    }

    #[test]
    fn events_are_named_as_codex_names_them_in_trust_keys() {
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("SessionEnd"), "session_end");
    }
}
