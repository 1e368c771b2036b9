//! Which files change together, read from the repository's own history: a
//! session that changed `a.go` is earlier work for one that starts on
//! `a_test.go` when most commits that changed one changed the other.
//!
//! Bounded and cached in `.thehook/index/` (machine-local, never
//! committed), so no hook reads git's history:
//! - `cochange-commits.json`: the files of the last [`MAX_COMMITS`] commits
//!   and the commit they were read at, brought up to date from there (only
//!   the new commits are read) by capture and by session start's background
//!   half ([`update`]); a checkout that is not a descendant reads them again;
//! - `cochange.json`: each file's [`MAX_NEIGHBOURS`] neighbours and how
//!   strongly, worked out from them, the one file the hooks read
//!   ([`Neighbours::load`]).
//!
//! A commit that changes more than [`MAX_FILES_PER_COMMIT`] files (a
//! rename of a folder, a formatting pass) says nothing about which files
//! belong together and is left out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, Result};
use crate::memory::store::write_atomic;
use crate::process::git::git;
use crate::project::Project;

/// How many of the latest commits are read.
pub const MAX_COMMITS: usize = 2000;
/// A commit changing more files than this is left out.
pub const MAX_FILES_PER_COMMIT: usize = 12;
/// Two files are neighbours when at least this many commits changed both...
pub const MIN_TOGETHER: u32 = 2;
/// ...and at least this share of the commits that changed the first.
pub const MIN_SHARE: f32 = 0.3;
/// Neighbours kept per file, the strongest first.
pub const MAX_NEIGHBOURS: usize = 4;

const COMMITS_FILE: &str = "cochange-commits.json";
const NEIGHBOURS_FILE: &str = "cochange.json";

/// The commits read so far: newest first, each with the files it changed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Commits {
    /// The commit they were read at.
    head: String,
    commits: Vec<Vec<String>>,
}

/// A file's neighbour and the share of the file's commits that changed it too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    pub file: String,
    pub share: f32,
}

/// Each file's neighbours, as the hooks read them.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Neighbours {
    /// The commit the history was read at.
    pub head: String,
    pub of: HashMap<String, Vec<Neighbour>>,
}

impl Neighbours {
    /// What the last [`update`] worked out; empty when none ran or its file
    /// cannot be read (the hooks then match files as before).
    pub fn load(project: &Project) -> Neighbours {
        std::fs::read(project.index_dir().join(NEIGHBOURS_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// The neighbours of `file`, strongest first.
    pub fn of(&self, file: &str) -> &[Neighbour] {
        self.of.get(file).map_or(&[], Vec::as_slice)
    }
}

/// What [`update`] did, for a log line.
#[derive(Debug, PartialEq, Eq)]
pub enum Updated {
    /// HEAD has not moved since the last update.
    Fresh,
    /// The commits since the last update were read (how many).
    Added(usize),
    /// The history was read again from HEAD (how many commits).
    Read(usize),
    /// Not a git repository, or one without a commit.
    NoHistory,
}

/// Brings the cached history up to HEAD, reading only what is new when
/// HEAD descends from the last commit read, and works out the neighbours
/// again when it moved.
pub fn update(project: &Project) -> Result<Updated> {
    let root = project.root();
    let Some(head) = rev_parse_head(root) else {
        return Ok(Updated::NoHistory);
    };
    let commits_path = project.index_dir().join(COMMITS_FILE);
    let mut kept: Commits = std::fs::read(&commits_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    if kept.head == head && project.index_dir().join(NEIGHBOURS_FILE).is_file() {
        return Ok(Updated::Fresh);
    }
    let descends = !kept.head.is_empty() && is_ancestor(root, &kept.head, &head);
    let updated = if descends {
        let new = read_commits(root, Some(&kept.head))?;
        let n = new.len();
        kept.commits.splice(0..0, new);
        Updated::Added(n)
    } else {
        kept.commits = read_commits(root, None)?;
        Updated::Read(kept.commits.len())
    };
    kept.commits.truncate(MAX_COMMITS);
    kept.head = head.clone();
    let neighbours = Neighbours {
        of: neighbours(&kept.commits),
        head,
    };
    write_json(&commits_path, &kept)?;
    write_json(&project.index_dir().join(NEIGHBOURS_FILE), &neighbours)?;
    Ok(updated)
}

/// Each file's neighbours in `commits` (each the files one commit changed).
fn neighbours(commits: &[Vec<String>]) -> HashMap<String, Vec<Neighbour>> {
    let mut alone: HashMap<&str, u32> = HashMap::new();
    let mut together: HashMap<(&str, &str), u32> = HashMap::new();
    for files in commits.iter().filter(|f| f.len() <= MAX_FILES_PER_COMMIT) {
        for (i, a) in files.iter().enumerate() {
            *alone.entry(a).or_default() += 1;
            for b in &files[i + 1..] {
                *together.entry((a, b)).or_default() += 1;
                *together.entry((b, a)).or_default() += 1;
            }
        }
    }
    let mut of: HashMap<String, Vec<(u32, Neighbour)>> = HashMap::new();
    for ((a, b), n) in together {
        let share = n as f32 / alone[a] as f32;
        if n >= MIN_TOGETHER && share >= MIN_SHARE {
            let neighbour = Neighbour {
                file: b.to_string(),
                share,
            };
            of.entry(a.to_string()).or_default().push((n, neighbour));
        }
    }
    of.into_iter()
        .map(|(file, mut list)| {
            // Strongest first; of equals, the more commits, then by name, so
            // the same history always gives the same file.
            list.sort_by(|(n, x), (m, y)| {
                y.share
                    .total_cmp(&x.share)
                    .then(m.cmp(n))
                    .then(x.file.cmp(&y.file))
            });
            list.truncate(MAX_NEIGHBOURS);
            (file, list.into_iter().map(|(_, n)| n).collect())
        })
        .collect()
}

fn rev_parse_head(root: &Path) -> Option<String> {
    let out = git(root)
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .output()
        .ok()?;
    let head = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !head.is_empty()).then_some(head)
}

fn is_ancestor(root: &Path, old: &str, new: &str) -> bool {
    git(root)
        .args(["merge-base", "--is-ancestor", old, new])
        .status()
        .is_ok_and(|s| s.success())
}

/// The files of the commits after `since` (all, when `None`) up to HEAD,
/// newest first, at most [`MAX_COMMITS`]; merges and memory's own files
/// left out.
fn read_commits(root: &Path, since: Option<&str>) -> Result<Vec<Vec<String>>> {
    let mut command = git(root);
    command
        .args(["log", "--no-merges", "--name-only", "--format=%x00"])
        .arg(format!("-n{MAX_COMMITS}"));
    match since {
        Some(old) => command.arg(format!("{old}..HEAD")),
        None => command.arg("HEAD"),
    };
    command.args(["--", ":(top)", ":(exclude).thehook"]);
    let out = command.output().at(
        "cannot run git log for the files that change together in",
        root,
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .split('\0')
        .map(|commit| {
            commit
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|files| !files.is_empty())
        .collect())
}

fn write_json(path: &PathBuf, value: &impl Serialize) -> Result<()> {
    write_atomic(path, &serde_json::to_vec(value).expect("serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git as run;

    fn commit(root: &Path, files: &[&str], message: &str) {
        for f in files {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let before = std::fs::read_to_string(&path).unwrap_or_default();
            std::fs::write(&path, format!("{before}{message}\n")).unwrap();
        }
        run(root, &["add", "-A"]);
        run(root, &["commit", "-q", "-m", message]);
    }

    #[test]
    fn files_changed_together_are_neighbours_and_new_commits_are_read_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q", "-b", "main"]);
        // As init leaves it: the index is this machine's own.
        std::fs::write(root.join(".gitignore"), ".thehook/index/\n").unwrap();
        let project = Project::at(root);
        commit(root, &["a.go", "a_test.go"], "one");
        commit(root, &["a.go", "a_test.go", "b.go"], "two");
        commit(root, &["c.go"], "three");
        // Memory's own files are never a neighbour.
        commit(root, &["a.go", ".thehook/sessions/x.md"], "four");
        assert_eq!(update(&project).unwrap(), Updated::Read(4));
        let n = Neighbours::load(&project);
        // a_test.go came with a.go in 2 of a.go's 3 commits; b.go in only 1.
        assert_eq!(
            n.of("a.go"),
            [Neighbour {
                file: "a_test.go".into(),
                share: 2.0 / 3.0
            }]
        );
        assert_eq!(n.of("a_test.go")[0].file, "a.go");
        assert!(n.of("c.go").is_empty());
        assert_eq!(update(&project).unwrap(), Updated::Fresh);
        // A commit on top: only it is read, and it counts.
        commit(root, &["c.go", "b.go"], "five");
        commit(root, &["c.go", "b.go"], "six");
        assert_eq!(update(&project).unwrap(), Updated::Added(2));
        assert_eq!(Neighbours::load(&project).of("b.go")[0].file, "c.go");
        // A checkout elsewhere (not a descendant): the history is read again.
        run(root, &["checkout", "-q", "-b", "other", "HEAD~3"]);
        assert_eq!(update(&project).unwrap(), Updated::Read(3));
        assert!(Neighbours::load(&project).of("b.go").is_empty());
    }

    #[test]
    fn a_commit_of_many_files_says_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q", "-b", "main"]);
        let many: Vec<String> = (0..=MAX_FILES_PER_COMMIT)
            .map(|i| format!("f{i}.rs"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        commit(root, &many, "format everything");
        commit(root, &many, "format everything again");
        let project = Project::at(root);
        update(&project).unwrap();
        assert!(Neighbours::load(&project).of.is_empty());
    }

    #[test]
    fn outside_git_there_is_no_history() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            update(&Project::at(dir.path())).unwrap(),
            Updated::NoHistory
        );
    }
}
