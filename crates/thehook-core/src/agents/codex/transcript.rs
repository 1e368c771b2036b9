//! Codex rollouts (`~/.codex/sessions/**/rollout-*.jsonl`): `session_meta`,
//! `turn_context`, `response_item` and `event_msg` records. Entries come from
//! `response_item`s only, because `event_msg`s repeat them; the
//! `event_msg/user_message`s tell what the person typed from the
//! instructions Codex injects as user messages.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::transcript::{
    str_field, Block, Entry, Record, Role, ToolCall, ToolKind, ToolResult, Transcript,
};

pub(super) fn parse(records: &[Record]) -> Transcript {
    let mut t = Transcript::default();
    let typed = typed_prompts(records);
    let has_items = records
        .iter()
        .any(|r| str_field(&r.value, "type") == Some("response_item"));
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let v = &r.value;
        let Some(payload) = v.get("payload") else {
            continue;
        };
        let timestamp =
            str_field(v, "timestamp").filter(|t| t.starts_with(|c: char| c.is_ascii_digit()));
        match str_field(v, "type").unwrap_or("") {
            "session_meta"
                // Forks and subagents add more session_meta lines: the first is this session.
                if t.session_id.is_none() => {
                    t.session_id = str_field(payload, "id")
                        .or_else(|| str_field(payload, "session_id"))
                        .map(str::to_string);
                    t.cwd = str_field(payload, "cwd").map(str::to_string);
                    t.agent_version = str_field(payload, "cli_version").map(str::to_string);
                    t.git_branch = payload
                        .get("git")
                        .and_then(|g| str_field(g, "branch"))
                        .map(str::to_string);
                    if let Some(start) = str_field(payload, "timestamp") {
                        t.started = Some(start.to_string());
                    }
                }
            "turn_context" => {
                if t.model.is_none() {
                    t.model = str_field(payload, "model").map(str::to_string);
                }
                if t.cwd.is_none() {
                    t.cwd = str_field(payload, "cwd").map(str::to_string);
                }
            }
            "response_item" => {
                let Some((role, block)) = item(payload, typed.as_ref().map(|t| t.contains(&i)))
                else {
                    continue;
                };
                if let Block::ToolResult { id, result } = &block {
                    if let Some(&(e, b)) = id.as_ref().and_then(|id| calls.get(id)) {
                        if let Some(Block::ToolCall(call)) = t.entries[e].blocks.get_mut(b) {
                            if call.result.is_none() {
                                call.result = Some(result.clone());
                                continue;
                            }
                        }
                    }
                }
                t.note_time(timestamp);
                // Consecutive assistant output (reasoning, text, calls) is one turn.
                let extend = role == Role::Assistant
                    && t.entries.last().is_some_and(|e| e.role == Role::Assistant);
                if !extend {
                    t.entries.push(Entry {
                        line: r.line,
                        role,
                        timestamp: timestamp.map(str::to_string),
                        sidechain: false,
                        blocks: Vec::new(),
                    });
                }
                let e = t.entries.len() - 1;
                if let Block::ToolCall(ToolCall { id: Some(id), .. }) = &block {
                    calls.insert(id.clone(), (e, t.entries[e].blocks.len()));
                }
                t.entries[e].blocks.push(block);
            }
            "compacted" => {
                t.note_time(timestamp);
                t.entries.push(Entry {
                    line: r.line,
                    role: Role::Event,
                    timestamp: timestamp.map(str::to_string),
                    sidechain: false,
                    blocks: vec![Block::Text {
                        text: "conversation compacted".into(),
                    }],
                });
            }
            "event_msg" if !has_items => {
                // Rollouts without response items: the events are all there is.
                let (role, text) = match str_field(payload, "type") {
                    Some("user_message") => (Role::User, str_field(payload, "message")),
                    Some("agent_message") => (Role::Assistant, str_field(payload, "message")),
                    _ => continue,
                };
                if let Some(text) = text {
                    t.note_time(timestamp);
                    t.entries.push(Entry {
                        line: r.line,
                        role,
                        timestamp: timestamp.map(str::to_string),
                        sidechain: false,
                        blocks: vec![Block::Text { text: text.into() }],
                    });
                }
            }
            _ => {}
        }
    }
    t
}

/// Records of the user messages the person typed: each `event_msg/user_message`
/// follows the `response_item` it repeats. `None` when a rollout has no such
/// events.
fn typed_prompts(records: &[Record]) -> Option<HashSet<usize>> {
    let mut typed = HashSet::new();
    let mut last_user_item = None;
    let mut any = false;
    for (i, r) in records.iter().enumerate() {
        let Some(p) = r.value.get("payload") else {
            continue;
        };
        match (str_field(&r.value, "type"), str_field(p, "type")) {
            (Some("response_item"), Some("message")) if str_field(p, "role") == Some("user") => {
                last_user_item = Some(i);
            }
            (Some("event_msg"), Some("user_message")) => {
                any = true;
                typed.extend(last_user_item.take());
            }
            _ => {}
        }
    }
    any.then_some(typed)
}

/// One response item as a block, with the role of the entry it belongs to.
/// `typed`: whether a user message is what the person typed, if known.
fn item(p: &Value, typed: Option<bool>) -> Option<(Role, Block)> {
    let ty = str_field(p, "type")?;
    match ty {
        "message" => {
            let text = message_text(p.get("content"));
            if text.trim().is_empty() {
                return None;
            }
            let role = match str_field(p, "role") {
                Some("assistant") => Role::Assistant,
                Some("user") if typed.unwrap_or_else(|| !is_injected(&text)) => Role::User,
                _ => Role::Context,
            };
            Some((role, Block::Text { text }))
        }
        "reasoning" => {
            let summary: Vec<&str> = p
                .get("summary")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|s| str_field(s, "text"))
                .collect();
            Some((
                Role::Assistant,
                Block::Thinking {
                    text: summary.join("\n"),
                },
            ))
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call"
        | "web_search_call" => {
            let raw = p
                .get("arguments")
                .or_else(|| p.get("input"))
                .or_else(|| p.get("action"));
            let input = match raw {
                // Arguments are JSON in a string; apply_patch input is plain text.
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                Some(v) => v.clone(),
                None => Value::Null,
            };
            let name = str_field(p, "name").unwrap_or(ty.trim_end_matches("_call"));
            Some((
                Role::Assistant,
                Block::ToolCall(ToolCall {
                    kind: ToolKind::default(),
                    id: str_field(p, "call_id").map(str::to_string),
                    name: name.to_string(),
                    input,
                    result: None,
                }),
            ))
        }
        t if t.ends_with("_output") => Some((
            Role::User,
            Block::ToolResult {
                id: str_field(p, "call_id").map(str::to_string),
                result: output(p.get("output")),
            },
        )),
        _ => None,
    }
}

/// Instructions Codex sends as user messages.
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md",
        "<permissions",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

fn message_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match str_field(p, "type") {
                Some("input_image") => Some("[image]"),
                _ => str_field(p, "text"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A tool output: plain text, JSON text with `output` and `metadata.exit_code`,
/// an `input_text` object or a list of such blocks.
fn output(v: Option<&Value>) -> ToolResult {
    // A plain output says it failed in its first words: a patch that did
    // not apply, or a command's non-zero exit (`Exit code: 1`).
    let plain = |text: String| ToolResult {
        is_error: text.starts_with("apply_patch verification failed")
            || text
                .strip_prefix("Exit code: ")
                .is_some_and(|rest| !rest.starts_with('0')),
        text,
    };
    match v {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(o)) if o.contains_key("output") => {
                let exit = o
                    .get("metadata")
                    .and_then(|m| m.get("exit_code"))
                    .and_then(Value::as_i64);
                ToolResult {
                    text: o
                        .get("output")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    is_error: exit.is_some_and(|c| c != 0),
                }
            }
            _ => plain(s.clone()),
        },
        Some(Value::Object(_)) => plain(
            str_field(v.unwrap(), "text")
                .unwrap_or_default()
                .to_string(),
        ),
        Some(a @ Value::Array(_)) => plain(message_text(Some(a))),
        _ => plain(String::new()),
    }
}
