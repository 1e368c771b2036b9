//! Gemini CLI sessions: one JSON document (`sessionId`, `startTime`,
//! `messages`), whatever the file is named.

use serde_json::Value;

use super::{str_field, Block, Entry, Role, ToolCall, ToolResult, Transcript};

/// The session in `doc`, or `None` when it is not a Gemini CLI session.
pub(super) fn parse(doc: &Value) -> Option<Transcript> {
    let messages = doc.get("messages")?.as_array()?;
    str_field(doc, "sessionId")?;
    let mut t = Transcript {
        session_id: str_field(doc, "sessionId").map(str::to_string),
        started: str_field(doc, "startTime").map(str::to_string),
        ended: str_field(doc, "lastUpdated").map(str::to_string),
        ..Transcript::default()
    };
    for (i, m) in messages.iter().enumerate() {
        let role = match str_field(m, "type") {
            Some("user") => Role::User,
            Some("gemini" | "model" | "assistant") => Role::Assistant,
            Some("info" | "error" | "warning") => Role::Event,
            _ => continue,
        };
        if role == Role::Assistant && t.model.is_none() {
            t.model = str_field(m, "model").map(str::to_string);
        }
        let mut blocks = Vec::new();
        for thought in m
            .get("thoughts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let text = [
                str_field(thought, "subject"),
                str_field(thought, "description"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ");
            blocks.push(Block::Thinking { text });
        }
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| str_field(p, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        if !text.trim().is_empty() {
            blocks.push(Block::Text { text });
        }
        for call in m
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            blocks.push(Block::ToolCall(tool_call(call)));
        }
        if blocks.is_empty() {
            continue;
        }
        let timestamp = str_field(m, "timestamp").map(str::to_string);
        // No lines in a pretty-printed document: entries are numbered instead.
        t.entries.push(Entry {
            line: i + 1,
            role,
            timestamp,
            sidechain: false,
            blocks,
        });
    }
    Some(t)
}

fn tool_call(call: &Value) -> ToolCall {
    let outputs: Vec<String> = call
        .get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("functionResponse")?.get("response"))
        .map(
            |resp| match resp.get("output").or_else(|| resp.get("error")) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => resp.to_string(),
            },
        )
        .collect();
    let status = str_field(call, "status");
    ToolCall {
        id: str_field(call, "id").map(str::to_string),
        name: str_field(call, "name").unwrap_or("unknown").to_string(),
        input: call.get("args").cloned().unwrap_or(Value::Null),
        result: (!outputs.is_empty() || status.is_some()).then(|| ToolResult {
            text: outputs.join("\n"),
            is_error: matches!(status, Some("error" | "cancelled")),
        }),
    }
}
