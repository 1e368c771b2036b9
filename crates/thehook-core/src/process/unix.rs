//! Process groups: a prepared child leads a group of its own, and the
//! group is killed as one.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub(super) fn spawn_detached(cmd: &mut Command) -> std::io::Result<Child> {
    cmd.process_group(0).spawn()
}

/// On Linux the child is also killed when the worker dies. (The death
/// signal follows the spawning *thread*: spawn from a thread that lives as
/// long as the wait, as the LLM runner does by waiting on the thread that
/// spawned.)
pub(super) fn prepare(command: &mut Command) {
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

pub(super) struct Tree {
    group: libc::pid_t,
}

impl Tree {
    pub(super) fn of(child: &Child) -> Tree {
        Tree {
            group: child.id() as libc::pid_t,
        }
    }

    pub(super) fn kill(&self) {
        // SAFETY: a plain syscall; a group that is gone already gives ESRCH.
        unsafe {
            libc::kill(-self.group, libc::SIGKILL);
        }
    }
}
