//! What a session is told. [`retrieve`] is the session-start hook's policy
//! (which payloads inject, the fast path, the background half); [`context`]
//! reads the branch and the files in play from git; [`left_off`] ranks the
//! earlier sessions a new one likely continues; [`prompt`] is the prompt
//! hook; [`file`] the file hook. What each hook gives is recorded
//! ([`crate::given`]), so nothing is given twice.

pub mod background;
pub(crate) mod block;
pub(crate) mod cache;
pub(crate) mod context;
pub mod file;
pub(crate) mod left_off;
pub mod prompt;
pub mod retrieve;
pub(crate) mod tokens;

use crate::error::{ErrorCode, Result};
use crate::memory::{Memory, SyncPolicy, NO_PROGRESS};

/// What a hook that may add context mid-session (the prompt hook, the file
/// hook) decided: the JSON to print, if any, and one line for the hook log.
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

/// Syncs memory as a hook does ([`SyncPolicy::HOOK`]), which answers
/// anyway: on a full disk the index is read as it stands (the markdown
/// written since is found once there is room), and the returned note says
/// so for the hook's log line (empty when the sync went through).
pub(crate) fn sync_for_hook(memory: &mut Memory) -> Result<String> {
    match memory.sync(SyncPolicy::HOOK, NO_PROGRESS) {
        Ok(_) => Ok(String::new()),
        Err(e) if e.code() == ErrorCode::DiskFull => Ok(format!(
            "answered from the index as it stood ({}); ",
            crate::transcript::first_line(&e.to_string())
        )),
        Err(e) => Err(e),
    }
}
