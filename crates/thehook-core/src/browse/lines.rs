//! A transcript as numbered lines: every piece of every entry (a prompt, a
//! reply, a thinking block, a tool call with its result) gets its own number,
//! so `thehook read <id> 12` can point at exactly one of them. Both forms,
//! compact and full, number the same way.

use crate::transcript::{Block, Role, ToolCall, ToolResult, Transcript};

/// One numbered piece of a transcript.
#[derive(Debug, Clone, Copy)]
pub struct Line<'t> {
    /// 1-based, in transcript order.
    pub number: usize,
    pub timestamp: Option<&'t str>,
    /// Written by a subagent inline (Claude Code 1.0 `isSidechain` records).
    pub sidechain: bool,
    pub part: Part<'t>,
}

#[derive(Debug, Clone, Copy)]
pub enum Part<'t> {
    /// Text of a person, the assistant, injected context or an event.
    Said {
        role: Role,
        text: &'t str,
    },
    Thinking(&'t str),
    Tool(&'t ToolCall),
    /// A result whose call is not in this transcript.
    Result(&'t ToolResult),
    Image(Option<&'t str>),
}

impl Part<'_> {
    /// The name the line's kind has in both forms.
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Said { role, .. } => match role {
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Context => "context",
                Role::Event => "event",
            },
            Part::Thinking(_) => "thinking",
            Part::Tool(_) => "tool",
            Part::Result(_) => "result",
            Part::Image(_) => "image",
        }
    }
}

/// The numbered lines of `t`; empty texts (thinking blocks that kept only
/// their signature) get no number.
pub fn lines(t: &Transcript) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for entry in &t.entries {
        for block in &entry.blocks {
            let part = match block {
                Block::Text { text } if text.trim().is_empty() => continue,
                Block::Thinking { text } if text.trim().is_empty() => continue,
                Block::Text { text } => Part::Said {
                    role: entry.role,
                    text,
                },
                Block::Thinking { text } => Part::Thinking(text),
                Block::ToolCall(call) => Part::Tool(call),
                Block::ToolResult { result, .. } => Part::Result(result),
                Block::Image { media_type } => Part::Image(media_type.as_deref()),
            };
            out.push(Line {
                number: out.len() + 1,
                timestamp: entry.timestamp.as_deref(),
                sidechain: entry.sidechain,
                part,
            });
        }
    }
    out
}
