//! Gemini CLI sessions, in both forms it has written:
//! - since 0.5x, an append-only JSONL log (`session-*.jsonl`): a header line
//!   (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind`), message
//!   lines keyed by `id` (a later line with the same id replaces the earlier
//!   one), `{"$set": {...}}` lines (`messages` replaces the whole list, other
//!   keys update the header) and `{"$rewindTo": id}` lines (that message and
//!   every later one are dropped);
//! - before, one JSON document (`sessionId`, `startTime`, `messages`).
//!
//! Gemini's own context turns (`<session_context>`) are kept as context, not
//! as something the user asked.

use serde_json::{Map, Value};

use crate::transcript::{
    str_field, Block, Entry, Record, Role, ToolCall, ToolKind, ToolResult, Transcript,
};

/// Whether a JSONL record is one of Gemini's: the header, a `$set` or a
/// `$rewindTo` line.
pub(super) fn is_log_record(o: &Map<String, Value>) -> bool {
    (o.contains_key("sessionId") && o.contains_key("projectHash"))
        || o.get("$set").is_some_and(Value::is_object)
        || o.get("$rewindTo").is_some_and(Value::is_string)
}

/// The session in a JSONL log, replayed as Gemini CLI replays it.
pub(super) fn parse_log(records: &[Record]) -> Option<Transcript> {
    let mut header = Map::new();
    // In order, (line, message); a replaced message keeps its place.
    let mut messages: Vec<(usize, Value)> = Vec::new();
    for r in records {
        let Some(o) = r.value.as_object() else {
            continue;
        };
        if let Some(id) = o.get("$rewindTo").and_then(Value::as_str) {
            let at = messages
                .iter()
                .position(|(_, m)| str_field(m, "id") == Some(id));
            messages.truncate(at.unwrap_or(0));
        } else if let Some(id) = o.get("id").and_then(Value::as_str) {
            match messages
                .iter_mut()
                .find(|(_, m)| str_field(m, "id") == Some(id))
            {
                Some(slot) => *slot = (r.line, r.value.clone()),
                None => messages.push((r.line, r.value.clone())),
            }
        } else if let Some(set) = o.get("$set").and_then(Value::as_object) {
            if let Some(list) = set.get("messages").and_then(Value::as_array) {
                messages = list.iter().map(|m| (r.line, m.clone())).collect();
            }
            for (k, v) in set.iter().filter(|(k, _)| *k != "messages") {
                header.insert(k.clone(), v.clone());
            }
        } else if is_log_record(o) {
            for (k, v) in o.iter().filter(|(k, _)| *k != "messages") {
                header.insert(k.clone(), v.clone());
            }
        }
    }
    let header = Value::Object(header);
    str_field(&header, "sessionId")?;
    Some(build(&header, messages.iter().map(|(line, m)| (*line, m))))
}

/// The session in `doc` (the older single-document form), or `None` when it
/// is not a Gemini CLI session.
pub(super) fn parse(doc: &Value) -> Option<Transcript> {
    let messages = doc.get("messages")?.as_array()?;
    str_field(doc, "sessionId")?;
    // No lines in a pretty-printed document: entries are numbered instead.
    Some(build(
        doc,
        messages.iter().enumerate().map(|(i, m)| (i + 1, m)),
    ))
}

fn build<'a>(header: &Value, messages: impl Iterator<Item = (usize, &'a Value)>) -> Transcript {
    let mut t = Transcript {
        session_id: str_field(header, "sessionId").map(str::to_string),
        started: str_field(header, "startTime").map(str::to_string),
        ended: str_field(header, "lastUpdated").map(str::to_string),
        ..Transcript::default()
    };
    for (line, m) in messages {
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| str_field(p, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let role = match str_field(m, "type") {
            Some("user") if text.trim_start().starts_with("<session_context>") => Role::Context,
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
        t.entries.push(Entry {
            line,
            role,
            timestamp: str_field(m, "timestamp").map(str::to_string),
            sidechain: false,
            blocks,
        });
    }
    t
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
        kind: ToolKind::default(),
        id: str_field(call, "id").map(str::to_string),
        name: str_field(call, "name").unwrap_or("unknown").to_string(),
        input: call.get("args").cloned().unwrap_or(Value::Null),
        result: (!outputs.is_empty() || status.is_some()).then(|| ToolResult {
            text: outputs.join("\n"),
            is_error: matches!(status, Some("error" | "cancelled")),
        }),
    }
}
