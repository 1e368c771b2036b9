//! The full form: each asked-for line whole, with thinking, tool inputs and
//! results. A header line (`number|kind|timestamp`, and the tool's name),
//! then the content; tool inputs and results in XML-like tags, one per
//! argument, so multi-line values (an Edit's old and new text) stay readable.

use std::fmt::Write;

use serde_json::Value;

use super::lines::{Line, Part};
use crate::transcript::{strip_base64, ToolCall, ToolResult};

pub(super) fn line(l: &Line) -> String {
    let mut out = format!("{}|{}", l.number, super::kind_label(l));
    if let Some(t) = l.timestamp {
        let _ = write!(out, "|{t}");
    }
    match l.part {
        Part::Said { text, .. } | Part::Thinking(text) => {
            let _ = write!(out, "\n{}", strip_base64(text.trim_end()));
        }
        Part::Tool(call) => tool(&mut out, call),
        Part::Result(r) => result(&mut out, Some(r)),
        Part::Image(media) => {
            let _ = write!(out, "\n[image {}]", media.unwrap_or("of unknown type"));
        }
    }
    out
}

fn tool(out: &mut String, call: &ToolCall) {
    let _ = write!(out, "|{}", call.name);
    match &call.input {
        Value::Object(map) => {
            for (key, value) in map {
                tag(out, key, &argument_text(value));
            }
        }
        Value::Null => {}
        other => tag(out, "input", &argument_text(other)),
    }
    result(out, call.result.as_ref());
}

fn argument_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn result(out: &mut String, r: Option<&ToolResult>) {
    match r {
        None => out.push_str("\n<result/>"),
        Some(r) => {
            let name = if r.is_error { "error" } else { "result" };
            tag(out, name, &strip_base64(&r.text));
        }
    }
}

/// `<name>value</name>` on one line, or around the value's own lines.
fn tag(out: &mut String, name: &str, value: &str) {
    let value = value.trim_end_matches('\n');
    if value.contains('\n') {
        let _ = write!(out, "\n<{name}>\n{value}\n</{name}>");
    } else {
        let _ = write!(out, "\n<{name}>{value}</{name}>");
    }
}
