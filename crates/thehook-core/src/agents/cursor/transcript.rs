//! Cursor agent transcripts (`~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl`):
//! `{"role", "message": {"content": [...]}}` lines with no ids and no times.
//! Prompts are wrapped in `<user_query>`; tool calls carry no id, so results
//! are paired with the oldest unanswered call. Block names drift between
//! versions (`tool_use`/`tool_call`, `tool_result`/`tool-result`).

use std::collections::VecDeque;

use serde_json::Value;

use crate::transcript::{
    content_text, str_field, Block, Entry, Record, Role, ToolCall, ToolKind, ToolResult, Transcript,
};

pub(super) fn parse(records: &[Record]) -> Transcript {
    let mut t = Transcript::default();
    // (entry, block) of calls still waiting for a result, oldest first.
    let mut open: VecDeque<(usize, usize)> = VecDeque::new();
    for r in records {
        let v = &r.value;
        let role = match str_field(v, "role") {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => continue,
        };
        if t.model.is_none() {
            t.model = str_field(v, "model").map(str::to_string);
        }
        let parts: Vec<Value> = match v.get("message").and_then(|m| m.get("content")) {
            Some(Value::Array(parts)) => parts.clone(),
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => continue,
        };
        let mut blocks = Vec::new();
        for part in &parts {
            match str_field(part, "type") {
                Some("text" | "custom_block") => {
                    let text = str_field(part, "text").unwrap_or_default();
                    let text = if role == Role::User {
                        unwrap_query(text)
                    } else {
                        text
                    };
                    if !text.trim().is_empty() {
                        blocks.push(Block::Text {
                            text: text.to_string(),
                        });
                    }
                }
                Some("thinking") => blocks.push(Block::Thinking {
                    text: str_field(part, "thinking")
                        .or_else(|| str_field(part, "text"))
                        .unwrap_or_default()
                        .to_string(),
                }),
                Some("tool_use" | "tool_call") => blocks.push(Block::ToolCall(ToolCall {
                    kind: ToolKind::default(),
                    id: str_field(part, "id").map(str::to_string),
                    name: str_field(part, "name").unwrap_or("unknown").to_string(),
                    input: part.get("input").cloned().unwrap_or(Value::Null),
                    result: None,
                })),
                Some("tool_result" | "tool-result") => {
                    let result = ToolResult {
                        text: content_text(part.get("content")),
                        is_error: part.get("is_error").and_then(Value::as_bool) == Some(true),
                    };
                    let answered = open.pop_front().and_then(|(e, b)| {
                        match t.entries.get_mut(e).and_then(|e| e.blocks.get_mut(b)) {
                            Some(Block::ToolCall(call)) => {
                                call.result = Some(result.clone());
                                Some(())
                            }
                            _ => None,
                        }
                    });
                    if answered.is_none() {
                        let id = str_field(part, "tool_use_id").map(str::to_string);
                        blocks.push(Block::ToolResult { id, result });
                    }
                }
                _ => {}
            }
        }
        if blocks.is_empty() {
            continue;
        }
        let e = t.entries.len();
        for (b, block) in blocks.iter().enumerate() {
            if matches!(block, Block::ToolCall(_)) {
                open.push_back((e, b));
            }
        }
        t.entries.push(Entry {
            line: r.line,
            role,
            timestamp: None,
            sidechain: false,
            blocks,
        });
    }
    t
}

fn unwrap_query(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix("<user_query>")
        .and_then(|t| t.strip_suffix("</user_query>"))
        .map(str::trim)
        .unwrap_or(text)
}
