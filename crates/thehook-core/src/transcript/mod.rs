//! The one model every agent's transcript is read into (each agent's parser
//! lives in its own module under `agents/`, and `agents/read.rs` picks one
//! by the content, never by the file name), and what is done with it:
//! condensed for the LLM, redacted, its lines read. Reading never panics:
//! damaged lines are skipped with a warning, and a file that is not a
//! transcript at all is a clear error ([`NotATranscript`]).

pub mod bounded;
mod condense;
mod lines;
mod not_a_transcript;
mod redact;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub(crate) use crate::text::clip_chars;
pub use condense::{condense, condense_lines, facts, CondenseOptions, Condensed, Facts, Weight};
pub(crate) use condense::{first_line, patch_files, path_argument, strip_base64};
pub use lines::{read_records, Record};
pub use not_a_transcript::NotATranscript;
pub use redact::redact_transcript;

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
    /// What the tool does, by its name as the agents' specs list it
    /// (marked when the transcript is read, `agents/read.rs`).
    #[serde(skip)]
    pub kind: ToolKind,
    pub input: Value,
    pub result: Option<ToolResult>,
}

/// What a tool call does, as far as condensing a transcript and its
/// compact lines care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolKind {
    pub role: ToolRole,
    pub shape: ToolShape,
}

/// What a call does to the project, for the condensed transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolRole {
    /// Only looks (reads, searches, lists, plans): a successful call is left out.
    Looks,
    /// Changes files.
    Writes,
    /// Runs shell commands.
    Runs,
    #[default]
    Other,
}

/// The shape of a call's arguments and result, for its compact line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolShape {
    Edit,
    Patch,
    Write,
    Read,
    Shell,
    Search,
    Glob,
    Subagent,
    Plan,
    Ask,
    ExitPlan,
    #[default]
    Other,
}

impl ToolKind {
    pub const fn new(role: ToolRole, shape: ToolShape) -> ToolKind {
        ToolKind { role, shape }
    }

    /// Whether a call reads or changes one file its input names: a read,
    /// an edit, a write, or another writer (a notebook cell's edit). A
    /// patch names its files in its body, a search many.
    pub fn touches_a_file(self) -> bool {
        matches!(
            self.shape,
            ToolShape::Read | ToolShape::Edit | ToolShape::Write
        ) || (self.role == ToolRole::Writes && self.shape == ToolShape::Other)
    }
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
    /// The name of the agent whose format it is (`claude-code`), set by
    /// the parser that read it.
    pub format: Option<&'static str>,
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
    /// The middle of a file too large to read whole ([`bounded`]), not read.
    #[serde(skip)]
    pub left_out: Option<bounded::LeftOut>,
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

    pub(crate) fn note_time(&mut self, timestamp: Option<&str>) {
        let Some(t) = timestamp else { return };
        if self.started.is_none() {
            self.started = Some(t.to_string());
        }
        self.ended = Some(t.to_string());
    }
}

/// Takes thehook's own injected memory out of a transcript, so that memory
/// never feeds on itself: Gemini CLI prepends it to the first user turn as
/// `<hook_context>...</hook_context>`; anywhere else, a text that starts with
/// the injected block's heading is context, not something the user said.
pub(crate) fn strip_injected_memory(t: &mut Transcript) {
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

/// A string field of a JSON object.
pub(crate) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Text of a string, or of a list of `text`/`image` blocks.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match str_field(p, "type") {
                Some("text") => str_field(p, "text").map(str::to_string),
                Some("image") => Some("[image]".to_string()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
