//! One session as the listing shows it (and the listing cache keeps it).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::given::kept::UseCounts;

/// One session in the listing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Listed {
    pub id: String,
    pub agent: Agent,
    /// When its first entry was written (UTC); for transcripts without
    /// times (Cursor's), when the file was last written.
    pub started: Option<String>,
    /// Numbered lines, as `thehook read` numbers them.
    pub lines: usize,
    /// The captured session's title, else the agent's, else the first prompt.
    pub summary: String,
    pub path: PathBuf,
    pub failed_copy: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<Listed>,
    /// For a captured session, the lines the hooks gave it and how many it
    /// used ([`crate::given`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<UseCounts>,
}
