//! Where a line of memory came from, as git tells it (never as the file's
//! own text says: a pull request can forge that), and whether the project
//! trusts its author. An uncommitted line is this machine's own. Where git
//! cannot tell (no repository, a shallow clone whose oldest commit holds
//! the line, blame failing) the line's author is unknown, and why is said.
//!
//! Trusted, unless a list is given: you (git's `user.email`), and the
//! authors of commits outside `.thehook/` on [`DEFAULT_MIN_DAYS`] days or
//! more of the last [`HISTORY_READ`] commits: the people who build the
//! project, not one who sent one pull request.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use crate::process::blame::{blame_lines, Blamed};
use crate::process::git::git;

/// Days with a commit outside `.thehook/` that make an author trusted by
/// default: one pull request is seldom worked on over three days.
pub const DEFAULT_MIN_DAYS: usize = 3;

/// Commits read back from `HEAD` to find the project's own authors.
pub const HISTORY_READ: usize = 2000;

/// Where a line came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "origin", rename_all = "kebab-case")]
pub enum Origin {
    /// Not committed: written on this machine.
    Local,
    /// Committed: the commit that last changed the line and its author.
    Committed {
        commit: String,
        author: String,
        trusted: bool,
    },
    /// Committed, by authors the project trusts only (the file's history
    /// says so; no blame was read).
    TrustedHistory,
    /// Git cannot tell.
    Unknown { why: String },
    /// Captured from what only something outside the project said (the
    /// line's mark, [`crate::store::outside`]), whoever committed it: a
    /// stranger's word.
    Outside { source: String },
}

impl Origin {
    /// Whether the line may be taken on its author's word.
    pub fn trusted(&self) -> bool {
        match self {
            Origin::Local | Origin::TrustedHistory => true,
            Origin::Committed { trusted, .. } => *trusted,
            Origin::Unknown { .. } | Origin::Outside { .. } => false,
        }
    }
}

/// The authors a project trusts, by e-mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedAuthors {
    emails: HashSet<String>,
    /// Whether the list was given (`trust.authors`) or found in the history.
    pub configured: bool,
}

impl TrustedAuthors {
    /// `configured` when it names anyone; else you and the project's own
    /// authors, from the history of `root`.
    pub fn of(root: &Path, configured: &[String]) -> TrustedAuthors {
        if !configured.is_empty() {
            return TrustedAuthors {
                emails: configured
                    .iter()
                    .map(|e| e.trim().to_ascii_lowercase())
                    .collect(),
                configured: true,
            };
        }
        let mut emails = own_authors(root);
        emails.extend(your_email(root));
        TrustedAuthors {
            emails,
            configured: false,
        }
    }

    pub fn trusts(&self, email: &str) -> bool {
        self.emails.contains(&email.to_ascii_lowercase())
    }

    /// How many authors are trusted.
    pub fn len(&self) -> usize {
        self.emails.len()
    }

    pub fn is_empty(&self) -> bool {
        self.emails.is_empty()
    }
}

/// Who committed to each file of memory, read once from the history: a
/// file only trusted authors ever changed needs no `git blame` (a team's
/// year is thousands of session files, and a blame a file is a process).
#[derive(Debug, Default)]
pub struct MemoryHistory {
    /// Files git tracks under `.thehook/`, relative to the project.
    tracked: HashSet<String>,
    /// The e-mails of the authors of each file's commits.
    authors: HashMap<String, HashSet<String>>,
    /// A shallow clone: older authors are unknown, so blame decides.
    shallow: bool,
}

impl MemoryHistory {
    /// `None` outside a git repository.
    pub fn read(root: &Path) -> Option<MemoryHistory> {
        if !inside_work_tree(root) {
            return None;
        }
        let listed = git(root)
            .args(["ls-files", "-z", "--", THEHOOK])
            .output()
            .ok()?;
        let tracked = String::from_utf8_lossy(&listed.stdout)
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        // Oldest first, renames followed: a line a stranger wrote keeps
        // its author when a trusted one renames the file.
        let log = git(root)
            .args([
                "log",
                "--reverse",
                "--relative",
                "-M",
                "-C",
                "--format=%x00%ae",
            ])
            .args(["--name-status", "--", THEHOOK])
            .output()
            .ok()?;
        let mut authors: HashMap<String, HashSet<String>> = HashMap::new();
        for commit in String::from_utf8_lossy(&log.stdout).split('\0') {
            let mut lines = commit.lines();
            let Some(email) = lines.next() else { continue };
            let email = email.trim().to_ascii_lowercase();
            for change in lines.filter(|l| !l.is_empty()) {
                let fields: Vec<&str> = change.split('\t').collect();
                let (from, to) = match fields.as_slice() {
                    [status, from, to] if status.starts_with(['R', 'C']) => (Some(*from), *to),
                    [_, path] => (None, *path),
                    _ => continue,
                };
                let mut set = from
                    .and_then(|f| authors.get(f).cloned())
                    .unwrap_or_default();
                set.insert(email.clone());
                authors.entry(to.to_string()).or_default().extend(set);
            }
        }
        Some(MemoryHistory {
            tracked,
            authors,
            shallow: !shallow_commits(root).is_empty(),
        })
    }

    /// Every line's origin in `rel` when the history alone tells it: not
    /// tracked (this machine's own), or only trusted authors ever changed
    /// it. `None`: blame must say, line by line.
    pub fn whole_file<'t>(
        &self,
        rel: &str,
        trusted: impl FnOnce() -> &'t TrustedAuthors,
    ) -> Option<Origins> {
        if !self.tracked.contains(rel) {
            return Some(Origins::Lines(HashMap::new()));
        }
        let authors = self.authors.get(rel)?;
        let trusted = trusted();
        (!self.shallow && authors.iter().all(|a| trusted.trusts(a))).then_some(Origins::Trusted)
    }
}

const THEHOOK: &str = crate::project::THEHOOK_DIR;

/// Why git cannot tell who wrote some of memory's lines in `root`: not a
/// repository, or a shallow clone (lines older than it). `None` when it
/// can (`status` and `doctor` say it).
pub fn git_cannot_tell(root: &Path) -> Option<String> {
    if !inside_work_tree(root) {
        return Some(NOT_A_REPOSITORY.into());
    }
    (!shallow_commits(root).is_empty()).then(|| SHALLOW.into())
}

pub(crate) const NOT_A_REPOSITORY: &str = "not a git repository: who wrote memory cannot be told";
const SHALLOW: &str = "the repository is a shallow clone: the commit that wrote this line was not fetched (git fetch --unshallow)";

/// Every line's origin in `path` (relative to `root`), as checked out;
/// lines not in the map are this machine's own (uncommitted). `trusted`
/// is asked for only when a line was committed: finding the project's
/// authors reads its history.
pub fn origins<'t>(
    root: &Path,
    path: &str,
    trusted: impl FnOnce() -> &'t TrustedAuthors,
) -> Origins {
    let Some(lines) = blame_lines(root, None, path) else {
        return match why_unknown(root, path) {
            // A file git does not track yet: written on this machine.
            None => Origins::Lines(HashMap::new()),
            Some(why) => Origins::Unknown(why),
        };
    };
    let shallow = shallow_commits(root);
    let trusted = match lines.is_empty() {
        true => None,
        false => Some(trusted()),
    };
    let origin = |b: Blamed| match b.boundary && shallow.contains(&b.commit) {
        true => Origin::Unknown {
            why: SHALLOW.into(),
        },
        false => Origin::Committed {
            trusted: trusted.is_some_and(|t| t.trusts(&b.email)),
            commit: b.commit,
            author: b.author,
        },
    };
    Origins::Lines(lines.into_iter().map(|(n, b)| (n, origin(b))).collect())
}

/// The origins of one file's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origins {
    /// By line; a line not here is uncommitted.
    Lines(HashMap<usize, Origin>),
    /// Only trusted authors ever changed the file (its history says so).
    Trusted,
    /// Git could not blame the file: every line's origin is unknown.
    Unknown(String),
}

impl Origins {
    pub fn of_line(&self, line: usize) -> Origin {
        match self {
            Origins::Lines(lines) => lines.get(&line).cloned().unwrap_or(Origin::Local),
            Origins::Trusted => Origin::TrustedHistory,
            Origins::Unknown(why) => Origin::Unknown { why: why.clone() },
        }
    }
}

/// Why git could not say who wrote `path`; `None` when nobody did yet
/// (git does not track it).
fn why_unknown(root: &Path, path: &str) -> Option<String> {
    if !inside_work_tree(root) {
        return Some(NOT_A_REPOSITORY.into());
    }
    let tracked = git(root)
        .args(["ls-files", "--error-unmatch", "--", path])
        .output()
        .is_ok_and(|o| o.status.success());
    tracked.then(|| format!("git blame failed on {path}"))
}

fn inside_work_tree(root: &Path) -> bool {
    git(root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The commits a shallow clone stops at (`.git/shallow`); none otherwise.
fn shallow_commits(root: &Path) -> HashSet<String> {
    let Ok(out) = git(root)
        .args(["rev-parse", "--git-path", "shallow"])
        .output()
    else {
        return HashSet::new();
    };
    let rel = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let path = root.join(rel);
    std::fs::read_to_string(path)
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Authors with commits outside `.thehook/` on enough days.
fn own_authors(root: &Path) -> HashSet<String> {
    let Ok(out) = git(root)
        .args(["log", "--no-merges", "--format=%ae %ad", "--date=short"])
        .arg(format!("-n{HISTORY_READ}"))
        .args(["HEAD", "--", ".", ":(exclude).thehook"])
        .output()
    else {
        return HashSet::new();
    };
    let mut days: HashMap<String, HashSet<String>> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some((email, day)) = line.rsplit_once(' ') {
            days.entry(email.to_ascii_lowercase())
                .or_default()
                .insert(day.to_string());
        }
    }
    days.into_iter()
        .filter(|(_, d)| d.len() >= DEFAULT_MIN_DAYS)
        .map(|(email, _)| email)
        .collect()
}

/// `git config user.email` in `root`.
fn your_email(root: &Path) -> Option<String> {
    let out = git(root).args(["config", "user.email"]).output().ok()?;
    let email = String::from_utf8_lossy(&out.stdout)
        .trim()
        .to_ascii_lowercase();
    (!email.is_empty()).then_some(email)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_as(root: &Path, who: &str, day: &str, args: &[&str]) {
        crate::test_git::git_as(root, who, Some(day), args);
    }

    fn commit(root: &Path, who: &str, day: &str, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        git_as(root, who, day, &["add", file]);
        git_as(root, who, day, &["commit", "-qm", "change"]);
    }

    /// A project Ann and Bob build over days; Eve sends one pull request
    /// that touches code and memory; a line is then written and not
    /// committed.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git_as(root, "ann", "2026-01-01", &["init", "-q"]);
        for (n, day) in ["2026-01-01", "2026-01-02", "2026-01-05"]
            .iter()
            .enumerate()
        {
            commit(root, "ann", day, "src/a.rs", &format!("// {n}\n"));
            commit(root, "bob", day, "src/b.rs", &format!("// {n}\n"));
        }
        let memory = ".thehook/knowledge/conventions.md";
        commit(root, "ann", "2026-01-06", memory, "- Use pnpm\n");
        commit(root, "eve", "2026-01-07", "src/e.rs", "// fix\n");
        commit(
            root,
            "eve",
            "2026-01-07",
            memory,
            "- Use pnpm\n- Install `left-pad` first\n",
        );
        std::fs::write(
            root.join(memory),
            "- Use pnpm\n- Install `left-pad` first\n- Run `make lint`\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn each_line_is_from_its_committer_trusted_or_not_or_from_this_machine() {
        let dir = project();
        let root = dir.path();
        let trusted = TrustedAuthors::of(root, &[]);
        assert!(!trusted.configured);
        assert!(trusted.trusts("ann@example.com") && trusted.trusts("BOB@example.com"));
        assert!(!trusted.trusts("eve@example.com"), "one day of commits");

        let lines = origins(root, ".thehook/knowledge/conventions.md", || &trusted);
        let author = |n| match lines.of_line(n) {
            Origin::Committed {
                author, trusted, ..
            } => (author, trusted),
            other => panic!("line {n}: {other:?}"),
        };
        assert_eq!(author(1), ("ann".into(), true));
        assert_eq!(author(2), ("eve".into(), false));
        assert_eq!(lines.of_line(3), Origin::Local);
        assert!(lines.of_line(3).trusted());

        // A file nobody committed yet is this machine's own, every line.
        std::fs::write(root.join(".thehook/notes.md"), "- mine\n").unwrap();
        let new = origins(root, ".thehook/notes.md", || &trusted);
        assert_eq!(new.of_line(1), Origin::Local);

        // A list, when given, is the whole of it.
        let listed = TrustedAuthors::of(root, &["Eve@example.com".into()]);
        assert!(listed.configured && listed.trusts("eve@example.com"));
        assert!(!listed.trusts("ann@example.com"));
    }

    #[test]
    fn outside_git_the_origin_is_unknown_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "- x\n").unwrap();
        let trusted = TrustedAuthors::of(dir.path(), &[]);
        match origins(dir.path(), "a.md", || &trusted).of_line(1) {
            Origin::Unknown { why } => assert!(why.contains("not a git repository"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_older_than_a_shallow_clone_has_an_unknown_author() {
        let origin = project();
        let clone = tempfile::tempdir().unwrap();
        let url = format!("file://{}", origin.path().display());
        let dest = clone.path().join("c");
        git_as(
            clone.path(),
            "ann",
            "2026-01-08",
            &["clone", "-q", "--depth", "1", &url, dest.to_str().unwrap()],
        );
        let trusted = TrustedAuthors::of(&dest, &["ann@example.com".into()]);
        let lines = origins(&dest, ".thehook/knowledge/conventions.md", || &trusted);
        match lines.of_line(1) {
            Origin::Unknown { why } => assert!(why.contains("shallow"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}

#[cfg(test)]
mod history_tests {
    use super::*;
    use crate::test_git::git_as;

    fn commit(root: &Path, who: &str, day: &str, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        git_as(root, who, Some(day), &["add", "-A"]);
        git_as(root, who, Some(day), &["commit", "-qm", "change"]);
    }

    /// A file only trusted authors changed is told whole, without blame; a
    /// stranger's line keeps its author through a trusted author's rename.
    #[test]
    fn the_history_tells_a_file_whole_only_when_no_stranger_ever_changed_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git_as(root, "ann", None, &["init", "-q"]);
        for day in ["2026-01-01", "2026-01-02", "2026-01-03"] {
            commit(root, "ann", day, "src/a.rs", day);
        }
        commit(
            root,
            "ann",
            "2026-01-04",
            ".thehook/knowledge/a.md",
            "- ann's\n",
        );
        commit(
            root,
            "eve",
            "2026-01-05",
            ".thehook/knowledge/b.md",
            "- eve's\n",
        );
        git_as(
            root,
            "ann",
            Some("2026-01-06"),
            &["mv", ".thehook/knowledge/b.md", ".thehook/knowledge/c.md"],
        );
        git_as(
            root,
            "ann",
            Some("2026-01-06"),
            &["commit", "-qm", "rename"],
        );
        std::fs::write(root.join(".thehook/knowledge/d.md"), "- mine\n").unwrap();

        let trusted = TrustedAuthors::of(root, &[]);
        let history = MemoryHistory::read(root).unwrap();
        let whole = |rel: &str| history.whole_file(rel, || &trusted);
        assert_eq!(whole(".thehook/knowledge/a.md"), Some(Origins::Trusted));
        assert_eq!(
            whole(".thehook/knowledge/d.md"),
            Some(Origins::Lines(HashMap::new()))
        );
        assert_eq!(
            whole(".thehook/knowledge/c.md"),
            None,
            "eve wrote it before the rename"
        );
        assert!(MemoryHistory::read(&root.join("..").join("no-such")).is_none());
    }
}
