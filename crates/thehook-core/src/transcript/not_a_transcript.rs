//! Why bytes could not be read as a transcript, said as what they look like
//! instead.

use super::lines::Record;

/// Bytes that are no agent's transcript.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotATranscript {
    #[error("the file is empty")]
    Empty,
    #[error("this is a JSON document spread over several lines, not a JSONL transcript (one JSON object per line)")]
    JsonDocument,
    #[error("this is a markdown file (an exported chat?), not an agent transcript")]
    Markdown,
    #[error("no line of this file is a JSON object: it is not a JSONL transcript")]
    NotJsonl,
    /// `formats` names every agent whose transcripts are read.
    #[error("{records} JSON lines, but none has the shape of a {formats} transcript record")]
    UnknownShape {
        records: usize,
        formats: &'static str,
    },
    /// An agent's format, with a part it cannot be read without missing.
    #[error("{0}")]
    Incomplete(&'static str),
    #[error("it names no session id")]
    NoSessionId,
    /// A file too large to read whole whose head and tail hold no whole
    /// line: no JSONL transcript (a sparse file of zeros, one line of GBs).
    #[error("the file is {} MB with no line end in its first {} MB or its last {} MB: it is not a JSONL transcript", .size / 1_000_000, super::bounded::HEAD / 1_000_000, super::bounded::TAIL / 1_000_000)]
    NoLines { size: u64 },
    /// A JSON document (an opencode export, an older Gemini CLI chat) too
    /// large to read whole: a document cannot be read by its head and tail.
    #[error("this is a JSON document of {} MB, and thehook reads one of at most {} MB: it is not captured", .size / 1_000_000, super::bounded::WHOLE_UP_TO / 1_000_000)]
    DocumentTooLarge { size: u64 },
}

impl NotATranscript {
    /// What `bytes` (read into `records`) look like, when no agent's parser
    /// took them; `formats` names the agents whose parsers were asked.
    pub fn describe(bytes: &[u8], records: &[Record], formats: &'static str) -> NotATranscript {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
        let start = text.trim_start();
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return NotATranscript::Empty;
        }
        if records.is_empty() && start.starts_with('{') {
            return NotATranscript::JsonDocument;
        }
        if start.starts_with("## SpecStory") || start.starts_with('#') {
            return NotATranscript::Markdown;
        }
        if records.is_empty() {
            return NotATranscript::NotJsonl;
        }
        NotATranscript::UnknownShape {
            records: records.len(),
            formats,
        }
    }
}
