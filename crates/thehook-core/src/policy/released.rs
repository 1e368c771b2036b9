//! Items a person released in review: withheld by a safety rule
//! ([`crate::text::safety`]), given to agents after all.
//!
//! A release is this clone's own decision. It is kept where no commit,
//! pull or checkout can write: in git's own folder (`.git/thehook/
//! released.txt`, the common folder, so every worktree of the clone shares
//! it), and outside git in `.thehook/index/`. A list committed to the
//! repository releases nothing, or a pull request could approve its own
//! payload. An id covers the item's path and text: edit the text, and it
//! is judged again.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::error::{IoContext, Result};
use crate::project::{git_common_dir, Project};
use crate::store::write_atomic;

const FILE: &str = "released.txt";
const HEADER: &str = "# Items released by `thehook review release`: given to agents although a\n\
                      # safety rule withholds them. This clone's own; never committed.\n";

/// The released ids of one clone.
#[derive(Debug, Default)]
pub(crate) struct Released {
    ids: BTreeSet<String>,
}

impl Released {
    pub(crate) fn load(project: &Project) -> Released {
        let ids = std::fs::read_to_string(path(project))
            .map(|text| {
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Released { ids }
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Records the release of `id` (a no-op when it is there).
    pub(crate) fn add(project: &Project, id: &str) -> Result<()> {
        let mut released = Released::load(project);
        if !released.ids.insert(id.to_string()) {
            return Ok(());
        }
        let path = path(project);
        let folder = path.parent().expect("the list is in a folder");
        std::fs::create_dir_all(folder).at("cannot create folder", folder)?;
        let mut text = HEADER.to_string();
        for id in &released.ids {
            text.push_str(id);
            text.push('\n');
        }
        write_atomic(&path, text.as_bytes())
    }
}

/// Where the releases of `project`'s clone are kept: found without running
/// git (the hooks run no git command), in the clone's shared git folder even
/// when `.thehook/` sits below the work tree's root.
pub(crate) fn path(project: &Project) -> PathBuf {
    match git_common_dir(project.root()) {
        Some(git) => git.join("thehook").join(FILE),
        None => project.index_dir().join(FILE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_shares_its_clones_releases() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        let git = main.join(".git");
        std::fs::create_dir_all(git.join("worktrees/wt")).unwrap();
        std::fs::write(git.join("worktrees/wt/commondir"), "../..\n").unwrap();
        let wt = dir.path().join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", git.join("worktrees/wt").display()),
        )
        .unwrap();
        assert_eq!(path(&Project::at(&main)), git.join("thehook/released.txt"));
        Released::add(&Project::at(&wt), "abc123").unwrap();
        assert!(Released::load(&Project::at(&main)).contains("abc123"));
        // A project below the work tree's root keeps them in git's folder too.
        let nested = main.join("services/api");
        std::fs::create_dir_all(&nested).unwrap();
        assert!(Released::load(&Project::at(&nested)).contains("abc123"));
    }

    #[test]
    fn outside_git_releases_stay_in_the_machine_local_index_folder() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        assert_eq!(path(&project), project.index_dir().join(FILE));
        Released::add(&project, "def456").unwrap();
        assert!(Released::load(&project).contains("def456"));
        assert!(!Released::load(&project).contains("def45"));
    }
}
