//! Reading agents' transcript stores cheaply: a session start sweeps them.

use std::path::{Path, PathBuf};

use crate::transcript::{read_records, Record};

/// The folders directly in `dir`.
pub(super) fn subdirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect()
}

/// The first records of a transcript (its first MB: a first line can hold a
/// pasted screenshot).
pub(super) fn head_records(path: &Path) -> Vec<Record> {
    use std::io::Read;
    const HEAD: usize = 1 << 20;
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(HEAD as u64).read_to_end(&mut buf);
    }
    // Drop a line cut by the limit.
    if buf.len() == HEAD {
        if let Some(end) = buf.iter().rposition(|b| *b == b'\n') {
            buf.truncate(end);
        }
    }
    read_records(&buf).0
}

/// The name of a file or folder, as text.
pub(super) fn name_of(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A project's folder name in a store keyed by path (Claude Code's, and
/// Cursor's after it): every non-alphanumeric character of the path
/// becomes `-`.
pub(super) fn slug(root: &Path) -> String {
    root.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
