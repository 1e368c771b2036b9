//! The lines a range adds under `.thehook/`, from `git diff --unified=0`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::process::git::git;

/// A run of lines the range's end has that its base has not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hunk {
    /// First and last line, 1-based, at the range's end.
    pub(super) first: usize,
    pub(super) last: usize,
    /// Whether it replaces lines of the base (a change, not an addition).
    pub(super) replaces: bool,
}

impl Hunk {
    pub(super) fn overlaps(&self, start: usize, end: usize) -> bool {
        start <= self.last && end >= self.first
    }
}

/// Project-relative path -> the hunks `head` adds to it since `base`.
/// Renamed files count as their new path; deleted files are left out.
pub(super) fn added_lines(
    root: &Path,
    base: &str,
    head: &str,
) -> Result<BTreeMap<String, Vec<Hunk>>> {
    let done = git(root)
        .args([
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "-M",
            "--relative",
        ])
        .args([base, head, "--", crate::project::THEHOOK_DIR])
        .output()
        .map_err(|source| Error::Io {
            action: "run git diff in",
            path: root.to_path_buf(),
            source,
        })?;
    if !done.status.success() {
        // Both ends were verified commits: what failed is git itself.
        return Err(Error::Usage {
            problem: format!("git diff {base} {head} failed"),
            source: None,
            fix: "run `git fsck` in the repository, then review the range again".into(),
        });
    }
    Ok(parse(&String::from_utf8_lossy(&done.stdout)))
}

/// The hunks of a unified diff with no context, by new path.
fn parse(diff: &str) -> BTreeMap<String, Vec<Hunk>> {
    let mut out: BTreeMap<String, Vec<Hunk>> = BTreeMap::new();
    let mut path: Option<String> = None;
    for line in diff.lines() {
        if let Some(new) = line.strip_prefix("+++ ") {
            path = new.strip_prefix("b/").map(str::to_string);
        } else if let (Some(p), Some(header)) = (&path, line.strip_prefix("@@ -")) {
            if let Some(hunk) = hunk(header) {
                out.entry(p.clone()).or_default().push(hunk);
            }
        }
    }
    out
}

/// `a[,b] +c[,d] @@ ...` -> lines c..c+d, replacing when b > 0.
fn hunk(header: &str) -> Option<Hunk> {
    let (old, rest) = header.split_once(" +")?;
    let new = rest.split_once(' ')?.0;
    let count = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((at, n)) => Some((at.parse().ok()?, n.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let ((_, removed), (first, added)) = (count(old)?, count(new)?);
    (added > 0).then(|| Hunk {
        first,
        last: first + added - 1,
        replaces: removed > 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_read_by_new_path_and_pure_removals_left_out() {
        let diff = "diff --git a/.thehook/knowledge/notes.md b/.thehook/knowledge/notes.md\n\
                    --- a/.thehook/knowledge/notes.md\n+++ b/.thehook/knowledge/notes.md\n\
                    @@ -3,0 +4,2 @@ heading\n+- one\n+- two\n@@ -9 +11 @@\n-old\n+new\n\
                    @@ -20,2 +21,0 @@\n-gone\n-gone\n\
                    diff --git a/.thehook/old.md b/.thehook/old.md\n--- a/.thehook/old.md\n+++ /dev/null\n\
                    @@ -1 +0,0 @@\n-x\n";
        let got = parse(diff);
        assert_eq!(got.len(), 1);
        let hunks = &got[".thehook/knowledge/notes.md"];
        assert_eq!(
            hunks,
            &[
                Hunk {
                    first: 4,
                    last: 5,
                    replaces: false
                },
                Hunk {
                    first: 11,
                    last: 11,
                    replaces: true
                },
            ]
        );
        assert!(hunks[0].overlaps(5, 7) && !hunks[0].overlaps(6, 9));
    }
}
