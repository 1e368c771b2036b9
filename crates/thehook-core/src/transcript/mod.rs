//! Agent transcripts (Claude Code JSONL, Cursor agent transcripts, Codex
//! rollouts, Gemini CLI chats, Copilot CLI session events, opencode exports) read into one model. The formats are sniffed from the content,
//! never from the file name, and reading never panics: damaged lines are
//! skipped with a warning, and a file that is not a transcript at all is a
//! clear error.

mod claude;
mod codex;
mod condense;
mod copilot;
mod cursor;
mod gemini;
mod lines;
mod opencode;
mod redact;

#[cfg(test)]
pub(crate) mod tests;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub(crate) use crate::text::clip_chars;
pub use condense::{condense, condense_lines, facts, CondenseOptions, Condensed, Facts, Weight};
pub(crate) use condense::{first_line, patch_files, path_argument, strip_base64};
pub use lines::{read_records, Record};
pub use redact::redact_transcript;

use crate::error::{Error, IoContext, Result};

/// The agent that wrote a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    Cursor,
    Codex,
    Gemini,
    Copilot,
    Opencode,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Cursor => "cursor",
            Format::Codex => "codex",
            Format::Gemini => "gemini",
            Format::Copilot => "copilot",
            Format::Opencode => "opencode",
        }
    }
}

/// Who speaks in an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// What the person typed (or a tool result handed back to the model).
    User,
    Assistant,
    /// Text the agent injected: instructions, command output, compaction summaries.
    Context,
    /// Something that happened: compaction, an API error, an interrupt.
    Event,
}

/// One tool call with its result, paired by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: String,
    pub input: Value,
    pub result: Option<ToolResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    pub text: String,
    pub is_error: bool,
}

/// A piece of an entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
    },
    Thinking {
        text: String,
    },
    ToolCall(ToolCall),
    /// A result whose call is not in this transcript.
    ToolResult {
        id: Option<String>,
        result: ToolResult,
    },
    Image {
        media_type: Option<String>,
    },
}

/// One turn of the conversation (a record, or an assistant message merged
/// from the records it was split over).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// 1-based line of the file where the entry starts.
    pub line: usize,
    pub role: Role,
    pub timestamp: Option<String>,
    /// Written by a subagent (Claude Code `isSidechain`).
    pub sidechain: bool,
    pub blocks: Vec<Block>,
}

/// A transcript read into the common model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Transcript {
    pub format: Option<Format>,
    pub session_id: Option<String>,
    /// The working folder the agent ran in, from the records.
    pub cwd: Option<String>,
    /// The branch the session ended on (Claude Code records it on every line).
    pub git_branch: Option<String>,
    pub agent_version: Option<String>,
    pub model: Option<String>,
    /// A title the agent stored (Claude Code `summary` records).
    pub title: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    /// For a subagent's own file: its id.
    pub agent_id: Option<String>,
    pub entries: Vec<Entry>,
    /// Subagent transcripts stored in their own files.
    pub subagents: Vec<Transcript>,
    /// Lines that could not be read, and why.
    pub warnings: Vec<String>,
}

impl Transcript {
    /// Tool calls of every entry, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.entries.iter().flat_map(|e| {
            e.blocks.iter().filter_map(|b| match b {
                Block::ToolCall(c) => Some(c),
                _ => None,
            })
        })
    }

    /// The first thing the person asked, if any.
    pub fn first_prompt(&self) -> Option<&str> {
        self.entries
            .iter()
            .filter(|e| e.role == Role::User && !e.sidechain)
            .flat_map(|e| e.blocks.iter())
            .find_map(|b| match b {
                Block::Text { text } if !text.trim().is_empty() => Some(text.as_str()),
                _ => None,
            })
    }

    fn note_time(&mut self, timestamp: Option<&str>) {
        let Some(t) = timestamp else { return };
        if self.started.is_none() {
            self.started = Some(t.to_string());
        }
        self.ended = Some(t.to_string());
    }
}

/// Reads the transcript at `path`. For Claude Code, the subagents' own files
/// (`<session>/subagents/agent-*.jsonl`, or `agent-*.jsonl` beside the
/// session with its session id) are read too.
pub fn load(path: &Path) -> Result<Transcript> {
    let bytes = std::fs::read(path).at("cannot read the transcript", path)?;
    let mut transcript = parse(&bytes).map_err(|problem| Error::Transcript {
        path: path.to_path_buf(),
        problem,
    })?;
    if transcript.session_id.is_none() {
        // Cursor lines carry no ids: the file is named after the conversation.
        transcript.session_id = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    }
    if transcript.format == Some(Format::ClaudeCode) && transcript.agent_id.is_none() {
        for sub in claude_subagent_files(path, transcript.session_id.as_deref()) {
            match std::fs::read(&sub)
                .map_err(|e| e.to_string())
                .and_then(|b| parse(&b))
            {
                Ok(t) => transcript.subagents.push(t),
                Err(why) => transcript
                    .warnings
                    .push(format!("subagent transcript {}: {why}", sub.display())),
            }
        }
    }
    Ok(transcript)
}

/// Parses transcript bytes of any supported format. The error says what the
/// content looks like instead.
pub fn parse(bytes: &[u8]) -> Result<Transcript, String> {
    let mut transcript = parse_format(bytes)?;
    strip_injected_memory(&mut transcript);
    Ok(transcript)
}

fn parse_format(bytes: &[u8]) -> Result<Transcript, String> {
    let (records, mut warnings) = read_records(bytes);
    let format = sniff(&records);
    let mut transcript = match format {
        Some(Format::ClaudeCode) => claude::parse(&records),
        Some(Format::Codex) => codex::parse(&records),
        Some(Format::Cursor) => cursor::parse(&records),
        Some(Format::Copilot) => copilot::parse(&records),
        Some(Format::Gemini) if !records.is_empty() => {
            gemini::parse_log(&records).ok_or_else(|| {
                "a Gemini CLI chat log without its header line (sessionId)".to_string()
            })?
        }
        // Not JSONL: perhaps one JSON document (an opencode export, an older
        // Gemini CLI chat), whatever the name. (An export is never sniffed.)
        Some(Format::Gemini | Format::Opencode) | None => {
            let doc = serde_json::from_slice::<Value>(bytes).ok();
            if let Some(mut transcript) = doc.as_ref().and_then(opencode::parse) {
                transcript.format = Some(Format::Opencode);
                return Ok(transcript);
            }
            let mut transcript = doc
                .as_ref()
                .and_then(gemini::parse)
                .ok_or_else(|| describe_unknown(bytes, &records))?;
            transcript.format = Some(Format::Gemini);
            return Ok(transcript);
        }
    };
    transcript.format = format;
    warnings.append(&mut transcript.warnings);
    transcript.warnings = warnings;
    Ok(transcript)
}

/// Takes thehook's own injected memory out of a transcript, so that memory
/// never feeds on itself: Gemini CLI prepends it to the first user turn as
/// `<hook_context>...</hook_context>`; anywhere else, a text that starts with
/// the injected block's heading is context, not something the user said.
fn strip_injected_memory(t: &mut Transcript) {
    for entry in &mut t.entries {
        for block in &mut entry.blocks {
            if let Block::Text { text } = block {
                *text = without_hook_context(text);
            }
        }
        entry
            .blocks
            .retain(|b| !matches!(b, Block::Text { text } if text.trim().is_empty()));
        let ours = entry.blocks.iter().any(|b| {
            matches!(b, Block::Text { text } if text.trim_start().starts_with(crate::text::MEMORY_HEADING))
        });
        if ours {
            entry.role = Role::Context;
        }
    }
    t.entries.retain(|e| !e.blocks.is_empty());
    for sub in &mut t.subagents {
        strip_injected_memory(sub);
    }
}

/// `text` without its `<hook_context>...</hook_context>` spans.
fn without_hook_context(text: &str) -> String {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(CLOSE) {
            Some(end) => rest = &rest[start + end + CLOSE.len()..],
            // Unclosed: cut to the end, the memory is all there is.
            None => rest = "",
        }
    }
    out.push_str(rest);
    if out.len() == text.len() {
        out
    } else {
        out.trim_start().to_string()
    }
}

/// Which agent wrote these records, from their shape.
pub fn sniff(records: &[Record]) -> Option<Format> {
    // A few records decide: foreign header lines may come first.
    records.iter().take(50).find_map(|r| {
        let o = r.value.as_object()?;
        if gemini::is_log_record(o) {
            return Some(Format::Gemini);
        }
        if copilot::is_event(o) {
            return Some(Format::Copilot);
        }
        let ty = o.get("type").and_then(Value::as_str);
        if o.contains_key("payload")
            && matches!(
                ty,
                Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
            )
        {
            return Some(Format::Codex);
        }
        if matches!(
            ty,
            Some(
                "user"
                    | "assistant"
                    | "system"
                    | "summary"
                    | "progress"
                    | "queue-operation"
                    | "file-history-snapshot"
            )
        ) && ["uuid", "sessionId", "leafUuid", "messageId", "parentUuid"]
            .iter()
            .any(|k| o.contains_key(*k))
        {
            return Some(Format::ClaudeCode);
        }
        let role = o.get("role").and_then(Value::as_str);
        if matches!(role, Some("user" | "assistant"))
            && o.get("message").is_some_and(Value::is_object)
        {
            return Some(Format::Cursor);
        }
        None
    })
}

fn describe_unknown(bytes: &[u8], records: &[Record]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let start = text.trim_start();
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return "the file is empty".into();
    }
    if records.is_empty() && start.starts_with('{') {
        return "this is a JSON document spread over several lines, not a JSONL transcript (one JSON object per line)".into();
    }
    if start.starts_with("## SpecStory") || start.starts_with('#') {
        return "this is a markdown file (an exported chat?), not an agent transcript".into();
    }
    if records.is_empty() {
        return "no line of this file is a JSON object: it is not a JSONL transcript".into();
    }
    format!(
        "{} JSON lines, but none has the shape of a Claude Code, Cursor, Codex, Gemini CLI, Copilot CLI or opencode transcript record",
        records.len()
    )
}

/// Claude Code subagent files that belong to the session at `path`.
pub(crate) fn claude_subagent_files(path: &Path, session_id: Option<&str>) -> Vec<PathBuf> {
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

/// The `*.jsonl` files directly in `dir`, sorted.
pub(crate) fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The `sessionId` of the first records of a Claude Code file, read cheaply.
fn first_session_id(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .split(b'\n')
        .take(5)
        .filter_map(|l| l.ok())
        .find_map(|l| {
            let v: Value = serde_json::from_slice(&l).ok()?;
            v.get("sessionId")?.as_str().map(str::to_string)
        })
}

/// A string field of a JSON object.
fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
