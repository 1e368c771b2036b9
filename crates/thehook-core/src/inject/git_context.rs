//! What a session is likely about, read from git: the branch, the files
//! changed recently or not yet committed, the latest commit subjects, and
//! what the branch itself changed against its base (its commits' subjects
//! and the functions its diff touches). The session-start hook searches
//! memory with it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::inject::cache::SideFile;
use crate::process::git::git;
use crate::project::{git_common_dir, git_dir, Project};

/// How many recent commits speak for the context.
const RECENT_COMMITS: usize = 8;
/// A cap on the query, so a huge diff does not make a huge search.
const MAX_WORDS: usize = 120;
/// At most this many names of what the branch's diff touches join the query.
const MAX_BRANCH_SYMBOLS: usize = 12;
/// The pathspec of the whole repository but this project's `.thehook/`
/// (`:(top)`: a project in a subfolder still sees every commit, as before).
const NOT_MEMORY: [&str; 3] = ["--", ":(top)", ":(exclude).thehook"];

/// The project's context: the branch, the files in play and the latest
/// commit subjects. Session start ranks earlier sessions by it and searches
/// memory with it as one query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GitContext {
    pub branch: Option<String>,
    /// Every file in play, uncommitted first, each once (the query's).
    pub changed_files: Vec<String>,
    /// Files with changes not yet committed.
    pub uncommitted: Vec<String>,
    /// Files changed by the branch's own commits since it left its base
    /// (`main` or `master`), when it is another branch.
    pub branch_files: Vec<String>,
    /// Files of the latest commits.
    pub recent_files: Vec<String>,
    pub commit_subjects: Vec<String>,
    // No `serde(default)` on these two: a context kept by a version
    // without them is read as a miss and read again from git.
    /// Subjects of the branch's own commits since its base.
    pub branch_subjects: Vec<String>,
    /// The functions and types the branch's diff against its base touches
    /// (the names git puts on its hunks), the most touched first.
    pub branch_symbols: Vec<String>,
}

/// The last context read, kept for the state of git it was read in
/// ([`git_state`]).
const GIT_CONTEXT: SideFile<String, GitContext> = SideFile::new("git-context.json");

/// Branches other branches leave from.
pub(crate) const BASES: [&str; 2] = ["main", "master"];
/// At most this many of a branch's own commits are read.
const BRANCH_COMMITS: usize = 50;

impl GitContext {
    /// [`GitContext::of`], or what it gave last time when git's state is the
    /// same: HEAD, the branch's ref, the bases' refs and the index file,
    /// each by size and mtime ([`git_state`]). No git process starts then.
    /// A change git's index does not record yet (an edit not staged) shows
    /// from the next commit, `git add` or checkout on.
    pub(crate) fn cached(project: &Project) -> GitContext {
        let root = project.root();
        let Some(state) = git_state(root) else {
            return GitContext::of(root);
        };
        if let Some(context) = GIT_CONTEXT.read(project, &state) {
            return context;
        }
        let context = GitContext::of(root);
        // A cache that cannot be written costs the next run its git reads.
        let _ = GIT_CONTEXT.write(project, &state, &context);
        context
    }

    /// Reads the context of the git work tree at `root`. Never fails: what
    /// git cannot tell is left out.
    pub(crate) fn of(root: &Path) -> GitContext {
        // The git commands run at once; the branch is read from HEAD directly.
        // Memory's own files are not what a session is about: a pull of
        // teammates' sessions would otherwise fill the query with their
        // file names and push the commit subjects out.
        let branch = branch(root);
        let base = branch
            .as_deref()
            .filter(|b| !BASES.contains(b))
            .and_then(|_| BASES.iter().find(|b| has_branch(root, b)));
        let log = git(root)
            .args(["log", "--no-merges", "--name-only", "--format=%x00%s"])
            .arg(format!("-n{RECENT_COMMITS}"))
            .args(NOT_MEMORY)
            .spawn();
        let status = git(root)
            .args(["status", "--porcelain", "--untracked-files=no"])
            .args(NOT_MEMORY)
            .spawn();
        let own = base.map(|base| {
            git(root)
                .args(["log", "--no-merges", "--name-only", "--format=%x00%s"])
                .arg(format!("-n{BRANCH_COMMITS}"))
                .arg(format!("{base}..HEAD"))
                .args(NOT_MEMORY)
                .spawn()
        });
        // Hunk headers only (`-U0`): the name git gives each hunk is the
        // function or type around it.
        let diff = base.map(|base| {
            git(root)
                .args(["diff", "-U0", "--no-color", "--no-ext-diff"])
                .arg(format!("{base}...HEAD"))
                .args(NOT_MEMORY)
                .spawn()
        });
        let mut context = GitContext {
            branch,
            ..GitContext::default()
        };
        if let Ok(out) = status.and_then(|c| c.wait_with_output()) {
            let text = String::from_utf8_lossy(&out.stdout);
            for line in text.lines() {
                if let Some(path) = line.get(3..) {
                    // Renames: "old -> new".
                    let path = path.rsplit(" -> ").next().unwrap_or(path);
                    push_unique(&mut context.uncommitted, path.trim_matches('"'));
                }
            }
        }
        if let Some(Ok(out)) = own.map(|c| c.and_then(|c| c.wait_with_output())) {
            let (files, subjects) = commits(&String::from_utf8_lossy(&out.stdout));
            context.branch_files = files;
            context.branch_subjects = subjects;
        }
        if let Some(Ok(out)) = diff.map(|c| c.and_then(|c| c.wait_with_output())) {
            context.branch_symbols = hunk_names(&String::from_utf8_lossy(&out.stdout));
        }
        if let Ok(out) = log.and_then(|c| c.wait_with_output()) {
            let (files, subjects) = commits(&String::from_utf8_lossy(&out.stdout));
            context.recent_files = files;
            context.commit_subjects = subjects;
        }
        for file in context
            .uncommitted
            .iter()
            .chain(&context.branch_files)
            .chain(&context.recent_files)
        {
            push_unique(&mut context.changed_files, file);
        }
        context
    }

    /// The search query: branch words, the names the branch's diff
    /// touches, file names, then the branch's commit subjects and the
    /// latest ones.
    pub(crate) fn query(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        if let Some(b) = &self.branch {
            words.extend(split_name(b));
        }
        words.extend(self.branch_symbols.iter().cloned());
        for f in self.changed_files.iter().take(30) {
            words.extend(split_name(f));
        }
        let mut subjects: Vec<&String> = Vec::new();
        for s in self.branch_subjects.iter().chain(&self.commit_subjects) {
            if !subjects.contains(&s) {
                subjects.push(s);
            }
        }
        for s in subjects {
            words.extend(s.split_whitespace().map(str::to_string));
        }
        words.truncate(MAX_WORDS);
        words.join(" ")
    }
}

/// The files and subjects of `git log --name-only --format=%x00%s` output.
fn commits(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut files, mut subjects) = (Vec::new(), Vec::new());
    for commit in text.split('\0').filter(|c| !c.trim().is_empty()) {
        let mut lines = commit.lines();
        if let Some(subject) = lines.next().filter(|s| !s.trim().is_empty()) {
            subjects.push(subject.trim().to_string());
        }
        for file in lines.filter(|l| !l.trim().is_empty()) {
            push_unique(&mut files, file.trim());
        }
    }
    (files, subjects)
}

/// The names git gives the hunks of a `-U0` diff (`@@ -1 +1 @@ func
/// (s *Server) Rewind(ctx ...) {` → `Rewind`): the word before the first
/// `(`, or else the last word, most hunks first, at most
/// [`MAX_BRANCH_SYMBOLS`].
fn hunk_names(diff: &str) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for line in diff.lines().filter(|l| l.starts_with("@@ ")) {
        let Some((_, name)) = line[3..].split_once(" @@") else {
            continue;
        };
        let before_call = name.split('(').next().unwrap_or_default();
        // `func (s *Server) Rewind(`: the receiver comes before the name.
        let head = match name.find(") ") {
            Some(at) if before_call.trim_end().ends_with("func") => &name[at + 2..],
            _ => name,
        };
        let head = head.split('(').next().unwrap_or_default();
        let word = head
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .rfind(|w| w.len() > 2 && w.chars().any(char::is_alphabetic));
        if let Some(word) = word {
            match counts.iter_mut().find(|(w, _)| w == word) {
                Some((_, n)) => *n += 1,
                None => counts.push((word.to_string(), 1)),
            }
        }
    }
    // Most touched first; of equals, the first met.
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts
        .into_iter()
        .take(MAX_BRANCH_SYMBOLS)
        .map(|(w, _)| w)
        .collect()
}

/// Whether the repository has a local branch `name` (a loose ref, or one
/// in `packed-refs`), read without starting git.
fn has_branch(root: &Path, name: &str) -> bool {
    // In a linked worktree, refs live in the main repository's folder.
    let Some(common) = git_common_dir(root) else {
        return false;
    };
    common.join("refs/heads").join(name).is_file()
        || std::fs::read_to_string(common.join("packed-refs")).is_ok_and(|p| {
            p.lines()
                .any(|l| l.ends_with(&format!(" refs/heads/{name}")))
        })
}

/// The checked-out branch, read from `.git/HEAD` (a `.git` file points to
/// the real folder in worktrees and submodules).
fn branch(root: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir(root)?.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// What the context depends on, as one string: HEAD's text, and the size
/// and mtime of the index file, of the branch's ref, of the bases' refs
/// and of `packed-refs`. `None` outside git.
fn git_state(root: &Path) -> Option<String> {
    let git = git_dir(root)?;
    let common = git_common_dir(root)?;
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let mut files: Vec<PathBuf> = vec![git.join("index"), common.join("packed-refs")];
    if let Some(reference) = head.trim().strip_prefix("ref: ") {
        files.push(common.join(reference));
    }
    files.extend(BASES.iter().map(|b| common.join("refs/heads").join(b)));
    let mut state = head.trim().to_string();
    for file in files {
        let stamp = std::fs::metadata(&file).ok().map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            (m.len(), mtime.map_or(0, |d| d.as_nanos()))
        });
        state.push_str(&format!("\n{stamp:?}"));
    }
    Some(state)
}

/// `src/auth/jwt_refresh.rs` → `src auth jwt refresh rs`.
fn split_name(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_string)
        .collect()
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git as run;

    #[test]
    fn reads_branch_files_and_subjects() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q", "-b", "feat/jwt-refresh"]);
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/auth.rs"), "fn a() {}").unwrap();
        run(root, &["add", "."]);
        run(
            root,
            &["commit", "-q", "-m", "Rotate refresh tokens on use"],
        );
        // A pull of teammates' memory says nothing about this session.
        std::fs::create_dir_all(root.join(".thehook/sessions")).unwrap();
        std::fs::write(
            root.join(".thehook/sessions/2026-01-02-0900-cache.md"),
            "- a",
        )
        .unwrap();
        run(root, &["add", "."]);
        run(root, &["commit", "-q", "-m", "Memory from the team"]);
        std::fs::write(
            root.join(".thehook/sessions/2026-01-02-0900-cache.md"),
            "- b",
        )
        .unwrap();
        std::fs::write(root.join("src/auth.rs"), "fn b() {}").unwrap();
        let c = GitContext::of(root);
        assert_eq!(c.branch.as_deref(), Some("feat/jwt-refresh"));
        assert_eq!(c.changed_files, ["src/auth.rs"]);
        assert_eq!(c.commit_subjects, ["Rotate refresh tokens on use"]);
        assert_eq!(
            c.query(),
            "feat jwt refresh src auth rs Rotate refresh tokens on use"
        );
    }

    #[test]
    fn the_cached_context_is_read_again_once_git_moves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let project = Project::at(root);
        run(root, &["init", "-q", "-b", "feat/cache"]);
        std::fs::write(root.join("a.rs"), "fn a() {}").unwrap();
        run(root, &["add", "."]);
        run(root, &["commit", "-q", "-m", "First"]);
        let first = GitContext::cached(&project);
        assert_eq!(first.commit_subjects, ["First"]);
        // The cache answers while git's state stands: planted, it is what comes back.
        let planted = GitContext {
            commit_subjects: vec!["planted".into()],
            ..first.clone()
        };
        let state = git_state(root).unwrap();
        GIT_CONTEXT.write(&project, &state, &planted).unwrap();
        assert_eq!(GitContext::cached(&project), planted);
        // A commit moves the branch's ref and the index: git is read again.
        std::fs::write(root.join("b.rs"), "fn b() {}").unwrap();
        run(root, &["add", "."]);
        run(root, &["commit", "-q", "-m", "Second"]);
        assert_eq!(
            GitContext::cached(&project).commit_subjects,
            ["Second", "First"]
        );
    }

    #[test]
    fn the_branch_says_what_it_changed_against_its_base() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q", "-b", "main"]);
        let go = "package cmd\n\nfunc (s *Server) Rewind(n int) error {\n\treturn nil\n}\n\nfunc Other() {\n}\n";
        std::fs::write(root.join("rewind.go"), go).unwrap();
        run(root, &["add", "."]);
        run(root, &["commit", "-q", "-m", "Start"]);
        run(root, &["checkout", "-q", "-b", "feat/rewind"]);
        std::fs::write(
            root.join("rewind.go"),
            go.replace("return nil", "return s.undo(n)"),
        )
        .unwrap();
        run(root, &["commit", "-q", "-am", "Undo on rewind"]);
        let c = GitContext::of(root);
        assert_eq!(c.branch_files, ["rewind.go"]);
        assert_eq!(c.branch_subjects, ["Undo on rewind"]);
        assert_eq!(c.branch_symbols, ["Rewind"]);
        assert!(
            c.query()
                .starts_with("feat rewind Rewind rewind go Undo on rewind"),
            "{}",
            c.query()
        );
    }

    #[test]
    fn hunk_names_are_the_functions_most_touched_first() {
        let diff = "@@ -1 +1 @@ fn parse(input: &str) -> Item {\n+x\n@@ -9 +9 @@ impl Parser {\n@@ -20 +20 @@ fn parse(input: &str) -> Item {\n@@ -30 +30 @@\n";
        assert_eq!(hunk_names(diff), ["parse", "Parser"]);
    }

    #[test]
    fn outside_git_the_context_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(GitContext::of(dir.path()).query(), "");
    }
}
