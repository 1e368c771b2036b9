//! The compact form: one line per numbered piece, for scanning a whole
//! session in few tokens (the format docs/capture.md shows for `thehook read`). A tool call and its result
//! share one line, in a form that fits the tool:
//!
//! ```text
//! 1|2026-01-05T02:50|user|"I'd like to iterate a bit on the schema" +3lines
//! 2|02:51|thinking|45lines
//! 6|02:51|tool|Edit|src/lib/schemas.ts|-36+57
//! 9|02:52|tool|Bash|command="bun test"|description="Run tests"|returned="bun test v1.2" +62lines
//! ```

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::lines::{Line, Part};
use crate::transcript::{clip_chars, first_line, patch_files, path_argument, ToolCall, ToolShape};

/// Characters kept of a quoted first line.
const QUOTE: usize = 80;
/// Characters kept of a tool argument.
const ARGUMENT: usize = 100;
/// Arguments shown for a tool without a form of its own.
const GENERIC_ARGUMENTS: usize = 4;

/// Writes timestamps as `2026-01-05T02:50` the first time and on a new day,
/// else `02:51`.
#[derive(Default)]
pub(super) struct Clock {
    day: Option<String>,
}

impl Clock {
    pub(super) fn stamp(&mut self, timestamp: Option<&str>) -> String {
        let Some(t) = timestamp.and_then(|t| t.parse::<jiff::Timestamp>().ok()) else {
            return String::new();
        };
        let full = t.strftime("%Y-%m-%dT%H:%M").to_string();
        let (day, time) = full.split_at(10);
        if self.day.as_deref() == Some(day) {
            time[1..].to_string()
        } else {
            self.day = Some(day.to_string());
            full
        }
    }
}

pub(super) fn line(l: &Line, clock: &mut Clock) -> String {
    let body = match l.part {
        Part::Said { text, .. } => quote(text),
        Part::Thinking(text) => count(text.trim().lines().count(), "line"),
        Part::Tool(call) => tool(call),
        Part::Result(r) => match r.is_error {
            true => format!("error={}", quote(&r.text)),
            false => format!("returned={}", count(r.text.lines().count(), "line")),
        },
        Part::Image(media) => media.unwrap_or("image").to_string(),
    };
    format!(
        "{}|{}|{}|{}",
        l.number,
        clock.stamp(l.timestamp),
        super::kind_label(l),
        body
    )
}

/// `"first line" +Nlines`.
fn quote(text: &str) -> String {
    let text = text.trim();
    let first = clip_chars(&first_line(text), QUOTE);
    match text.lines().count().saturating_sub(1) {
        0 => format!("\"{first}\""),
        more => format!("\"{first}\" +{}", count(more, "line")),
    }
}

fn count(n: usize, unit: &str) -> String {
    match n {
        1 => format!("1{unit}"),
        n => format!("{n}{unit}s"),
    }
}

fn tool(call: &ToolCall) -> String {
    let input = &call.input;
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let mut fields = vec![call.name.clone()];
    let mut argument = |name: &str, value: Option<&str>| {
        if let Some(v) = value {
            fields.push(format!("{name}={}", quote_argument(v)));
        }
    };
    // What the result adds: for most tools, its size.
    let mut result = Returned::Lines;
    match call.kind.shape {
        ToolShape::Edit => {
            fields.extend(path_argument(input));
            let (removed, added) = edit_stats(input);
            fields.push(format!("-{removed}+{added}"));
            result = Returned::ErrorOnly;
        }
        ToolShape::Patch => {
            let patch = input
                .as_str()
                .or_else(|| text("input"))
                .or_else(|| text("patch"))
                .unwrap_or_default();
            fields.push(patch_files(patch).join(","));
            let (removed, added) = patch_stats(patch);
            fields.push(format!("-{removed}+{added}"));
            result = Returned::ErrorOnly;
        }
        ToolShape::Write => {
            fields.extend(path_argument(input));
            let content = text("content")
                .or_else(|| text("contents"))
                .or_else(|| text("file_text"));
            fields.push(format!(
                "written={}",
                count(content.unwrap_or_default().lines().count(), "line")
            ));
            result = Returned::ErrorOnly;
        }
        ToolShape::Read => fields.extend(path_argument(input)),
        ToolShape::Shell => {
            argument("command", command(input).as_deref());
            argument("description", text("description"));
            result = Returned::FirstLine;
        }
        ToolShape::Search => {
            argument("pattern", text("pattern").or_else(|| text("query")));
            fields.extend(path_argument(input));
            result = Returned::Matches;
        }
        ToolShape::Glob => {
            argument("pattern", text("pattern").or_else(|| text("glob_pattern")));
            fields.extend(path_argument(input));
            result = Returned::Files;
        }
        ToolShape::Subagent => {
            let agent = call.result.as_ref().and_then(|r| subagent_id(&r.text));
            argument(
                "agent_session",
                agent.map(|id| format!("agent-{id}")).as_deref(),
            );
            argument("description", text("description"));
            let prompt = text("prompt").unwrap_or_default();
            fields.push(format!("prompt={}", count(prompt.lines().count(), "line")));
        }
        ToolShape::Plan => {
            let todos = input
                .get("todos")
                .or_else(|| input.get("plan"))
                .and_then(Value::as_array);
            fields.push(format!("todos={}", todos.map_or(0, Vec::len)));
            result = Returned::ErrorOnly;
        }
        ToolShape::Ask => {
            let questions = input.get("questions").and_then(Value::as_array);
            fields.push(format!("questions={}", questions.map_or(1, Vec::len)));
            result = Returned::FirstLine;
        }
        ToolShape::ExitPlan => result = Returned::FirstLine,
        ToolShape::Other => fields.extend(generic_arguments(input)),
    }
    if let Some(r) = returned(call, result) {
        fields.push(r);
    }
    fields.join("|")
}

/// How a tool line shows its result.
#[derive(Clone, Copy)]
enum Returned {
    Lines,
    /// Lines of a search, which may say it found none.
    Matches,
    Files,
    FirstLine,
    ErrorOnly,
}

fn returned(call: &ToolCall, how: Returned) -> Option<String> {
    let Some(r) = &call.result else {
        return Some("returned=nothing".into());
    };
    if r.is_error {
        return Some(format!("error={}", quote(&r.text)));
    }
    let lines = r.text.lines().filter(|l| !l.trim().is_empty()).count();
    // Grep and Glob say so in words when they find nothing ("No files found").
    let found = |unit: &str| match r.text.trim().starts_with("No ") && lines == 1 {
        true => format!("returned=0{unit}s"),
        false => format!("returned={}", count(lines, unit)),
    };
    match how {
        Returned::Lines => Some(format!("returned={}", count(lines, "line"))),
        Returned::Matches => Some(found("line")),
        Returned::Files => Some(found("file")),
        Returned::FirstLine if lines == 0 => Some("returned=nothing".into()),
        Returned::FirstLine => Some(format!("returned={}", quote(&r.text))),
        Returned::ErrorOnly => None,
    }
}

/// `"value"`, one line, clipped; `+Nlines` when it had more.
fn quote_argument(value: &str) -> String {
    let value = value.trim();
    let first = clip_chars(value.lines().next().unwrap_or_default().trim(), ARGUMENT);
    match value.lines().count().saturating_sub(1) {
        0 => format!("\"{first}\""),
        more => format!("\"{first}\" +{}", count(more, "line")),
    }
}

/// A shell command: a string, or Codex's `["bash", "-lc", "cargo test"]`.
fn command(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .skip_while(|s| matches!(*s, "bash" | "zsh" | "sh" | "-lc" | "-c"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// Lines removed and added by an Edit (or each edit of a MultiEdit).
fn edit_stats(input: &Value) -> (usize, usize) {
    let one = |e: &Value| {
        let lines = |k: &str| {
            e.get(k)
                .and_then(Value::as_str)
                .map_or(0, |s| s.lines().count())
        };
        (
            lines("old_string").max(lines("old_str")),
            lines("new_string").max(lines("new_str")),
        )
    };
    match input.get("edits").and_then(Value::as_array) {
        Some(edits) => edits
            .iter()
            .map(one)
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        None => one(input),
    }
}

/// Lines removed and added by an apply_patch body.
fn patch_stats(patch: &str) -> (usize, usize) {
    let changed = |sign: &str, header: &str| {
        patch
            .lines()
            .filter(|l| l.starts_with(sign) && !l.starts_with(header))
            .count()
    };
    (changed("-", "---"), changed("+", "+++"))
}

/// The id Claude Code gives a subagent, from the Task result
/// (`agentId: a683f63 (for resuming ...)`).
pub(super) fn subagent_id(result: &str) -> Option<String> {
    static AGENT_ID: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"agentId: ([A-Za-z0-9_-]+)").expect("a valid regex"));
    Some(AGENT_ID.captures(result)?[1].to_string())
}

/// `key="value"` for the first few arguments of an unknown tool.
fn generic_arguments(input: &Value) -> Vec<String> {
    match input {
        Value::Object(map) => map
            .iter()
            .take(GENERIC_ARGUMENTS)
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={}", quote_argument(s)),
                Value::Array(a) => format!("{k}={}", count(a.len(), "item")),
                Value::Object(o) => format!("{k}={}", count(o.len(), "field")),
                other => format!("{k}={other}"),
            })
            .collect(),
        Value::String(s) => vec![quote_argument(s)],
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    }
}
