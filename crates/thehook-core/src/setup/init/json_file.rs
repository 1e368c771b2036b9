//! Agents' JSON settings files, read and written for editing: the file's
//! indentation is kept, a missing file reads as `{}`, a symlinked file
//! stays a symlink, and the write is atomic.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, IoContext, Result};
use crate::store::write_atomic;

/// A settings file read for editing.
pub(super) struct Settings {
    pub(super) value: Value,
    pub(super) existed: bool,
    indent: Vec<u8>,
}

pub(super) fn read(path: &Path) -> Result<Settings> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Settings {
                value: Value::Object(Map::new()),
                existed: false,
                indent: b"  ".to_vec(),
            })
        }
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let invalid = |problem: String, source: Option<crate::error::Cause>| {
        Error::Settings {
        path: path.to_path_buf(),
        problem,
        source,
        fix: "make it valid JSON (no comments or trailing commas; `python3 -m json.tool FILE` shows where it breaks), then run the command again".into(),
    }
    };
    let value: Value = if text.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(&text)
            .map_err(|e| invalid(format!("is not valid JSON: {e}"), crate::error::cause(e)))?
    };
    if !value.is_object() {
        return Err(invalid("holds JSON, but not an object".into(), None));
    }
    // Keep the file's indentation: that of its first indented line.
    let indent = text
        .lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .as_bytes()
        .to_vec();
    Ok(Settings {
        value,
        existed: true,
        indent,
    })
}

pub(super) fn write(path: &Path, s: &Settings) -> Result<()> {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&s.indent);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    s.value
        .serialize(&mut ser)
        .expect("a JSON value serialises");
    out.push(b'\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).at("cannot create folder", dir)?;
    }
    // A settings file that is a symlink (dotfiles) stays one: write its target.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    write_atomic(&target, &out)
}
