//! opencode sessions, as `opencode export <id>` prints them and thehook's
//! opencode plugin writes them (the same shape, from the plugin API's
//! `session.get` and `session.messages`): one JSON document,
//! `{"info": Session, "messages": [{"info": Message, "parts": [Part]}]}`.
//! Read from opencode 1.18.33:
//! - `info`: `id` (`ses_…`), `directory`, `title`, `version`,
//!   `time.created`/`time.updated` (epoch milliseconds), `parentID` for a
//!   subagent's session;
//! - a message's `info`: `role` (`user` | `assistant`), `time.created`,
//!   `modelID` on the assistant's;
//! - parts: `text` (`synthetic: true` when opencode or a plugin added it,
//!   such as thehook's own recall), `reasoning`, `tool` (`tool`, `callID`,
//!   `state.status`, `state.input`, `state.output` or `state.error`), and
//!   bookkeeping (`step-start`, `step-finish`, `snapshot`, `patch`) skipped.

use serde_json::Value;

use crate::transcript::{
    str_field, Block, Entry, Role, ToolCall, ToolKind, ToolResult, Transcript,
};

/// Whether `doc` is an opencode session export.
pub(super) fn is_export(doc: &Value) -> bool {
    doc.get("messages").is_some_and(Value::is_array)
        && doc
            .get("info")
            .and_then(|i| str_field(i, "id"))
            .is_some_and(|id| id.starts_with("ses"))
}

/// The session in an export, or `None` when `doc` is not one.
pub(super) fn parse(doc: &Value) -> Option<Transcript> {
    if !is_export(doc) {
        return None;
    }
    let info = &doc["info"];
    let mut t = Transcript {
        session_id: str_field(info, "id").map(str::to_string),
        cwd: str_field(info, "directory").map(str::to_string),
        title: str_field(info, "title").map(str::to_string),
        agent_version: str_field(info, "version").map(str::to_string),
        model: info
            .get("model")
            .and_then(|m| str_field(m, "id"))
            .map(str::to_string),
        ..Transcript::default()
    };
    let messages = doc["messages"].as_array().expect("checked by is_export");
    // No lines in a document: entries are numbered by message instead.
    for (i, message) in messages.iter().enumerate() {
        let Some(info) = message.get("info") else {
            continue;
        };
        let timestamp = info
            .get("time")
            .and_then(|t| t.get("created"))
            .and_then(millis_to_iso);
        t.note_time(timestamp.as_deref());
        if let Some(model) = str_field(info, "modelID") {
            t.model = Some(model.to_string());
        }
        let parts = message.get("parts").and_then(Value::as_array);
        let parts = parts.map(Vec::as_slice).unwrap_or_default();
        let (role, blocks) = match str_field(info, "role") {
            Some("user") => user_blocks(parts),
            Some("assistant") => (Role::Assistant, assistant_blocks(parts)),
            _ => continue,
        };
        if blocks.is_empty() {
            continue;
        }
        // Consecutive assistant messages (the steps of one tool loop) are one turn.
        if role == Role::Assistant && t.entries.last().is_some_and(|e| e.role == role) {
            t.entries.last_mut().expect("checked").blocks.extend(blocks);
            continue;
        }
        t.entries.push(Entry {
            line: i + 1,
            role,
            timestamp,
            sidechain: false,
            blocks,
        });
    }
    // The session's own times bound the messages'.
    if let Some(time) = info.get("time") {
        if let Some(created) = time.get("created").and_then(millis_to_iso) {
            t.started = Some(created);
        }
        if let Some(updated) = time.get("updated").and_then(millis_to_iso) {
            t.ended = Some(updated);
        }
    }
    Some(t)
}

/// A user message: what the person typed, or context when every text part
/// is synthetic (opencode's file attachments, a plugin's recall).
fn user_blocks(parts: &[Value]) -> (Role, Vec<Block>) {
    let typed: Vec<Block> = texts(parts, false);
    if typed.is_empty() {
        (Role::Context, texts(parts, true))
    } else {
        (Role::User, typed)
    }
}

fn texts(parts: &[Value], synthetic: bool) -> Vec<Block> {
    parts
        .iter()
        .filter(|p| str_field(p, "type") == Some("text"))
        .filter(|p| p.get("synthetic").and_then(Value::as_bool).unwrap_or(false) == synthetic)
        .filter_map(|p| str_field(p, "text"))
        .filter(|text| !text.trim().is_empty())
        .map(|text| Block::Text {
            text: text.to_string(),
        })
        .collect()
}

fn assistant_blocks(parts: &[Value]) -> Vec<Block> {
    parts
        .iter()
        .filter_map(|p| match str_field(p, "type")? {
            "text" => {
                let text = str_field(p, "text").filter(|t| !t.trim().is_empty())?;
                Some(Block::Text {
                    text: text.to_string(),
                })
            }
            "reasoning" => {
                let text = str_field(p, "text").filter(|t| !t.trim().is_empty())?;
                Some(Block::Thinking {
                    text: text.to_string(),
                })
            }
            "tool" => Some(Block::ToolCall(tool_call(p))),
            _ => None,
        })
        .collect()
}

/// A `tool` part: the call and, once it ran, its result (`output` when
/// `completed`, `error` when `error`; none while `pending` or `running`).
fn tool_call(part: &Value) -> ToolCall {
    let state = part.get("state").cloned().unwrap_or(Value::Null);
    let result = match str_field(&state, "status") {
        Some("completed") => Some(ToolResult {
            text: str_field(&state, "output").unwrap_or_default().to_string(),
            is_error: false,
        }),
        Some("error") => Some(ToolResult {
            text: str_field(&state, "error").unwrap_or_default().to_string(),
            is_error: true,
        }),
        _ => None,
    };
    ToolCall {
        kind: ToolKind::default(),
        id: str_field(part, "callID").map(str::to_string),
        name: str_field(part, "tool").unwrap_or("tool").to_string(),
        input: state.get("input").cloned().unwrap_or(Value::Null),
        result,
    }
}

/// Epoch milliseconds as an RFC 3339 timestamp.
fn millis_to_iso(v: &Value) -> Option<String> {
    let ms = v.as_i64()?;
    jiff::Timestamp::from_millisecond(ms)
        .ok()
        .map(|t| t.to_string())
}
