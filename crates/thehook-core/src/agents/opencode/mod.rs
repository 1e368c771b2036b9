//! opencode: no command hooks, so init installs a plugin file,
//! `.opencode/plugins/thehook.js` (or `~/.config/opencode/plugins/` with
//! `--global`), that runs thehook's hook commands itself. Read from opencode
//! 1.18.33's plugin API and run against a mock model server:
//! - nothing fires at session start: `experimental.chat.system.transform`
//!   runs before every model request (title generation too) and its effect
//!   is not kept, so memory is looked up once per session and added each time;
//! - `chat.message` may add a part to the person's message (synthetic);
//! - `tool.execute.before` can only block a tool (by throwing), but
//!   `tool.execute.after` may append to the tool's output: the file hook;
//! - a subagent runs in a child session, whose `parentID` is set;
//! - `session.idle` fires after every turn and nothing at a session's end:
//!   only the plugin's `dispose`, awaited as opencode exits, ends them;
//! - sessions live in SQLite (`opencode.db`), so the plugin writes each one
//!   as `opencode export` prints it to `~/.local/share/thehook/opencode/`,
//!   where thehook lists, reads and sweeps them.

mod llm;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::payload::TouchedFile;
use super::shell::Shell;
use super::spec::{
    file_of_call, Described, Description, DistillCli, HookCommands, HookSpec, Identity, Install,
    Mark, McpConfig, Output, Payloads, Protocol, Settings, StoreScope, StoredTranscript,
    TranscriptFormat, TranscriptStore, Trust,
};
use super::Agent;
use crate::transcript::{ToolKind, ToolRole, ToolShape, Transcript};

pub(super) struct Opencode;

/// Its tools that compact lines know (it has more: `read`, `edit`,
/// `bash`... are not classified yet).
const TOOLS: &[(&str, ToolKind)] = &[("write", ToolKind::new(ToolRole::Other, ToolShape::Write))];

/// opencode's tools that read or change one file, as the plugin names them.
const FILE_TOOLS: &str = "read|edit|write|apply_patch";

/// The plugin, with `__THEHOOK_BIN__` (a JS string), `__ON_PROMPT__`,
/// `__ON_FILE__` and `__MARKER__` to fill in.
const PLUGIN: &str = include_str!("plugin.js");

const DESCRIPTION: Description = Description {
    identity: Identity {
        name: "opencode",
        short_name: "opencode",
        display_name: "opencode",
        aliases: &["opencode-ai", "open-code"],
        folder: ".opencode",
        settings_file: "plugins/thehook.js",
        binaries: &["opencode"],
    },
    protocol: Protocol {
        // The plugin adds the text to the system prompt itself.
        session_start: Output::Field("additionalContext"),
        prompt: Output::Field("additionalContext"),
        // The plugin appends the text to the tool's output (its
        // `tool.execute.after`: the before hook can only block).
        file: Output::Field("additionalContext"),
        ..Protocol::COMMON
    },
    install: Install {
        user_folder: Some(".config/opencode"),
        // Its folder, or a project config file (`opencode.json`, `.jsonc`).
        used_if: &[
            Mark::Folder(".opencode"),
            Mark::File("opencode.json"),
            Mark::File("opencode.jsonc"),
        ],
        nests_handlers: true,
        settings_version: None,
        takes_permission_rules: false,
        windows_shell: Shell::Posix,
        // `opencode.json` (or `.jsonc`) holds MCP servers under `mcp`, in a
        // shape of its own, in a file init does not edit.
        mcp: McpConfig::ByHand {
            advice: r#"to give opencode the MCP server, add to opencode.json: "mcp": {"thehook": {"type": "local", "command": [{bin}, "mcp"]}}"#,
        },
        recall_command: None,
        subagents_folder: None,
    },
    tools: TOOLS,
    distill: DistillCli {
        name: "opencode",
        title: "opencode",
        programs: &["opencode"],
        command: llm::command,
    },
    writes_documents: true,
};

impl Described for Opencode {
    fn description(&self) -> &'static Description {
        &DESCRIPTION
    }
}

impl Payloads for Opencode {
    /// The plugin sends `hook_event_name` with opencode's session ids.
    fn sent(&self, payload: &Map<String, Value>) -> bool {
        payload
            .get("session_id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with("ses_"))
            && !payload.contains_key("timestamp")
    }

    /// The plugin sends opencode's tool and the file it names (`filePath`,
    /// or an `apply_patch`'s first file) as `tool_input.file_path`.
    fn touched_file(&self, payload: &Map<String, Value>) -> Option<TouchedFile> {
        let (tool, input) = (payload.get("tool_name"), payload.get("tool_input"));
        file_of_call(tool, FILE_TOOLS, input, "file_path")
    }
}

impl Settings for Opencode {
    fn hooks(&self, _c: &HookCommands) -> Vec<HookSpec> {
        Vec::new()
    }

    /// The plugin names each command it runs as `run("<sub>", ...)`; the
    /// prompt's runs only with `ON_PROMPT` on, the file hook's with `ON_FILE`.
    fn runs_hook_in(&self, text: &str, sub: &str) -> bool {
        let on = match sub {
            "prompt" => text.contains("const ON_PROMPT = true;"),
            "file" => text.contains("const ON_FILE = true;"),
            _ => true,
        };
        on && text.contains("const THEHOOK = ") && text.contains(&format!("run(\"{sub}\""))
    }

    fn plugin(&self, c: &HookCommands, marker: &str) -> Option<String> {
        let program = Value::from(c.hook_bin).to_string();
        Some(
            PLUGIN
                .replacen("__THEHOOK_BIN__", &program, 1)
                .replacen(
                    "__ON_PROMPT__",
                    if c.prompt.is_some() { "true" } else { "false" },
                    1,
                )
                .replacen(
                    "__ON_FILE__",
                    if c.file.is_some() { "true" } else { "false" },
                    1,
                )
                .replacen("__MARKER__", marker, 1),
        )
    }
}

impl Trust for Opencode {}

impl TranscriptStore for Opencode {
    /// The sessions the plugin wrote, whose `info.directory` is the project.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript> {
        let Ok(entries) = std::fs::read_dir(store(scope.home)) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for path in entries.flatten().map(|e| e.path()) {
            if path.extension().is_none_or(|x| x != "json") || !(scope.keep)(&path) {
                continue;
            }
            let Some((id, cwd)) = session_of(&path) else {
                continue;
            };
            if scope.belongs(&cwd) {
                found.push(StoredTranscript {
                    agent: Agent::Opencode,
                    path,
                    session_id: id,
                    cwd,
                });
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found
    }

    fn transcript_of(&self, session_id: &str, home: &Path) -> Option<PathBuf> {
        let path = store(home).join(format!("{session_id}.json"));
        path.is_file().then_some(path)
    }
}

impl TranscriptFormat for Opencode {
    fn read_document(&self, doc: &Value) -> Option<Transcript> {
        transcript::parse(doc)
    }
}

/// Where the plugin keeps sessions: `$XDG_DATA_HOME/thehook/opencode`
/// (default `~/.local/share`), as opencode keeps its own data.
fn store(home: &Path) -> PathBuf {
    crate::env::data_home(home).join("thehook").join("opencode")
}

/// A stored session's id and folder (`info.id`, `info.directory`).
fn session_of(path: &Path) -> Option<(String, Option<PathBuf>)> {
    #[derive(serde::Deserialize)]
    struct Export {
        info: Info,
    }
    #[derive(serde::Deserialize)]
    struct Info {
        id: String,
        directory: Option<PathBuf>,
    }
    // Read as a stream: the messages are skipped, not held (an export of a
    // long session is hundreds of MB).
    let file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
    let export: Export = serde_json::from_reader(file).ok()?;
    Some((export.info.id, export.info.directory))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_runs_the_program_it_was_given_quoted_as_js() {
        let bin = r#"C:\Program Files\it's "thehook".exe"#;
        let off = crate::agents::spec::Wired {
            prompt: false,
            file: false,
        };
        let c = HookCommands::new(Agent::Opencode, bin, off, vec![]);
        let plugin = Opencode.plugin(&c, "MARK").unwrap();
        assert!(plugin.contains(r#"const THEHOOK = "C:\\Program Files\\it's \"thehook\".exe";"#));
        assert!(plugin.contains("\n// MARK\n"));
        assert!(!plugin.contains("__"), "every placeholder is filled");
    }
}
