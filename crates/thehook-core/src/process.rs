//! Starting thehook's own detached halves: the capture worker after a
//! session ends, the background sync after a session starts.

use std::path::Path;
use std::process::{Command, Stdio};

/// Starts `<exe> -C <root> <args>` fully detached: no stdio, and on Unix a
/// process group of its own, so the agent neither waits for it nor signals
/// it, and it outlives the agent. Failing to start is not an error anyone
/// could act on in a hook: the sweep of the next session start catches up.
pub fn spawn_detached(exe: &Path, root: &Path, args: &[&str]) {
    let mut cmd = Command::new(exe);
    cmd.arg("-C").arg(root).args(args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let _ = cmd.spawn();
}
