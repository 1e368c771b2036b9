//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`),
//! as 1.0.102 writes them: one event a line, `{"type", "data", "id",
//! "timestamp", "parentId"}`. Read from the real CLI's files:
//! - `session.start` (`sessionId`, `copilotVersion`, `startTime`,
//!   `selectedModel`, `context: {cwd, gitRoot, branch}`), and
//!   `session.resume` when the same session is resumed (the file grows);
//! - `user.message`: `content` is what the person typed; `transformedContent`
//!   adds the date and the prompt hook's `<system_reminder>` (thehook's own
//!   recall), so it is not read;
//! - `assistant.message`: `content`, `toolRequests[] {toolCallId, name,
//!   arguments}`, `reasoningText` when the model reasons;
//! - `tool.execution_complete`: `toolCallId`, `success`, `result.content`
//!   or `error.message`;
//! - `session.error`, `abort`, `session.compaction_complete`: events.
//!
//! `system.message` (Copilot's 22 KB system prompt) and `hook.*` (which
//! record the session-start context thehook injected) are skipped.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::transcript::{
    str_field, Block, Entry, Record, Role, ToolCall, ToolKind, ToolResult, Transcript,
};

/// Whether a JSONL record is a Copilot CLI event: a dotted `type` with a
/// `data` object.
pub(super) fn is_event(o: &Map<String, Value>) -> bool {
    o.get("data").is_some_and(Value::is_object)
        && o.get("type").and_then(Value::as_str).is_some_and(|t| {
            t.starts_with("session.")
                || t.starts_with("user.")
                || t.starts_with("assistant.")
                || t.starts_with("tool.")
        })
}

pub(super) fn parse(records: &[Record]) -> Transcript {
    let mut t = Transcript::default();
    // Tool call id -> (entry, block) of the call, for its result.
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for r in records {
        let v = &r.value;
        let (Some(kind), Some(data)) = (str_field(v, "type"), v.get("data")) else {
            continue;
        };
        let timestamp = str_field(v, "timestamp");
        // A sub-agent's events carry its `agentId`.
        let side = v.get("agentId").is_some_and(|a| !a.is_null());
        let add = |t: &mut Transcript, role: Role, blocks: Vec<Block>| {
            push(t, r.line, role, timestamp, side, blocks)
        };
        match kind {
            "session.start" | "session.resume" => {
                if t.session_id.is_none() {
                    t.session_id = str_field(data, "sessionId").map(str::to_string);
                }
                if t.agent_version.is_none() {
                    t.agent_version = str_field(data, "copilotVersion").map(str::to_string);
                }
                if let Some(model) = str_field(data, "selectedModel") {
                    t.model = Some(model.to_string());
                }
                if let Some(context) = data.get("context") {
                    if t.cwd.is_none() {
                        t.cwd = str_field(context, "cwd").map(str::to_string);
                    }
                    // The branch the session ended on: the latest start says it.
                    if let Some(branch) = str_field(context, "branch") {
                        t.git_branch = Some(branch.to_string());
                    }
                }
                if t.started.is_none() {
                    t.started = str_field(data, "startTime").map(str::to_string);
                }
            }
            "user.message" => {
                if let Some(text) = str_field(data, "content").filter(|s| !s.trim().is_empty()) {
                    add(&mut t, Role::User, text_block(text));
                }
            }
            "assistant.message" => {
                let mut blocks = Vec::new();
                if let Some(thought) = str_field(data, "reasoningText").filter(|s| !s.is_empty()) {
                    blocks.push(Block::Thinking {
                        text: thought.to_string(),
                    });
                }
                if let Some(text) = str_field(data, "content").filter(|s| !s.trim().is_empty()) {
                    blocks.extend(text_block(text));
                }
                for request in data
                    .get("toolRequests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    blocks.push(Block::ToolCall(ToolCall {
                        kind: ToolKind::default(),
                        id: str_field(request, "toolCallId").map(str::to_string),
                        name: str_field(request, "name").unwrap_or("tool").to_string(),
                        input: request.get("arguments").cloned().unwrap_or(Value::Null),
                        result: None,
                    }));
                }
                if blocks.is_empty() {
                    continue;
                }
                // Consecutive assistant messages (a tool loop) are one turn.
                let extend = t
                    .entries
                    .last()
                    .is_some_and(|e| e.role == Role::Assistant && e.sidechain == side);
                if !extend {
                    add(&mut t, Role::Assistant, Vec::new());
                } else {
                    t.note_time(timestamp);
                }
                let e = t.entries.len() - 1;
                for block in blocks {
                    if let Block::ToolCall(ToolCall { id: Some(id), .. }) = &block {
                        calls.insert(id.clone(), (e, t.entries[e].blocks.len()));
                    }
                    t.entries[e].blocks.push(block);
                }
            }
            "tool.execution_complete" => {
                let result = tool_result(data);
                let id = str_field(data, "toolCallId").map(str::to_string);
                let slot = id.as_ref().and_then(|id| calls.get(id)).copied();
                match slot.and_then(|(e, b)| t.entries[e].blocks.get_mut(b)) {
                    Some(Block::ToolCall(call)) if call.result.is_none() => {
                        call.result = Some(result);
                    }
                    _ => add(&mut t, Role::User, vec![Block::ToolResult { id, result }]),
                }
            }
            "session.error" | "abort" | "session.compaction_complete" => {
                let text = match kind {
                    "session.compaction_complete" => "conversation compacted".to_string(),
                    "abort" => "interrupted".to_string(),
                    _ => format!(
                        "error: {}",
                        str_field(data, "message").unwrap_or("the model call failed")
                    ),
                };
                add(&mut t, Role::Event, text_block(&text));
            }
            _ => {}
        }
    }
    t
}

fn text_block(text: &str) -> Vec<Block> {
    vec![Block::Text {
        text: text.to_string(),
    }]
}

fn push(
    t: &mut Transcript,
    line: usize,
    role: Role,
    timestamp: Option<&str>,
    sidechain: bool,
    blocks: Vec<Block>,
) {
    t.note_time(timestamp);
    t.entries.push(Entry {
        line,
        role,
        timestamp: timestamp.map(str::to_string),
        sidechain,
        blocks,
    });
}

/// A `tool.execution_complete`'s outcome: `result.content` (or its
/// `detailedContent`) on success, `error.message` on failure.
fn tool_result(data: &Value) -> ToolResult {
    let success = data.get("success").and_then(Value::as_bool).unwrap_or(true);
    let text = data
        .get("result")
        .and_then(|r| str_field(r, "content").or_else(|| str_field(r, "detailedContent")))
        .or_else(|| data.get("error").and_then(|e| str_field(e, "message")))
        .unwrap_or_default();
    ToolResult {
        text: text.to_string(),
        is_error: !success,
    }
}
