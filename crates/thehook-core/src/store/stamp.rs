//! A cheap answer to "has any markdown changed since the index last matched
//! it?" for the hooks and recall, which ask on every call: a stat of each folder the
//! last listing walked and of each knowledge file, not of every session file
//! (7,300 of them at a team's year) nor a read of every file record.
//!
//! A folder's mtime moves when a file in it is added, removed or renamed:
//! what git does on checkout and pull (it writes a new file, never over the
//! old one) and what thehook's own writes do (a temporary file renamed into
//! place). A session file edited in place is the one change this misses:
//! every answer stats the files it cites before it is given
//! (`Memory::recheck`), and the session start's detached half and every
//! command but recall list every file. Knowledge files, which people edit in place,
//! are stat'ed one by one.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::project::Project;

/// A file or folder whose mtime is less than this before the listing is not
/// trusted: a change within the filesystem's timestamp granularity would not
/// move it (git's "racy" entries).
pub(crate) const RACY_WINDOW_NS: i128 = 2_000_000_000;

/// The mtime recorded for a folder that did not exist.
const MISSING: i128 = -1;

/// What the listing saw: `(project-relative path, size, mtime_ns)` of each
/// folder walked (size 0) and each knowledge file.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    entries: Vec<(String, u64, i128)>,
}

/// Without the mtimes, which differ from run to run (the index dump).
impl std::fmt::Debug for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stamp({} entries)", self.entries.len())
    }
}

impl Stamp {
    /// The stamp of one listing, or `None` when something in it is too
    /// recent to trust (the next call lists every file again).
    pub(crate) fn new(entries: Vec<(String, u64, i128)>, now_ns: i128) -> Option<Stamp> {
        let racy = entries
            .iter()
            .any(|(_, _, mtime)| *mtime != MISSING && now_ns - mtime < RACY_WINDOW_NS);
        (!racy).then_some(Stamp { entries })
    }

    /// Whether every folder and knowledge file is as the listing saw it.
    pub(crate) fn holds(&self, project: &Project) -> bool {
        self.entries
            .iter()
            .all(|(rel, size, mtime)| stat(&project.root().join(rel)) == (*size, *mtime))
    }
}

/// A folder's `(0, mtime)` or a file's `(size, mtime)`; `(0, MISSING)` when
/// it is not there.
pub(crate) fn stat(path: &Path) -> (u64, i128) {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => (0, super::mtime_ns(&meta)),
        Ok(meta) => (meta.len(), super::mtime_ns(&meta)),
        Err(_) => (0, MISSING),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(project: &Project, rels: &[&str]) -> Stamp {
        let entries = rels
            .iter()
            .map(|rel| {
                let (size, mtime) = stat(&project.root().join(rel));
                (rel.to_string(), size, mtime)
            })
            .collect();
        // As if listed long after every change.
        Stamp::new(entries, i128::MAX / 2).expect("nothing racy")
    }

    #[test]
    fn a_new_session_file_or_an_edited_knowledge_file_breaks_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(dir.path().join(".thehook/sessions")).unwrap();
        std::fs::create_dir_all(dir.path().join(".thehook/knowledge")).unwrap();
        let notes = dir.path().join(".thehook/knowledge/notes.md");
        std::fs::write(&notes, "- one").unwrap();
        let rels = [
            ".thehook/sessions",
            ".thehook/knowledge",
            ".thehook/knowledge/notes.md",
        ];
        let set_mtime = |path: &Path, secs: u64| {
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            std::fs::File::open(path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        for rel in rels {
            set_mtime(&dir.path().join(rel), 1_000_000);
        }
        let stamp = listed(&project, &rels);
        assert!(stamp.holds(&project));

        // A session arrives (as a pull or a capture writes it): its folder moves.
        std::fs::write(dir.path().join(".thehook/sessions/a.md"), "- a").unwrap();
        assert!(!stamp.holds(&project));
        let stamp = listed(&project, &rels);
        assert!(stamp.holds(&project));

        // A person edits a knowledge file in place, same size, other mtime.
        std::fs::write(&notes, "- two").unwrap();
        set_mtime(&notes, 2_000_000);
        assert!(!stamp.holds(&project));
    }

    #[test]
    fn a_listing_with_something_just_changed_gives_no_stamp() {
        let now = 10 * RACY_WINDOW_NS;
        let entries = |mtime| vec![(".thehook/sessions".to_string(), 0, mtime)];
        assert!(Stamp::new(entries(now - RACY_WINDOW_NS / 2), now).is_none());
        assert!(Stamp::new(entries(now - RACY_WINDOW_NS), now).is_some());
        assert!(Stamp::new(entries(MISSING), now).is_some());
    }
}
