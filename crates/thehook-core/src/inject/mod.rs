//! What a session is told. [`session_start`] is the session-start hook's
//! policy (which payloads inject, the fast path, the background half);
//! [`git_context`] reads the branch and the files in play from git;
//! [`left_off`] ranks the earlier sessions a new one likely continues;
//! [`prompt`] is the prompt hook; [`file`] the file hook; [`subagent`] what
//! a subagent is given when it starts; [`so_far`] what a session was doing
//! before a compaction. What each hook gives is recorded
//! ([`crate::given`]), so nothing is given twice.

pub(crate) mod block;
pub(crate) mod cache;
pub mod file;
pub(crate) mod git_context;
pub(crate) mod left_off;
pub mod prompt;
pub mod session_start;
pub(crate) mod so_far;
pub mod subagent;
pub(crate) mod tokens;

use crate::error::{ErrorCode, Result};
use crate::memory::index::SyncStats;
use crate::memory::{Focus, Memory, SyncPolicy, NO_PROGRESS};

/// What a hook that adds context decided (session start, a prompt, a file,
/// a subagent's start): the JSON to print, if any, and one line for the
/// hook log.
#[derive(Debug, Clone, Default)]
pub struct Added {
    pub output: Option<serde_json::Value>,
    pub log: String,
}

impl Added {
    /// Nothing to add, and why.
    pub(crate) fn nothing(log: String) -> Added {
        Added { output: None, log }
    }
}

/// Syncs memory as a hook does ([`SyncPolicy::HOOK`], the answer's
/// `focus` first), which answers anyway: on a full disk the index is read
/// as it stands (the markdown written since is found once there is room).
/// The returned note, for the hook's log line, says what the sync left for
/// later (files, items the safety check has not read) and why it could not
/// write, each part led by "; " so it follows the line's numbers; empty
/// when it took everything.
pub(crate) fn sync_for_hook(memory: &mut Memory, focus: &Focus) -> Result<String> {
    match memory.sync(SyncPolicy::HOOK.focused(focus), NO_PROGRESS) {
        Ok(stats) => Ok(left_for_later(&stats)),
        Err(e) if e.code() == ErrorCode::DiskFull => Ok(format!(
            "; answered from the index as it stood ({})",
            crate::transcript::first_line(&e.to_string())
        )),
        Err(e) => Err(e),
    }
}

/// Checks the files an answer cites before it is given, as a hook syncs
/// ([`Memory::recheck`]): true when one had changed and the answer is to be
/// made again. On a full disk the answer stands as the index does.
pub(crate) fn recheck_for_hook(memory: &mut Memory, cited: &[String]) -> Result<bool> {
    match memory.recheck(cited, SyncPolicy::HOOK) {
        Err(e) if e.code() == ErrorCode::DiskFull => Ok(false),
        other => other,
    }
}

/// What a hook's sync left, for its log line.
fn left_for_later(stats: &SyncStats) -> String {
    let mut note = String::new();
    if stats.files_postponed > 0 {
        note += &format!(
            "; indexed {} changed files, left {} for the background sync",
            stats.files_changed, stats.files_postponed
        );
    }
    if stats.left_unjudged > 0 {
        note += &format!(
            "; judged {} new texts, {} wait for the safety check (not given until then)",
            stats.judged_now, stats.left_unjudged
        );
    }
    note
}

/// The answer's focus for a hook's sync: the branch and the files in play.
pub(crate) fn focus_of(context: &git_context::GitContext) -> Focus {
    Focus {
        branch: context.branch.clone(),
        files: context.changed_files.clone(),
    }
}
