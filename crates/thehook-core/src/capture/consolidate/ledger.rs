//! `.thehook/consolidated.txt`: which sessions consolidation has merged into
//! `knowledge/`, one session id per line, sorted.
//!
//! The state lives in its own committed file, not in the session files:
//! teammates who consolidate in parallel each add lines, and git merges the
//! file by union (`.thehook/.gitattributes`), so the merge never conflicts and
//! the merged ledger names every session either side merged. A session file
//! written before the ledger existed still counts as merged when its front
//! matter says `consolidated: true`.

use std::collections::BTreeSet;

use crate::error::Result;
use crate::memory::store::{write_atomic, SessionFile};
use crate::project::Project;

/// The ledger's file name, in `.thehook/`.
pub const LEDGER: &str = "consolidated.txt";

const HEADER: &str = "# Sessions merged into knowledge/ by `thehook consolidate`, one id a line.\n\
# git merges this file by union (see .gitattributes); edit it only to redo a session.\n";

/// The session ids the ledger holds (an unreadable or missing ledger holds none).
pub fn read(project: &Project) -> BTreeSet<String> {
    std::fs::read_to_string(project.dir().join(LEDGER))
        .map(|text| parse(&text))
        .unwrap_or_default()
}

fn parse(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The key a session is recorded under: its id, or for a hand-written file
/// without one, its file name.
pub fn key(session: &SessionFile) -> String {
    session.front_matter.session_id.clone().unwrap_or_else(|| {
        session
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

/// Whether the session waits for consolidation.
pub fn is_pending(session: &SessionFile, merged: &BTreeSet<String>) -> bool {
    session.front_matter.consolidated != Some(true) && !merged.contains(&key(session))
}

/// The ledger's text with `added` recorded: sorted and deduplicated, so two
/// clones that merged the same session write the same line.
pub fn with_added(project: &Project, added: impl IntoIterator<Item = String>) -> String {
    let mut ids = read(project);
    ids.extend(added);
    render(ids)
}

/// Takes `key` out of the ledger, so that a session captured again (a
/// resumed session) is consolidated again with what it gained. Git merges
/// the removal of a line cleanly unless the other side changed that line.
pub fn reopen(project: &Project, key: &str) -> Result<()> {
    let mut ids = read(project);
    if !ids.remove(key) {
        return Ok(());
    }
    write_atomic(&project.dir().join(LEDGER), render(ids).as_bytes())
}

fn render(ids: BTreeSet<String>) -> String {
    let mut text = HEADER.to_string();
    for id in ids {
        text.push_str(&id);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_union_merged_ledger_reads_as_both_sides() {
        // What git's union merge makes of two clones' additions: both
        // blocks, the header twice at worst, lines out of order.
        let merged = format!("{HEADER}a-1\nb-2\n{HEADER}a-1\nc-3\n\n");
        let ids: Vec<String> = parse(&merged).into_iter().collect();
        assert_eq!(ids, ["a-1", "b-2", "c-3"]);
    }
}
