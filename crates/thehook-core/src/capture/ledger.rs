//! `.thehook/consolidated.txt`: which sessions consolidation has merged into
//! `knowledge/`, one session id a line.
//!
//! The state lives in its own committed list, not in the session files:
//! teammates who consolidate in parallel each add lines, and git merges the
//! list by union, so the merged ledger names every session either side
//! merged and the next consolidation has nothing to redo. A session file
//! written before the ledger existed still counts as merged when its front
//! matter says `consolidated: true`.

use std::collections::BTreeSet;

use crate::store::id_list::IdList;
use crate::store::SessionFile;

pub(crate) const LEDGER: IdList = IdList {
    file: "consolidated.txt",
    header: "# Sessions merged into knowledge/ by `thehook consolidate`, one id a line.\n\
             # git merges this file by union (see .gitattributes); delete a line to merge that session again.\n",
};

/// The key a session is recorded under: its id, or for a hand-written file
/// without one, its file name.
pub(crate) fn key(session: &SessionFile) -> String {
    session.front_matter.session_id.clone().unwrap_or_else(|| {
        session
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

/// Whether the session waits for consolidation.
pub(crate) fn is_pending(session: &SessionFile, merged: &BTreeSet<String>) -> bool {
    session.front_matter.consolidated != Some(true) && !merged.contains(&key(session))
}
