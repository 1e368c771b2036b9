//! A parsed transcript redacted in place, every text through
//! [`crate::text::redact`].

use super::{Block, Transcript};
use crate::text::redact::{redact_json, redact_string, Findings};

/// Redacts every text of a parsed transcript in place: prompts, replies,
/// thinking, tool names, inputs and results, title, working folder, branch,
/// subagents.
pub fn redact_transcript(t: &mut Transcript, found: &mut Findings) {
    for field in [&mut t.title, &mut t.cwd, &mut t.git_branch] {
        if let Some(text) = field.as_mut() {
            redact_string(text, found);
        }
    }
    for entry in &mut t.entries {
        for block in &mut entry.blocks {
            match block {
                Block::Text { text } | Block::Thinking { text } => redact_string(text, found),
                Block::ToolCall(call) => {
                    redact_string(&mut call.name, found);
                    redact_json(&mut call.input, found);
                    if let Some(r) = call.result.as_mut() {
                        redact_string(&mut r.text, found);
                    }
                }
                Block::ToolResult { result, .. } => redact_string(&mut result.text, found),
                Block::Image { .. } => {}
            }
        }
    }
    for sub in &mut t.subagents {
        redact_transcript(sub, found);
    }
}
