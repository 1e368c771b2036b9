//! What a hook's sync indexes when more files changed than it may while an
//! agent waits (a pull of a team's week, a checkout of another branch, a
//! fresh clone): every knowledge file and every file indexed before that
//! changed or went, so that no text removed from memory is given; then, of
//! the new session files, those of the answer's [`Focus`] (this branch, the
//! files in play), then the newest. The rest waits for a sync without
//! limits (the session start's detached half), and the hook's log says so.

use std::collections::HashMap;

use super::{read_changes, FileChange};
use crate::memory::index::FileRecord;
use crate::policy::released::Released;
use crate::project::SESSIONS_PREFIX;
use crate::store::SourceFile;

/// What an answer after a hook's sync is about: the sessions of this branch
/// and of these files are indexed and judged first when the sync cannot
/// take every changed file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Focus {
    pub branch: Option<String>,
    /// Project-relative paths of the files in play.
    pub files: Vec<String>,
}

/// New session files read, newest first, to find those of the focus among
/// them: parsing is cheap beside indexing, but not free at a fresh clone's
/// 7,300 files.
const READ_AT_MOST: usize = 256;

/// The changes a capped sync writes, in the order they are judged, and what
/// it left.
pub(super) struct First {
    pub changes: Vec<FileChange>,
    /// Changed files left for a later sync.
    pub left: usize,
    pub warnings: Vec<String>,
}

/// Reads the changed files a sync capped at `max` new session files takes,
/// in this order: knowledge, files indexed before (changed or gone), then
/// the new sessions of `focus`, then the newest.
pub(super) fn read_first(
    changed: Vec<(String, Option<SourceFile>)>,
    records: &HashMap<String, FileRecord>,
    focus: Option<&Focus>,
    max: usize,
    released: &Released,
) -> First {
    let is_session = |rel: &str| rel.starts_with(SESSIONS_PREFIX);
    let (mut must, mut new): (Vec<_>, Vec<_>) = changed
        .into_iter()
        .partition(|(rel, _)| !is_session(rel) || records.contains_key(rel));
    // Knowledge first: its items are judged first.
    must.sort_by_key(|(rel, _)| is_session(rel));
    // Named by their start: the newest last by name.
    new.sort_by(|a, b| b.0.cmp(&a.0));
    let mut left = new.len().saturating_sub(READ_AT_MOST);
    new.truncate(READ_AT_MOST);
    let mut warnings = Vec::new();
    let must = read_changes(must, released, &mut warnings);
    let mut new = read_changes(new, released, &mut warnings);
    // Stable: within a rank, the newest first.
    new.sort_by_key(|change| std::cmp::Reverse(rank(change, focus)));
    let keep = max.min(new.len());
    left += new.len() - keep;
    new.truncate(keep);
    let mut changes = must;
    changes.extend(new);
    First {
        changes,
        left,
        warnings,
    }
}

/// How much a new session concerns the answer: 2 on its branch, 1 on a
/// file in play, 0 otherwise.
fn rank(change: &FileChange, focus: Option<&Focus>) -> u8 {
    let (Some(session), Some(focus)) = (&change.session, focus) else {
        return 0;
    };
    if session.branch.is_some() && session.branch == focus.branch {
        2
    } else if session.files.iter().any(|f| focus.files.contains(f)) {
        1
    } else {
        0
    }
}
