//! The agents thehook wires into, and what their session hooks send and
//! expect (checked against each agent's hook docs and, for Codex and
//! Gemini CLI, against the real CLIs; the README's agent table).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// An agent with session hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    ClaudeCode,
    Cursor,
    Codex,
    Gemini,
}

/// The agent that writes transcripts of this format.
impl From<crate::capture::transcript::Format> for Agent {
    fn from(format: crate::capture::transcript::Format) -> Agent {
        use crate::capture::transcript::Format;
        match format {
            Format::ClaudeCode => Agent::ClaudeCode,
            Format::Cursor => Agent::Cursor,
            Format::Codex => Agent::Codex,
            Format::Gemini => Agent::Gemini,
        }
    }
}

impl Agent {
    pub const ALL: [Agent; 4] = [
        Agent::ClaudeCode,
        Agent::Cursor,
        Agent::Codex,
        Agent::Gemini,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Cursor => "cursor",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The name people type (`--agent claude`).
    pub fn short_name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude",
            other => other.as_str(),
        }
    }

    /// Accepts the names people use: `claude`, `claude-code`, `cursor`, ...
    pub fn parse(name: &str) -> Option<Agent> {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claudecode" => Some(Agent::ClaudeCode),
            "cursor" | "cursor-agent" => Some(Agent::Cursor),
            "codex" => Some(Agent::Codex),
            "gemini" | "gemini-cli" => Some(Agent::Gemini),
            _ => None,
        }
    }

    /// The folder that holds the agent's settings, in a project or in `$HOME`.
    pub fn folder(self) -> &'static str {
        match self {
            Agent::ClaudeCode => ".claude",
            Agent::Cursor => ".cursor",
            Agent::Codex => ".codex",
            Agent::Gemini => ".gemini",
        }
    }

    /// The settings file with the agent's hooks, relative to project or home.
    pub fn settings_file(self) -> PathBuf {
        let name = match self {
            Agent::ClaudeCode | Agent::Gemini => "settings.json",
            Agent::Cursor | Agent::Codex => "hooks.json",
        };
        PathBuf::from(self.folder()).join(name)
    }

    /// Programs whose presence on PATH says the agent is installed.
    pub fn binaries(self) -> &'static [&'static str] {
        match self {
            Agent::ClaudeCode => &["claude"],
            Agent::Cursor => &["cursor-agent", "cursor"],
            Agent::Codex => &["codex"],
            Agent::Gemini => &["gemini"],
        }
    }

    /// Whether the agent's settings under `base` (a project or `$HOME`) hold
    /// a thehook hook command.
    pub fn runs_thehook(self, base: &Path) -> bool {
        std::fs::read_to_string(base.join(self.settings_file()))
            .is_ok_and(|t| t.lines().any(is_thehook_command_line))
    }
}

/// Whether a hook command runs thehook's `retrieve` or `capture`, whatever
/// path or arguments it was written with.
pub fn is_thehook_command(command: &str) -> bool {
    let words = shlex::split(command).unwrap_or_default();
    let mut words = words.iter();
    let is_bin = words.next().is_some_and(|w| {
        let name = Path::new(w)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        matches!(name.as_deref(), Some("thehook" | "thehook.js"))
    });
    is_bin
        && words
            .next()
            .is_some_and(|w| w == "retrieve" || w == "capture")
}

/// Whether a line of a settings file holds a thehook hook command (a cheap
/// check for readers that do not parse the file).
pub fn is_thehook_command_line(line: &str) -> bool {
    line.split('"').any(|part| is_thehook_command(part.trim()))
}

/// The agent settings files of this project that run thehook
/// (`.claude/settings.json`, ...).
pub fn hooks_wired(root: &Path) -> Vec<String> {
    Agent::ALL
        .into_iter()
        .filter(|a| a.runs_thehook(root))
        .map(|a| a.settings_file().to_string_lossy().into_owned())
        .collect()
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a session hook received on stdin, whichever agent sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookPayload {
    pub agent: Agent,
    pub session_id: Option<String>,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    /// startup | resume | clear | compact (absent from Cursor's payload).
    pub source: Option<String>,
    /// Why the session ended (session-end payloads).
    pub reason: Option<String>,
    pub hook_event_name: Option<String>,
}

/// Why a hook's stdin is not a payload (logged; the hook still exits 0).
#[derive(Debug, thiserror::Error)]
pub enum BadPayload {
    #[error("stdin is empty: the agent sent no payload")]
    Empty,
    #[error("stdin is not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("stdin is JSON but not an object")]
    NotAnObject,
    #[error("the payload has neither session_id nor hook_event_name")]
    Anonymous,
}

impl HookPayload {
    /// Reads a payload. `declared` is the agent the hook command was written
    /// for (`--agent`); the payload's shape wins over it, because Cursor runs
    /// Claude Code's hooks with its own payload.
    pub fn parse(stdin: &str, declared: Option<Agent>) -> Result<HookPayload, BadPayload> {
        if stdin.trim().is_empty() {
            return Err(BadPayload::Empty);
        }
        let v: Value = serde_json::from_str(stdin.trim()).map_err(BadPayload::NotJson)?;
        let o = v.as_object().ok_or(BadPayload::NotAnObject)?;
        let s = |k: &str| o.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        let session_id = s("session_id").or_else(|| s("conversation_id"));
        let event = s("hook_event_name");
        if session_id.is_none() && event.is_none() {
            return Err(BadPayload::Anonymous);
        }
        let transcript = s("transcript_path");
        let agent = if o.contains_key("cursor_version") || o.contains_key("workspace_roots") {
            Agent::Cursor
        } else if transcript.is_some_and(|p| p.contains("/.codex/")) {
            Agent::Codex
        } else if transcript.is_some_and(|p| p.contains("/.gemini/"))
            || (o.contains_key("timestamp") && !o.contains_key("permission_mode"))
        {
            Agent::Gemini
        } else {
            declared.unwrap_or(Agent::ClaudeCode)
        };
        let cwd = s("cwd").map(PathBuf::from).or_else(|| {
            o.get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
                .map(PathBuf::from)
        });
        Ok(HookPayload {
            agent,
            session_id: session_id.map(str::to_string),
            transcript_path: transcript.map(PathBuf::from),
            cwd,
            source: s("source").map(str::to_string),
            reason: s("reason").map(str::to_string),
            hook_event_name: event.map(str::to_string),
        })
    }

    /// Whether this is Cursor running a hook written for Claude Code while
    /// Cursor's own hooks run thehook too: then those answer and this one
    /// stays silent, so a session is injected and captured once.
    pub fn is_cursor_echo(
        &self,
        declared: Option<Agent>,
        project_root: &Path,
        home: Option<&Path>,
    ) -> bool {
        self.agent == Agent::Cursor
            && declared == Some(Agent::ClaudeCode)
            && cursor_runs_thehook(project_root, home)
    }
}

/// Whether Cursor has thehook in its own hooks (the project's or the
/// user's); see [`HookPayload::is_cursor_echo`].
pub fn cursor_runs_thehook(project_root: &Path, home: Option<&Path>) -> bool {
    Agent::Cursor.runs_thehook(project_root) || home.is_some_and(|h| Agent::Cursor.runs_thehook(h))
}

/// The session-start output that makes `agent` add `context` to the session.
pub fn session_start_output(agent: Agent, context: &str) -> Value {
    match agent {
        Agent::Cursor => json!({ "additional_context": context }),
        Agent::ClaudeCode | Agent::Codex | Agent::Gemini => json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": context,
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_shape_names_the_agent() {
        let claude = r#"{"session_id":"s","transcript_path":"/h/.claude/projects/p/s.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"SessionStart","source":"startup","model":"m"}"#;
        let cursor = r#"{"session_id":"c","conversation_id":"c","cursor_version":"2.1","workspace_roots":["/p"],"hook_event_name":"sessionStart","transcript_path":null}"#;
        let codex = r#"{"session_id":"x","transcript_path":"/h/.codex/sessions/2026/01/01/rollout-x.jsonl","cwd":"/p","hook_event_name":"SessionStart","source":"resume"}"#;
        let gemini = r#"{"session_id":"g","transcript_path":"/h/.gemini/tmp/a/chats/s.json","cwd":"/p","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z","source":"startup"}"#;
        let agent = |s: &str, d| HookPayload::parse(s, d).unwrap().agent;
        assert_eq!(agent(claude, None), Agent::ClaudeCode);
        assert_eq!(agent(cursor, Some(Agent::ClaudeCode)), Agent::Cursor);
        assert_eq!(agent(codex, Some(Agent::ClaudeCode)), Agent::Codex);
        assert_eq!(agent(gemini, None), Agent::Gemini);
        // Codex's payload can lack a transcript path: the hook's --agent decides.
        let bare = r#"{"session_id":"x","transcript_path":null,"cwd":"/p","hook_event_name":"SessionStart","permission_mode":"default","source":"startup"}"#;
        assert_eq!(agent(bare, Some(Agent::Codex)), Agent::Codex);
        let p = HookPayload::parse(cursor, None).unwrap();
        assert_eq!(p.cwd.as_deref(), Some(std::path::Path::new("/p")));
        assert_eq!(p.source, None);
    }

    #[test]
    fn outputs_follow_each_agents_protocol() {
        assert_eq!(
            session_start_output(Agent::Cursor, "x"),
            json!({"additional_context": "x"})
        );
        assert_eq!(
            session_start_output(Agent::Gemini, "x")["hookSpecificOutput"]["additionalContext"],
            "x"
        );
    }

    #[test]
    fn thehook_commands_are_recognised_by_program_and_subcommand() {
        for ours in [
            "thehook retrieve",
            "/usr/local/bin/thehook capture --agent cursor",
            "'/Users/a b/bin/thehook' retrieve --agent claude-code",
            "node_modules/.bin/thehook.js retrieve",
        ] {
            assert!(is_thehook_command(ours), "{ours}");
        }
        for foreign in [
            "thehook recall x",
            "echo thehook retrieve",
            "./lint.sh",
            "thehookx retrieve",
            "",
        ] {
            assert!(!is_thehook_command(foreign), "{foreign}");
        }
    }
}
