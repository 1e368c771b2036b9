//! What every agent CLI shares as a one-shot completion (each agent's
//! `llm.rs` has its command line) of thehook's prompt: its small
//! model unless `llm.model` names one, a one-line system prompt instead of
//! the agent's own, no tools, no MCP servers, no hooks, nothing of the
//! project's (rules, AGENTS.md, settings), no session saved where thehook's
//! sweep would find it. The switches are the real CLIs', found in their
//! bundled code and measured against the agent suite's mock server with a
//! 3,000-byte prompt (request bytes sent, before -> after):
//!
//! | CLI | before | after |
//! |---|---:|---:|
//! | Claude Code 2.1.328 (8,166-byte prompt) | 57,184 | 10,150 |
//! | Codex 0.169.0 | 42,573 | 4,786 |
//! | Gemini CLI 0.61.0 | 41,790 | 3,740 |

use std::path::{Path, PathBuf};

/// The system prompt that replaces each agent's own: the task is all in
/// thehook's prompt.
pub(crate) const SYSTEM: &str = "You turn coding session transcripts into project memory. Answer exactly in the format the prompt asks for, nothing else.";

/// A folder of thehook's own under the temp folder, for a CLI that must not
/// run in the project (it would record a session there, or read its rules).
pub(super) fn own_folder(name: &str) -> PathBuf {
    std::env::temp_dir().join(name)
}

pub(super) fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

pub(super) fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
