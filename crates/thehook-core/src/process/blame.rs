//! `git blame` read one way for everything that asks who wrote a line of
//! memory: the review of what is withheld, the review of a pull request,
//! the page, and the trust in a line's author (`policy/trust.rs`).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::git::git;

/// Who last changed a line: the commit and its author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blamed {
    pub commit: String,
    pub author: String,
    /// The author's e-mail, without its angle brackets, lower-cased.
    #[serde(skip)]
    pub email: String,
    /// Git marks the commit a boundary: a root commit, or in a shallow
    /// clone the oldest fetched, where lines older than the clone land.
    #[serde(skip)]
    pub boundary: bool,
}

/// `line -> commit and author` of one file at `rev` (as checked out when
/// `None`), from `git blame --line-porcelain`; lines git does not know
/// (uncommitted, outside git) are left out.
pub(crate) fn blame_at(root: &Path, rev: Option<&str>, path: &str) -> HashMap<usize, Blamed> {
    blame_lines(root, rev, path).unwrap_or_default()
}

/// [`blame_at`], with `None` when git could not blame the file at all (no
/// repository, a file git does not track, git missing).
pub(crate) fn blame_lines(
    root: &Path,
    rev: Option<&str>,
    path: &str,
) -> Option<HashMap<usize, Blamed>> {
    let done = git(root)
        .args(["blame", "--line-porcelain"])
        .args(rev)
        .args(["--", path])
        .output()
        .ok()?;
    if !done.status.success() {
        return None;
    }
    Some(parse_porcelain(&String::from_utf8_lossy(&done.stdout)))
}

/// The lines of `git blame --line-porcelain`: each starts with a header
/// (`<commit> <original line> <final line>`), then `key value` lines.
fn parse_porcelain(text: &str) -> HashMap<usize, Blamed> {
    let mut out = HashMap::new();
    let mut line = 0usize;
    let mut current: Option<Blamed> = None;
    for l in text.lines() {
        let mut words = l.split(' ');
        let first = words.next().unwrap_or_default();
        if first.len() == 40 && first.bytes().all(|b| b.is_ascii_hexdigit()) {
            line = words.nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
            current = Some(Blamed {
                commit: first.to_string(),
                author: String::new(),
                email: String::new(),
                boundary: false,
            });
        } else if let Some(blamed) = current.as_mut() {
            if let Some(author) = l.strip_prefix("author ") {
                blamed.author = author.to_string();
            } else if let Some(mail) = l.strip_prefix("author-mail ") {
                let mail = mail.trim_start_matches('<').trim_end_matches('>');
                blamed.email = mail.to_ascii_lowercase();
            } else if l == "boundary" {
                blamed.boundary = true;
            } else if l.starts_with('\t') {
                // The line's text ends its entry; an uncommitted line's
                // commit is all zeros and is left out.
                let blamed = current.take().expect("an entry");
                if !blamed.commit.bytes().all(|b| b == b'0') {
                    out.insert(line, blamed);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_gives_each_committed_line_its_author_and_mail() {
        let text = "\
aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 1 1
author Ann
author-mail <Ann@Example.com>
boundary
filename a.md
\t- first
0000000000000000000000000000000000000000 2 2 1
author Not Committed Yet
author-mail <not.committed.yet>
filename a.md
\t- second
bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 3 3 1
author Bob
author-mail <bob@example.com>
filename a.md
\t- third
";
        let lines = parse_porcelain(text);
        assert_eq!(lines.len(), 2, "the uncommitted line is left out");
        assert_eq!(lines[&1].author, "Ann");
        assert_eq!(lines[&1].email, "ann@example.com");
        assert!(lines[&1].boundary);
        assert_eq!(lines[&3].commit, "b".repeat(40));
        assert!(!lines[&3].boundary);
    }
}
