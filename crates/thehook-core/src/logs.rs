//! Hook and worker logs under `.thehook/logs/`: one line per run, kept small
//! by rotating at [`MAX_LOG_BYTES`] to a single `.1` file.

use crate::project::Project;

pub const MAX_LOG_BYTES: u64 = 1 << 20;

/// Appends a timestamped line to `.thehook/logs/<name>`. Logging never
/// fails the caller: a hook must not break because its log cannot be written.
pub fn append(project: &Project, name: &str, line: &str) {
    let dir = project.logs_dir();
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(name);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::rename(&path, dir.join(format!("{name}.1")));
    }
    let now = jiff::Timestamp::now()
        .round(jiff::Unit::Millisecond)
        .unwrap_or(jiff::Timestamp::now());
    let line = format!("{now} {}\n", line.replace('\n', " "));
    let _ = crate::append::append_whole(&path, line.as_bytes());
}
