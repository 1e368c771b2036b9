//! What a session was given already, so the prompt hook never gives an item
//! twice: one file per session in ignored state
//! (`.thehook/index/given/<session>.txt`), a citation (`path:line`) a line.
//! Session start records what its block cited; each prompt, what it added.
//! Records of sessions untouched for a week are removed as new ones come.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::capture::queue::file_stem;
use crate::error::{IoContext, Result};
use crate::project::Project;

/// A record untouched this long belongs to a session long over.
const KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// The record of one session.
pub(crate) struct Given {
    path: PathBuf,
}

impl Given {
    /// The record of `session_id` in `project`.
    pub(crate) fn of(project: &Project, session_id: &str) -> Given {
        Given {
            path: folder(project).join(format!("{}.txt", file_stem(session_id))),
        }
    }

    /// The citations given so far (none for a session never seen).
    pub(crate) fn load(&self) -> HashSet<String> {
        std::fs::read_to_string(&self.path)
            .map(|text| text.lines().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Adds `cited` to the record. Appends, so two hooks of one session
    /// writing at once both land.
    pub(crate) fn add(&self, cited: &[&str]) -> Result<()> {
        if cited.is_empty() {
            return Ok(());
        }
        let dir = self.path.parent().expect("the record has a folder");
        // A session's first record is the time to look for records long over
        // (not every prompt: the folder holds one file per session).
        let first = !self.path.exists();
        std::fs::create_dir_all(dir).at("cannot create", dir)?;
        let text: String = cited.iter().map(|c| format!("{c}\n")).collect();
        crate::append::append_whole(&self.path, text.as_bytes()).at("cannot write", &self.path)?;
        if first {
            prune(dir);
        }
        Ok(())
    }

    /// [`Given::add`] for a hook, which gives its context anyway: the record
    /// is the hook's own, not memory. What failed, for the hook's log line
    /// (empty when nothing did).
    pub(crate) fn record(&self, cited: &[&str]) -> String {
        match self.add(cited) {
            Ok(()) => String::new(),
            Err(e) => format!("could not record what was given: {e}; "),
        }
    }
}

fn folder(project: &Project) -> PathBuf {
    project.index_dir().join("given")
}

/// Removes the records of sessions long over.
fn prune(dir: &std::path::Path) {
    let now = SystemTime::now();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > KEPT_FOR));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_given_is_remembered_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let a = Given::of(&project, "session/a");
        assert!(a.load().is_empty());
        a.add(&[".thehook/sessions/x.md:7"]).unwrap();
        a.add(&[".thehook/knowledge/notes.md:3"]).unwrap();
        let b = Given::of(&project, "session-b");
        assert!(b.load().is_empty(), "another session was given nothing");
        assert_eq!(
            a.load(),
            HashSet::from([
                ".thehook/sessions/x.md:7".to_string(),
                ".thehook/knowledge/notes.md:3".to_string()
            ])
        );
        // The id never walks out of the folder.
        assert!(dir
            .path()
            .join(".thehook/index/given/session_a.txt")
            .is_file());
    }

    #[test]
    fn a_new_sessions_first_record_removes_those_untouched_for_a_week() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let (old, recent) = (Given::of(&project, "old"), Given::of(&project, "recent"));
        old.add(&["a.md:1"]).unwrap();
        recent.add(&["b.md:1"]).unwrap();
        let eight_days = SystemTime::now() - Duration::from_secs(8 * 24 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&old.path)
            .unwrap()
            .set_modified(eight_days)
            .unwrap();
        // Another prompt of a known session looks at nothing else.
        recent.add(&["c.md:1"]).unwrap();
        assert!(old.path.exists());
        Given::of(&project, "new").add(&["d.md:1"]).unwrap();
        assert!(!old.path.exists(), "a week old: removed");
        assert_eq!(recent.load().len(), 2, "recent records stay");
    }
}
