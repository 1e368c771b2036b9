//! What the agents' session hooks send on stdin, and what they expect back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Agent;

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
    /// What the person typed (prompt payloads).
    pub prompt: Option<String>,
    /// The file a tool call reads or edits (file-hook payloads).
    pub touched: Option<TouchedFile>,
    /// The subagent the payload comes from, when not the main thread: its
    /// id where the agent says one (the payload's own field,
    /// `Protocol::subagent_field`), else its type.
    pub subagent: Option<String>,
    /// The subagent's type (`Explore`, `general-purpose`): Claude Code's and
    /// Codex's `agent_type`, Copilot CLI's `agentName`.
    pub agent_type: Option<String>,
    /// The task a tool call hands to a new subagent (Claude Code's `Agent`
    /// tool: its `prompt` and `subagent_type`).
    pub handed: Option<HandedTask>,
}

/// The task a main thread hands a subagent it starts, read from the tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedTask {
    pub agent_type: Option<String>,
    pub task: String,
}

/// The file one tool call reads or edits, as the agent named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedFile {
    pub tool: String,
    /// As the agent sent it: absolute, or relative to the payload's `cwd`.
    pub path: PathBuf,
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
        // Copilot CLI's payloads are camelCase.
        let session_id = s("session_id")
            .or_else(|| s("conversation_id"))
            .or_else(|| s("sessionId"));
        let event = s("hook_event_name");
        if session_id.is_none() && event.is_none() {
            return Err(BadPayload::Anonymous);
        }
        let transcript = s("transcript_path");
        let agent = Agent::ALL
            .into_iter()
            .find(|a| a.spec().sent(o))
            .or(declared)
            .unwrap_or(Agent::DEFAULT);
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
            source: s("source")
                .map(|source| agent.description().protocol.source_name(source).to_string()),
            reason: s("reason").map(str::to_string),
            hook_event_name: event.map(str::to_string),
            prompt: s("prompt").map(str::to_string),
            touched: agent.spec().touched_file(o),
            subagent: o
                .get(agent.description().protocol.subagent_field)
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .or_else(|| s("agentName"))
                .map(str::to_string),
            agent_type: s("agent_type")
                .or_else(|| s("agentName"))
                .map(str::to_string),
            handed: handed_task(o),
        })
    }

    /// When the agent that sent this payload ran a hook written for another
    /// agent (`declared`) while its own hooks run thehook too: the log line
    /// saying which of its own hooks answers instead. Then this one stays
    /// silent, so a session is injected and captured once.
    pub fn echo(
        &self,
        declared: Option<Agent>,
        event: HookEvent,
        project_root: &Path,
        home: Option<&Path>,
    ) -> Option<String> {
        let declared = declared.filter(|d| *d != self.agent)?;
        let own_event = self
            .agent
            .description()
            .protocol
            .event_running_hooks_of(declared, event)?;
        let own_hooks = self.agent.runs_thehook(project_root)
            || home.is_some_and(|h| self.agent.runs_thehook(h));
        let verb = match event {
            HookEvent::SessionEnd => "captures",
            _ => "answers",
        };
        own_hooks.then(|| {
            format!(
                "{} ran {}'s hook; its own {own_event} hook {verb}",
                self.agent.display_name(),
                declared.display_name()
            )
        })
    }
}

/// The task of a tool call that starts a subagent: Claude Code's `Agent`
/// (formerly `Task`) with `tool_input.prompt` and `subagent_type`.
fn handed_task(o: &serde_json::Map<String, Value>) -> Option<HandedTask> {
    let tool = o.get("tool_name")?.as_str()?;
    if !SUBAGENT_TOOLS.contains(&tool) {
        return None;
    }
    let input = o.get("tool_input")?;
    let task = input
        .get("prompt")?
        .as_str()
        .filter(|t| !t.trim().is_empty())?;
    Some(HandedTask {
        agent_type: input
            .get("subagent_type")
            .and_then(Value::as_str)
            .map(str::to_string),
        task: task.to_string(),
    })
}

/// The tools that start a subagent with a task, whose calls the subagent
/// hook reads the task from (a `PreToolUse` matcher).
pub const SUBAGENT_TOOLS: [&str; 2] = ["Agent", "Task"];

/// The moments agents run thehook's hooks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    SessionStart,
    Prompt,
    /// A tool call that reads or edits a file.
    FileTouch,
    /// A subagent starts (and, for Claude Code, the tool call that starts
    /// it, which says its task).
    SubagentStart,
    SessionEnd,
}

impl HookEvent {
    /// The thehook command an agent's hook runs for it (one of
    /// [`super::HOOK_COMMANDS`]).
    pub fn command(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "retrieve",
            HookEvent::Prompt => "prompt",
            HookEvent::FileTouch => "file",
            HookEvent::SubagentStart => "subagent",
            HookEvent::SessionEnd => "capture",
        }
    }
}

/// The session-start output that makes `agent` add `context` to the session.
pub fn session_start_output(agent: Agent, context: &str) -> Value {
    agent
        .description()
        .protocol
        .session_start
        .with(context)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each agent names a subagent's tool call by its own field.
    #[test]
    fn a_subagents_tool_call_is_told_by_the_agents_own_field() {
        let sub = |stdin: &str, agent| {
            HookPayload::parse(stdin, Some(agent))
                .unwrap()
                .subagent
                .is_some()
        };
        let claude = r#"{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a.rs"}"#;
        assert!(!sub(&format!("{claude}}}"), Agent::ClaudeCode));
        assert!(sub(
            &format!(r#"{claude},"agent_id":"a1"}}"#),
            Agent::ClaudeCode
        ));
        let copilot = r#"{"sessionId":"c1","timestamp":1,"cwd":"/p","toolName":"view","toolArgs":{"path":"/p/a.rs"}"#;
        assert!(!sub(&format!("{copilot}}}"), Agent::Copilot));
        assert!(sub(
            &format!(r#"{copilot},"agentId":"sub-1"}}"#),
            Agent::Copilot
        ));
        assert!(!sub(
            &format!(r#"{copilot},"agent_id":"sub-1"}}"#),
            Agent::Copilot
        ));
    }

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
        // Copilot CLI's camelCase payload (1.0.102), whatever the hook declared.
        let copilot = r#"{"sessionId":"c1","timestamp":1795651152393,"cwd":"/p","source":"new","initialPrompt":"hi"}"#;
        let p = HookPayload::parse(copilot, None).unwrap();
        assert_eq!(
            (p.agent, p.session_id.as_deref()),
            (Agent::Copilot, Some("c1"))
        );
        assert_eq!(p.source.as_deref(), Some("startup"));
        assert_eq!(agent(copilot, None), Agent::Copilot);
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
        // Copilot CLI reads only the flat key, at session start and each prompt.
        assert_eq!(
            session_start_output(Agent::Copilot, "x"),
            json!({"additionalContext": "x"})
        );
        assert_eq!(
            Agent::Copilot.description().protocol.prompt.with("x"),
            Some(json!({"additionalContext": "x"}))
        );
        assert_eq!(
            session_start_output(Agent::Gemini, "x")["hookSpecificOutput"]["additionalContext"],
            "x"
        );
    }
}
