//! git as thehook runs it: in the project, reading only.

use std::path::Path;
use std::process::{Command, Stdio};

/// `git -C root` with its output piped and its errors dropped.
pub(crate) fn git(root: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(root)
        // Paths as they are, not quoted with octal escapes.
        .args(["-c", "core.quotePath=false"])
        // Never take git's index lock: an agent's own git commands may run now.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}
