//! A transcript file read by the agent whose format it is: the records are
//! sniffed one by one (a few decide: foreign header lines may come first),
//! never by the file name; a file that is no agent's JSONL is tried as one
//! JSON document (an opencode export, an older Gemini CLI chat).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::Agent;
use crate::error::{Error, IoContext, Result};
use crate::transcript::{
    bounded, read_records, strip_injected_memory, Block, NotATranscript, Record, ToolKind,
    Transcript,
};

#[cfg(test)]
pub(crate) mod tests;

/// Reads the transcript at `path`, with the subagents' transcripts its
/// agent keeps in files of their own.
///
/// A file over [`bounded::WHOLE_UP_TO`] is read as its head and tail, and
/// the transcript warns what was left out.
pub fn load(path: &Path) -> Result<Transcript> {
    let read = bounded::read(path).at("cannot read the transcript", path)?;
    let parsed = match read.left_out {
        Some(left_out) if read.bytes.is_empty() => Err(NotATranscript::NoLines {
            size: left_out.size,
        }),
        Some(left_out) if opens_a_document(&read.bytes) => Err(NotATranscript::DocumentTooLarge {
            size: left_out.size,
        }),
        _ => parse_as(&read.bytes),
    };
    let (agent, mut transcript) = parsed.map_err(|problem| Error::Transcript {
        path: path.to_path_buf(),
        problem,
        formats: super::titles(),
    })?;
    if let Some(left_out) = read.left_out {
        transcript.warnings.push(left_out.to_string());
        transcript.left_out = Some(left_out);
    }
    if transcript.session_id.is_none() {
        // Lines that carry no ids: the file is named after the conversation.
        transcript.session_id = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    }
    if transcript.agent_id.is_none() {
        let session_id = transcript.session_id.clone().unwrap_or_default();
        for sub in agent.spec().subagent_transcripts(path, &session_id) {
            let read = bounded::read(&sub).map_err(|e| e.to_string());
            match read.and_then(|read| parse(&read.bytes).map_err(|e| e.to_string())) {
                Ok(t) => transcript.subagents.push(t),
                Err(why) => transcript
                    .warnings
                    .push(format!("subagent transcript {}: {why}", sub.display())),
            }
        }
    }
    Ok(transcript)
}

/// Whether `bytes` start a JSON document spread over lines (an opencode
/// export, an older Gemini CLI chat): their first line opens an object it
/// does not close, where a JSONL transcript's first line is one.
fn opens_a_document(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    first.trim_ascii_start().starts_with(b"{")
        && serde_json::from_slice::<serde::de::IgnoredAny>(first).is_err()
}

/// Parses transcript bytes of any agent's format. The error says what the
/// content looks like instead.
pub fn parse(bytes: &[u8]) -> std::result::Result<Transcript, NotATranscript> {
    parse_as(bytes).map(|(_, t)| t)
}

/// The agent whose format `bytes` are in, and the transcript read from them.
fn parse_as(bytes: &[u8]) -> std::result::Result<(Agent, Transcript), NotATranscript> {
    let (agent, mut transcript) = parse_format(bytes)?;
    transcript.format = Some(agent.as_str());
    strip_injected_memory(&mut transcript);
    mark_tools(&mut transcript);
    Ok((agent, transcript))
}

/// Every tool call marked with what its tool does. Tools are known by name
/// whichever agent lists them: agents share names (Cursor runs tools named
/// as Claude Code's).
fn mark_tools(t: &mut Transcript) {
    static KINDS: std::sync::LazyLock<HashMap<&'static str, ToolKind>> =
        std::sync::LazyLock::new(|| {
            Agent::ALL
                .into_iter()
                .flat_map(|a| a.description().tools.iter().copied())
                .collect()
        });
    for entry in &mut t.entries {
        for block in &mut entry.blocks {
            if let Block::ToolCall(call) = block {
                call.kind = KINDS.get(call.name.as_str()).copied().unwrap_or_default();
            }
        }
    }
    for sub in &mut t.subagents {
        mark_tools(sub);
    }
}

fn parse_format(bytes: &[u8]) -> std::result::Result<(Agent, Transcript), NotATranscript> {
    let (records, mut warnings) = read_records(bytes);
    if let Some(agent) = sniff(&records) {
        if let Some(read) = agent.spec().read_records(&records) {
            let mut transcript = read?;
            warnings.append(&mut transcript.warnings);
            transcript.warnings = warnings;
            return Ok((agent, transcript));
        }
    }
    // Not JSONL: perhaps one JSON document, whatever the name.
    let doc = serde_json::from_slice::<Value>(bytes).ok();
    doc.as_ref()
        .and_then(|doc| {
            Agent::ALL
                .into_iter()
                .find_map(|a| Some((a, a.spec().read_document(doc)?)))
        })
        .ok_or_else(|| NotATranscript::describe(bytes, &records, super::titles()))
}

/// Which agent wrote these records, from their shape.
pub fn sniff(records: &[Record]) -> Option<Agent> {
    records.iter().take(50).find_map(|r| {
        let record = r.value.as_object()?;
        Agent::ALL.into_iter().find(|a| a.spec().sniffs(record))
    })
}

/// Which agent wrote the transcript file at `path`, from its first records;
/// a file that is no agent's JSONL is taken for the first agent that writes
/// JSON documents.
pub fn agent_of_file(path: &Path) -> Agent {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(64 * 1024).read_to_end(&mut head);
    }
    let (records, _) = read_records(&head);
    sniff(&records)
        .or_else(|| {
            Agent::ALL
                .into_iter()
                .find(|a| a.description().writes_documents)
        })
        .expect("some agent writes JSON documents")
}
