//! Claude Code session JSONL. One API message may be split over several
//! `assistant` records (one content block each, same `message.id`): they are
//! merged. Tool results arrive in later `user` records and are paired with
//! their call by `tool_use_id`. Subagents appear inline (`isSidechain`, 1.0.x)
//! or in files of their own (see [`subagent_files`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::transcript::{
    content_text, jsonl_files, str_field, Block, Entry, Record, Role, ToolCall, ToolKind,
    ToolResult, Transcript,
};

pub(super) fn parse(records: &[Record]) -> Transcript {
    let mut p = Parser::default();
    for record in records {
        p.record(record);
    }
    p.finish()
}

#[derive(Default)]
struct Parser {
    t: Transcript,
    /// `message.id` of an assistant message → its entry.
    messages: HashMap<String, usize>,
    /// `tool_use.id` → (entry, block).
    calls: HashMap<String, (usize, usize)>,
    summaries: Vec<(Option<String>, String)>,
    uuids: std::collections::HashSet<String>,
    first_conversation_record: bool,
}

impl Parser {
    fn record(&mut self, r: &Record) {
        let v = &r.value;
        let ty = str_field(v, "type").unwrap_or("");
        if let Some(uuid) = str_field(v, "uuid") {
            // A resumed session can write a record again: keep the first.
            if !self.uuids.insert(uuid.to_string()) {
                return;
            }
        }
        match ty {
            "user" | "assistant" => {
                self.metadata(v);
                if ty == "user" {
                    self.user(r);
                } else {
                    self.assistant(r);
                }
            }
            "system" => self.system(r),
            "summary" => {
                if let Some(s) = str_field(v, "summary") {
                    self.summaries
                        .push((str_field(v, "leafUuid").map(str::to_string), s.to_string()));
                }
            }
            "queue-operation"
                // A prompt typed while the agent was busy. It reaches the
                // conversation as a user record when dequeued; keep the
                // enqueue as an event so nothing typed is lost.
                if str_field(v, "operation") == Some("enqueue") => {
                    if let Some(content) = str_field(v, "content").filter(|c| !c.trim().is_empty())
                    {
                        self.push(
                            r,
                            Role::Event,
                            vec![text(format!("queued prompt: {content}"))],
                        );
                    }
                }
            "pr-link" => {
                if let Some(url) = str_field(v, "prUrl").or_else(|| str_field(v, "url")) {
                    self.push(r, Role::Event, vec![text(format!("pull request: {url}"))]);
                }
            }
            // progress (streaming updates), file-history-snapshot and foreign
            // header lines carry no conversation.
            _ => {}
        }
    }

    fn metadata(&mut self, v: &Value) {
        let t = &mut self.t;
        if t.session_id.is_none() {
            t.session_id = str_field(v, "sessionId").map(str::to_string);
        }
        if t.cwd.is_none() {
            t.cwd = str_field(v, "cwd").map(str::to_string);
        }
        // The latest branch: a session often starts on main and makes its
        // branch as it goes; its work lives where it ended.
        if let Some(branch) = str_field(v, "gitBranch").filter(|b| !b.is_empty() && *b != "HEAD") {
            t.git_branch = Some(branch.to_string());
        }
        // A resumed session can change version mid-file: keep the latest.
        if let Some(version) = str_field(v, "version") {
            t.agent_version = Some(version.to_string());
        }
        if !self.first_conversation_record {
            self.first_conversation_record = true;
            if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                t.agent_id = str_field(v, "agentId").map(str::to_string);
            }
        }
    }

    fn push(&mut self, r: &Record, role: Role, blocks: Vec<Block>) -> usize {
        let timestamp = str_field(&r.value, "timestamp");
        self.t.note_time(timestamp);
        self.t.entries.push(Entry {
            line: r.line,
            role,
            timestamp: timestamp.map(str::to_string),
            sidechain: r.value.get("isSidechain").and_then(Value::as_bool) == Some(true),
            blocks,
        });
        self.t.entries.len() - 1
    }

    fn user(&mut self, r: &Record) {
        let v = &r.value;
        let Some(content) = v.get("message").and_then(|m| m.get("content")) else {
            return;
        };
        let injected = v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
        match content {
            Value::String(s) => {
                let (role, s) = match slash_command(s) {
                    Some(command) if !injected => (Role::User, command),
                    // What a hook told the agent (`Stop hook feedback: …`)
                    // is not the person's, but it steered the session.
                    _ if injected && s.starts_with("Stop hook feedback") => {
                        (Role::Event, s.clone())
                    }
                    _ if injected => (Role::Context, s.clone()),
                    _ => (classify_user_text(s), s.clone()),
                };
                self.push(r, role, vec![text(s)]);
            }
            Value::Array(parts) => {
                let mut blocks = Vec::new();
                let mut role = if injected { Role::Context } else { Role::User };
                for part in parts {
                    match str_field(part, "type") {
                        Some("text") => {
                            let s = str_field(part, "text").unwrap_or_default();
                            if role == Role::User && blocks.is_empty() {
                                role = classify_user_text(s);
                            }
                            blocks.push(text(s.to_string()));
                        }
                        Some("tool_result") => {
                            let id = str_field(part, "tool_use_id").map(str::to_string);
                            let result = tool_result(part, v.get("toolUseResult"));
                            if !self.attach(id.as_deref(), &result) {
                                blocks.push(Block::ToolResult { id, result });
                            }
                        }
                        Some("image") => blocks.push(image(part)),
                        _ => {}
                    }
                }
                if !blocks.is_empty() {
                    self.push(r, role, blocks);
                }
            }
            _ => {}
        }
    }

    /// Gives a result to its call; false when the call is not known.
    fn attach(&mut self, id: Option<&str>, result: &ToolResult) -> bool {
        let Some(&(entry, block)) = id.and_then(|id| self.calls.get(id)) else {
            return false;
        };
        match self.t.entries[entry].blocks.get_mut(block) {
            Some(Block::ToolCall(call)) if call.result.is_none() => {
                call.result = Some(result.clone());
                true
            }
            _ => false,
        }
    }

    fn assistant(&mut self, r: &Record) {
        let v = &r.value;
        let Some(message) = v.get("message") else {
            return;
        };
        if self.t.model.is_none() {
            self.t.model = str_field(message, "model")
                .filter(|m| !m.starts_with('<'))
                .map(str::to_string);
        }
        let blocks: Vec<Block> = match message.get("content") {
            Some(Value::String(s)) => vec![text(s.clone())],
            Some(Value::Array(parts)) => parts.iter().filter_map(assistant_block).collect(),
            _ => Vec::new(),
        };
        if blocks.is_empty() {
            return;
        }
        let entry = match str_field(message, "id").and_then(|id| self.messages.get(id)) {
            Some(&entry) => entry,
            None => {
                let entry = self.push(r, Role::Assistant, Vec::new());
                if let Some(id) = str_field(message, "id") {
                    self.messages.insert(id.to_string(), entry);
                }
                entry
            }
        };
        for block in blocks {
            let blocks = &mut self.t.entries[entry].blocks;
            if let Block::ToolCall(ToolCall { id: Some(id), .. }) = &block {
                self.calls.insert(id.clone(), (entry, blocks.len()));
            }
            blocks.push(block);
        }
    }

    fn system(&mut self, r: &Record) {
        let v = &r.value;
        let content = str_field(v, "content").unwrap_or_default();
        match str_field(v, "subtype") {
            Some("compact_boundary" | "microcompact_boundary") => {
                let trigger = v
                    .get("compactMetadata")
                    .or_else(|| v.get("microcompactMetadata"))
                    .and_then(|m| str_field(m, "trigger"))
                    .unwrap_or("auto");
                self.push(
                    r,
                    Role::Event,
                    vec![text(format!("conversation compacted ({trigger})"))],
                );
            }
            Some("api_error") => {
                let detail = v
                    .get("error")
                    .map(|e| {
                        str_field(e, "message")
                            .map(str::to_string)
                            .unwrap_or_else(|| e.to_string())
                    })
                    .unwrap_or_else(|| content.to_string());
                self.push(r, Role::Event, vec![text(format!("API error: {detail}"))]);
            }
            Some("local_command") if !content.is_empty() => {
                self.push(r, Role::Context, vec![text(content.to_string())]);
            }
            // Hook summaries and turn timings are bookkeeping.
            _ => {}
        }
    }

    fn finish(mut self) -> Transcript {
        // A summary whose leaf is in this file titles it; stacked summaries
        // of other sessions do not.
        let own = self
            .summaries
            .iter()
            .rev()
            .find(|(leaf, _)| leaf.as_ref().is_some_and(|l| self.uuids.contains(l)));
        self.t.title = own.or(self.summaries.last()).map(|(_, s)| s.clone());
        self.t
    }
}

fn text(s: String) -> Block {
    Block::Text { text: s }
}

fn image(part: &Value) -> Block {
    Block::Image {
        media_type: part
            .get("source")
            .and_then(|s| str_field(s, "media_type"))
            .map(str::to_string),
    }
}

/// Text a person typed, or text Claude Code put in the user's place.
fn classify_user_text(s: &str) -> Role {
    let s = s.trim_start();
    if s.starts_with("[Request interrupted by user") {
        Role::Event
    } else if s.starts_with("<command-")
        || s.starts_with("<local-command-")
        || s.starts_with("<system-reminder>")
        || s.starts_with("Caveat: The messages below were generated")
        || s.starts_with("This session is being continued from a previous conversation")
    {
        Role::Context
    } else {
        Role::User
    }
}

/// A slash command the person ran (`<command-name>/init</command-name>`
/// with its `<command-args>`), as they typed it.
fn slash_command(s: &str) -> Option<String> {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = s.find(&open)? + open.len();
        let end = s[start..].find(&format!("</{name}>"))? + start;
        Some(s[start..end].trim())
    };
    let name = tag("command-name")?;
    Some(match tag("command-args").filter(|a| !a.is_empty()) {
        Some(args) => format!("{name} {args}"),
        None => name.to_string(),
    })
}

fn assistant_block(part: &Value) -> Option<Block> {
    match str_field(part, "type")? {
        "text" => Some(text(str_field(part, "text")?.to_string())),
        "thinking" => Some(Block::Thinking {
            text: str_field(part, "thinking").unwrap_or_default().to_string(),
        }),
        "redacted_thinking" => Some(Block::Thinking {
            text: String::new(),
        }),
        "tool_use" | "server_tool_use" => Some(Block::ToolCall(ToolCall {
            kind: ToolKind::default(),
            id: str_field(part, "id").map(str::to_string),
            name: str_field(part, "name").unwrap_or("unknown").to_string(),
            input: part.get("input").cloned().unwrap_or(Value::Null),
            result: None,
        })),
        "image" => Some(image(part)),
        _ => None,
    }
}

/// A `tool_result` block's text; when it is empty, the record's
/// `toolUseResult` (a dict, a string or a list of text blocks) stands in.
fn tool_result(part: &Value, tool_use_result: Option<&Value>) -> ToolResult {
    let mut text = content_text(part.get("content"));
    if text.trim().is_empty() {
        text = tool_use_result.map(use_result_text).unwrap_or_default();
    }
    ToolResult {
        text,
        is_error: part.get("is_error").and_then(Value::as_bool) == Some(true),
    }
}

fn use_result_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(_) => content_text(Some(v)),
        Value::Object(o) => ["stdout", "content", "output", "result", "error"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .or_else(|| o.get("file").and_then(|f| str_field(f, "content")))
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// Subagent files that belong to the session at `path`.
pub(super) fn subagent_files(path: &Path, session_id: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(stem) = path.file_stem() {
        let nested = path.with_file_name(stem).join("subagents");
        out.extend(jsonl_files(&nested));
    }
    // 2.0.x: flat `agent-<id>.jsonl` files beside the session, any session's.
    if let (Some(dir), Some(session_id)) = (path.parent(), session_id) {
        for file in jsonl_files(dir) {
            let is_agent = file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("agent-"));
            if is_agent && file != path && first_session_id(&file).as_deref() == Some(session_id) {
                out.push(file);
            }
        }
    }
    out
}

/// The `sessionId` of the first records of a file, read cheaply.
fn first_session_id(path: &Path) -> Option<String> {
    use std::io::BufRead;
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    // Its first MB: a file of one huge line is not read whole.
    std::io::BufReader::new(file.take(1 << 20))
        .split(b'\n')
        .take(5)
        .filter_map(|l| l.ok())
        .find_map(|l| {
            let v: Value = serde_json::from_slice(&l).ok()?;
            v.get("sessionId")?.as_str().map(str::to_string)
        })
}
