//! The condensed form of a transcript: what a person asked, what the agent
//! concluded, the tools it used with their key argument, the files it
//! touched and the errors it hit, one line each. Thinking, injected context,
//! base64 and long tool output are left out. This is what a reader (or the
//! capture LLM) needs, in a fraction of the tokens.

use std::collections::BTreeSet;
use std::fmt::Write;

use serde_json::Value;

use super::{Block, Entry, Role, ToolCall, Transcript};

/// How much of each piece to keep.
#[derive(Debug, Clone)]
pub struct CondenseOptions {
    /// Characters kept of a prompt or a reply.
    pub max_text: usize,
    /// Characters kept of a tool's key argument or of an error.
    pub max_detail: usize,
    /// Include subagents' turns (indented).
    pub sidechains: bool,
}

impl Default for CondenseOptions {
    fn default() -> Self {
        CondenseOptions {
            max_text: 600,
            max_detail: 160,
            sidechains: true,
        }
    }
}

/// Tools whose calls change files.
const WRITE_TOOLS: &[&str] = &[
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "apply_patch",
    "edit_file",
    "write_file",
    "replace",
    "search_replace",
    "StrReplace",
    "Delete",
];

pub fn condense(t: &Transcript, o: &CondenseOptions) -> String {
    let mut out = String::new();
    let mut head: Vec<String> = Vec::new();
    if let Some(f) = t.format {
        head.push(match &t.agent_version {
            Some(v) => format!("{} {v}", f.as_str()),
            None => f.as_str().to_string(),
        });
    }
    head.extend(t.session_id.iter().map(|s| format!("session {s}")));
    head.extend(t.model.iter().cloned());
    head.extend(t.git_branch.iter().map(|b| format!("branch {b}")));
    let _ = writeln!(out, "# {}", head.join(" · "));
    if let Some(cwd) = &t.cwd {
        let _ = writeln!(out, "cwd: {cwd}");
    }
    if let (Some(s), Some(e)) = (&t.started, &t.ended) {
        let _ = writeln!(out, "time: {s} .. {e}");
    }
    if let Some(title) = &t.title {
        let _ = writeln!(out, "title: {}", clip(title, o.max_text));
    }
    let mut files = BTreeSet::new();
    let mut errors = 0usize;
    write_entries(&mut out, t, o, "", &mut files, &mut errors);
    for sub in t.subagents.iter().filter(|_| o.sidechains) {
        let _ = writeln!(
            out,
            "## subagent {}",
            sub.agent_id.as_deref().unwrap_or("(unnamed)")
        );
        write_entries(&mut out, sub, o, "  ", &mut files, &mut errors);
    }
    if !files.is_empty() {
        let list: Vec<&str> = files.iter().map(String::as_str).collect();
        let _ = writeln!(out, "files changed: {}", list.join(", "));
    }
    if errors > 0 {
        let _ = writeln!(out, "tool errors: {errors}");
    }
    out
}

fn write_entries(
    out: &mut String,
    t: &Transcript,
    o: &CondenseOptions,
    indent: &str,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) {
    for e in &t.entries {
        if e.sidechain && !o.sidechains {
            continue;
        }
        let indent = if e.sidechain { "  " } else { indent };
        write_entry(out, e, o, indent, files, errors);
    }
}

fn write_entry(
    out: &mut String,
    e: &Entry,
    o: &CondenseOptions,
    indent: &str,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) {
    let who = match e.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        // Injected instructions and summaries are the agent's, not the session's.
        Role::Context => return,
        Role::Event => "event",
    };
    let time = e
        .timestamp
        .as_deref()
        .and_then(|t| t.get(11..16))
        .map(|hm| format!(" {hm}"))
        .unwrap_or_default();
    let mut wrote_head = false;
    for b in &e.blocks {
        let line = match b {
            Block::Text { text } => {
                let text = one_line(&strip_base64(text));
                if text.is_empty() {
                    continue;
                }
                clip(&text, o.max_text)
            }
            Block::Image { .. } => "[image]".to_string(),
            Block::ToolCall(call) => tool_line(call, o, files, errors),
            Block::ToolResult { result, .. } if result.is_error => {
                *errors += 1;
                format!(
                    "tool error: {}",
                    clip(&first_line(&result.text), o.max_detail)
                )
            }
            Block::ToolResult { .. } | Block::Thinking { .. } => continue,
        };
        if wrote_head {
            let _ = writeln!(out, "{indent}  {line}");
        } else {
            let _ = writeln!(out, "{indent}[{}] {who}{time}: {line}", e.line);
            wrote_head = true;
        }
    }
}

/// Tools that run shell commands.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "shell",
    "Shell",
    "exec_command",
    "local_shell",
    "run_terminal_cmd",
    "run_shell_command",
];

/// What a session did, read off the transcript without an LLM: the basis
/// of a session file when no LLM answer can be had.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// What the person asked, in order.
    pub asked: Vec<String>,
    pub files_changed: Vec<String>,
    pub commands: Vec<String>,
    pub errors: Vec<String>,
}

pub fn facts(t: &Transcript) -> Facts {
    let mut f = Facts::default();
    let mut files = BTreeSet::new();
    for e in t.entries.iter().filter(|e| !e.sidechain) {
        for b in &e.blocks {
            match b {
                Block::Text { text } if e.role == Role::User => {
                    let text = one_line(&strip_base64(text));
                    if !text.is_empty() {
                        f.asked.push(text);
                    }
                }
                Block::ToolCall(call) => {
                    if WRITE_TOOLS.contains(&call.name.as_str()) {
                        match &call.input {
                            Value::String(patch) => files.extend(patch_files(patch)),
                            input => files.extend(path_argument(input)),
                        }
                    }
                    if SHELL_TOOLS.contains(&call.name.as_str()) {
                        f.commands
                            .extend(key_argument(&call.input).map(|c| one_line(&c)));
                    }
                    if let Some(r) = call.result.as_ref().filter(|r| r.is_error) {
                        f.errors.push(first_line(&r.text));
                    }
                }
                Block::ToolResult { result, .. } if result.is_error => {
                    f.errors.push(first_line(&result.text));
                }
                _ => {}
            }
        }
    }
    f.files_changed = files.into_iter().collect();
    f.errors.retain(|e| !e.is_empty());
    f
}

fn tool_line(
    call: &ToolCall,
    o: &CondenseOptions,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) -> String {
    let target = key_argument(&call.input);
    if WRITE_TOOLS.contains(&call.name.as_str()) {
        match &call.input {
            Value::String(patch) => files.extend(patch_files(patch)),
            input => files.extend(path_argument(input)),
        }
    }
    let mut line = format!("→ {}", call.name);
    if let Some(t) = target {
        let _ = write!(line, " {}", clip(&one_line(&t), o.max_detail));
    }
    if let Some(r) = &call.result {
        if r.is_error {
            *errors += 1;
            let _ = write!(line, " ✗ {}", clip(&first_line(&r.text), o.max_detail));
        }
    }
    line
}

/// The argument that says what a tool call did.
fn key_argument(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => {
            let files = patch_files(s);
            Some(if files.is_empty() {
                first_line(s)
            } else {
                files.join(", ")
            })
        }
        Value::Object(o) => {
            const KEYS: &[&str] = &[
                "command",
                "cmd",
                "file_path",
                "path",
                "notebook_path",
                "pattern",
                "query",
                "url",
                "description",
                "prompt",
                "subject",
            ];
            KEYS.iter().find_map(|k| match o.get(*k)? {
                Value::String(s) => Some(s.clone()),
                // Codex shell commands: ["bash", "-lc", "cargo test"].
                Value::Array(a) => Some(
                    a.iter()
                        .filter_map(Value::as_str)
                        .skip_while(|s| matches!(*s, "bash" | "zsh" | "sh" | "-lc" | "-c"))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
        }
        _ => None,
    }
}

pub(crate) fn path_argument(input: &Value) -> Option<String> {
    ["file_path", "path", "notebook_path", "target_file"]
        .iter()
        .find_map(|k| input.get(*k)?.as_str().map(str::to_string))
}

/// Files named in an apply_patch body.
pub(crate) fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
        })
        .map(|f| f.trim().to_string())
        .collect()
}

pub(crate) fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, cut at a character boundary, marked with `…`.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// Replaces long runs of base64 (inline images, blobs) by their size.
pub(crate) fn strip_base64(s: &str) -> String {
    const MIN_RUN: usize = 200;
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
    let mut out = String::with_capacity(s.len().min(4096));
    let mut run_start: Option<usize> = None;
    let flush = |out: &mut String, start: usize, end: usize| {
        if end - start >= MIN_RUN {
            let _ = write!(out, "[base64, {} bytes]", end - start);
        } else {
            out.push_str(&s[start..end]);
        }
    };
    for (i, c) in s.char_indices() {
        match (is_b64(c), run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(start)) => {
                flush(&mut out, start, i);
                run_start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(start) = run_start {
        flush(&mut out, start, s.len());
    }
    out
}
