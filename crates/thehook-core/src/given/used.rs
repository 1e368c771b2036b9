//! Whether a session used what it was given, read off its own transcript at
//! capture. A line given counts as used when, after it was given, the
//! session
//! - reads or edits a file the line names, or one the cited session changed;
//! - runs a shell command that names such a file;
//! - opens the cited markdown file itself;
//! - fetches the cited line through thehook's MCP `recall` or `read`.
//!
//! The first such tool call is the evidence. Its limits (docs/ui.md): a
//! line can help without any file being touched (a convention followed
//! from memory), and a file touched for another reason counts all the same.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::record::{GivenBlock, Hook};
use crate::transcript::{path_argument, Block, ToolCall, ToolRole, ToolShape, Transcript};

/// At most this many lines given are kept per session: a session's record
/// stays small whatever it was given.
pub const MOST_LINES_KEPT: usize = 400;

/// What one hook gave a session, each line marked used or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsedBlock {
    #[serde(flatten)]
    pub hook: Hook,
    /// When it was given (RFC 3339), when known.
    pub at: Option<String>,
    pub lines: Vec<GivenLine>,
}

/// One line given: its citation and, if the session used it, how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GivenLine {
    pub cited: String,
    pub used: Option<Evidence>,
}

/// The tool call that used a line given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub how: UsedHow,
    /// The tool's name as the agent called it (`Read`, `mcp__thehook__recall`).
    pub tool: String,
    /// The file, command or search the call was about, one line, clipped.
    pub target: String,
    /// When the call was made (RFC 3339), when the transcript says.
    pub at: Option<String>,
}

/// How a line was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsedHow {
    /// A file it names, or its session changed, was read.
    Read,
    /// Such a file was edited.
    Edited,
    /// A shell command named such a file.
    Ran,
    /// The cited markdown was opened.
    Opened,
    /// thehook's MCP `recall` or `read` returned it.
    Fetched,
}

/// The files a cited line is about: those its text names (a path, or a
/// file name that ends one) and those its session changed.
#[derive(Debug, Clone, Default)]
pub struct Related {
    pub files: Vec<String>,
}

/// One tool call with when it was made, the files it touched (relative to
/// the project) and the text to look for citations in.
struct Call<'t> {
    call: &'t ToolCall,
    at: Option<jiff::Timestamp>,
    at_text: Option<&'t str>,
    files: Vec<String>,
    command: Option<String>,
    from_thehook: bool,
}

/// Marks each line of `blocks` used or not by the tool calls of
/// `transcript`, in a project at `root`. `related` gives what a citation's
/// line is about. At most [`MOST_LINES_KEPT`] lines: the rest are counted.
pub fn mark(
    blocks: &[GivenBlock],
    transcript: &Transcript,
    root: &Path,
    related: &HashMap<String, Related>,
) -> (Vec<UsedBlock>, usize) {
    let calls = calls(transcript, root);
    let mut kept = 0;
    let mut left_out = 0;
    let mut out = Vec::new();
    for block in blocks {
        let since = block.at.as_deref().and_then(|t| t.parse().ok());
        let mut lines = Vec::new();
        for cited in &block.cited {
            if kept == MOST_LINES_KEPT {
                left_out += 1;
                continue;
            }
            kept += 1;
            let about = related.get(cited);
            let used = calls
                .iter()
                .filter(|c| after(c.at, since))
                .find_map(|c| evidence(c, cited, about));
            lines.push(GivenLine {
                cited: cited.clone(),
                used,
            });
        }
        if !lines.is_empty() {
            out.push(UsedBlock {
                hook: block.hook.clone(),
                at: block.at.clone(),
                lines,
            });
        }
    }
    (out, left_out)
}

/// Whether a call made at `at` came after a line given at `since`. Either
/// time unknown (a transcript without times, an older record): it counts.
fn after(at: Option<jiff::Timestamp>, since: Option<jiff::Timestamp>) -> bool {
    match (at, since) {
        (Some(at), Some(since)) => at > since,
        _ => true,
    }
}

/// How call `c` used the line cited as `cited`, if it did.
fn evidence(c: &Call, cited: &str, about: Option<&Related>) -> Option<Evidence> {
    let markdown = crate::store::item::file_of_citation(cited);
    let said = |how, target: &str| {
        Some(Evidence {
            how,
            tool: c.call.name.clone(),
            target: crate::text::clip_chars(&target.replace(['\n', '\r'], " "), 200),
            at: c.at_text.map(str::to_string),
        })
    };
    if c.from_thehook {
        let text = call_text(c.call);
        return if text.contains(cited) || text.contains(markdown) {
            said(UsedHow::Fetched, cited)
        } else {
            None
        };
    }
    if let Some(file) = c.files.iter().find(|f| f.as_str() == markdown) {
        return said(UsedHow::Opened, file);
    }
    let named = about.map(|r| r.files.as_slice()).unwrap_or_default();
    if let Some(file) = c
        .files
        .iter()
        .find(|f| named.iter().any(|n| same_file(f, n)))
    {
        let how = if c.call.kind.role == ToolRole::Writes {
            UsedHow::Edited
        } else {
            UsedHow::Read
        };
        return said(how, file);
    }
    let command = c.command.as_deref()?;
    if command.contains(markdown) {
        return said(UsedHow::Opened, command);
    }
    named
        .iter()
        .filter(|n| n.contains('/'))
        .any(|n| command.contains(n.as_str()))
        .then(|| said(UsedHow::Ran, command))
        .flatten()
}

/// Whether path `touched` is the file `named`: the same path, or `named`
/// is a file name or a tail that ends it (`loader.go`, `config/loader.go`).
fn same_file(touched: &str, named: &str) -> bool {
    touched == named
        || touched
            .strip_suffix(named)
            .is_some_and(|head| head.ends_with('/'))
}

/// Every tool call of `transcript` and its subagents, in order.
fn calls<'t>(transcript: &'t Transcript, root: &Path) -> Vec<Call<'t>> {
    let cwd = transcript.cwd.as_deref().map(Path::new).unwrap_or(root);
    let mut out = Vec::new();
    for t in std::iter::once(transcript).chain(&transcript.subagents) {
        for entry in &t.entries {
            let at_text = entry.timestamp.as_deref();
            let at = at_text.and_then(|s| s.parse().ok());
            for block in &entry.blocks {
                if let Block::ToolCall(call) = block {
                    out.push(Call {
                        call,
                        at,
                        at_text,
                        files: touched_files(call, root, cwd),
                        command: (call.kind.shape == ToolShape::Shell).then(|| call_text(call)),
                        from_thehook: thehooks_search(&call.name),
                    });
                }
            }
        }
    }
    out
}

/// Whether a tool is thehook's MCP `recall` or `read` (`mcp__thehook__recall`).
fn thehooks_search(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("thehook") && (name.contains("recall") || name.contains("read"))
}

/// The files a call reads or changes, relative to the project root.
fn touched_files(call: &ToolCall, root: &Path, cwd: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    if call.kind.touches_a_file() {
        paths.extend(path_argument(&call.input));
    }
    if call.kind.shape == ToolShape::Patch {
        paths.extend(crate::transcript::patch_files(&call_text(call)));
    }
    paths
        .iter()
        .filter_map(|p| relative(p, root, cwd))
        .collect()
}

/// `path` as the project cites it: `/`-separated, from the root (or the
/// folder the session ran in). `None` for a path outside both.
fn relative(path: &str, root: &Path, cwd: &Path) -> Option<String> {
    let path = Path::new(path);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    // `src/../x.rs` is `x.rs`: folded by name, as the agent meant it.
    let mut full = std::path::PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                full.pop();
            }
            std::path::Component::CurDir => {}
            other => full.push(other),
        }
    }
    // The transcript's own folder stands for the root when the project is
    // not where the session ran (moved, or captured from another copy).
    let rel = full
        .strip_prefix(root)
        .or_else(|_| full.strip_prefix(cwd))
        .ok()?;
    let rel = crate::project::slashed(rel);
    Some(rel)
}

/// A call's input and result as one text, to look for names in.
fn call_text(call: &ToolCall) -> String {
    let mut text = strings(&call.input);
    if let Some(result) = &call.result {
        text.push('\n');
        text.push_str(&result.text);
    }
    text
}

/// Every string in a JSON value, one per line.
fn strings(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items.iter().map(strings).collect::<Vec<_>>().join("\n"),
        serde_json::Value::Object(map) => map.values().map(strings).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests;
