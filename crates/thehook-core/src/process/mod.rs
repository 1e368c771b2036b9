//! thehook's children: its own detached halves (the capture worker after a
//! session ends, the background sync after a session starts), and the LLM
//! CLI, whose whole tree must die on a timeout or with the worker. What a
//! platform does for each is in [`unix`] or [`windows`]; [`git`] runs git
//! the one way thehook reads it, and [`blame`] reads who wrote each line.

use std::path::Path;
use std::process::{Child, Command, Stdio};

pub mod blame;
pub(crate) mod git;
pub mod llm_command;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

/// Starts `<exe> -C <root> <args>` fully detached: no stdio, no console, and
/// a process group of its own (on Windows also out of the agent's job when
/// the job allows it), so the agent neither waits for it nor signals it, and
/// it outlives the agent. Failing to start is not an error anyone could act
/// on in a hook: the sweep of the next session start catches up.
pub fn spawn_detached(exe: &Path, root: &Path, args: &[&str]) {
    let mut cmd = Command::new(exe);
    cmd.arg("-C").arg(root).args(args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let _ = os::spawn_detached(&mut cmd);
}

/// A child and every process it starts, to be killed together.
pub struct Tree(os::Tree);

impl Tree {
    /// Readies `command` so that what it spawns can be held as a [`Tree`]:
    /// a process group of its own (the agent's terminal signals do not reach
    /// it), killed when this process dies where the platform allows it.
    pub fn prepare(command: &mut Command) {
        os::prepare(command);
    }

    /// Holds the tree of a child spawned from a prepared command.
    pub fn of(child: &Child) -> Tree {
        Tree(os::Tree::of(child))
    }

    /// Kills the child and everything it started; a tree that is gone
    /// already is no error.
    pub fn kill(&self) {
        self.0.kill();
    }
}
