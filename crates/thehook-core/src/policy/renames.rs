//! Files git saw renamed since memory began: a session that changed
//! `cmd/old.go` is history of `cmd/new.go`. The background half of session
//! start asks git once for each new HEAD (`git log -M --diff-filter=R`,
//! only the commits since the last ask) and keeps what it found in
//! `index/renames.json`; the file hook reads that file and runs no git.
//!
//! Only sessions follow a rename: an item that names the old path is stale
//! ([`crate::policy::stale`]) until a person rewrites or confirms it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, Result};
use crate::process::git::git;
use crate::project::Project;
use crate::store::write_atomic;

const CACHE: &str = "renames.json";
/// Names before a rename followed at most, in case a file went back and
/// forth.
const MAX_EARLIER: usize = 8;

/// The renames git knows, as last read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Renames {
    /// The commit the renames were read up to.
    head: String,
    /// The date they were read from (memory's oldest session).
    since: String,
    /// Each path a rename gave, with the path it had before.
    before: BTreeMap<String, String>,
}

impl Renames {
    /// As last stored; none when never read, or unreadable (it is a cache).
    pub(crate) fn load(project: &Project) -> Renames {
        std::fs::read(project.index_dir().join(CACHE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// The names `path` had before, the latest first.
    pub(crate) fn earlier_names(&self, path: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let mut at = path;
        while let Some(old) = self.before.get(at) {
            if old == path || out.contains(&old.as_str()) || out.len() == MAX_EARLIER {
                break;
            }
            out.push(old);
            at = old;
        }
        out
    }

    /// Reads the renames of the commits since the last read up to HEAD (all
    /// since `since()`, memory's oldest session's date, the first time or
    /// when that date moved), and stores them. `since` is asked only when
    /// HEAD moved; `None` from it: no session, nothing to follow. How many
    /// renames are known; `None` outside git or when git fails (nothing
    /// stored then).
    pub(crate) fn refresh(
        project: &Project,
        since: impl FnOnce() -> Result<Option<String>>,
    ) -> Result<Option<usize>> {
        let root = project.root();
        let Some(head) = git_line(root, &["rev-parse", "--verify", "-q", "HEAD"]) else {
            return Ok(None);
        };
        let mut renames = Renames::load(project);
        if renames.head == head {
            return Ok(Some(renames.before.len()));
        }
        let Some(since) = since()? else {
            return Ok(Some(0));
        };
        let since = since.as_str();
        if renames.since != since {
            renames = Renames::default();
        }
        let range = if renames.head.is_empty() {
            head.clone()
        } else {
            format!("{}..{head}", renames.head)
        };
        // The last head may be gone (a rebase, then gc): read all again.
        let log = git_renames(root, since, &range).or_else(|| {
            renames.before.clear();
            git_renames(root, since, &head)
        });
        let Some(log) = log else {
            return Ok(None);
        };
        // git lists the newest commit first: an older rename never
        // overwrites what a newer one said.
        let mut found: BTreeMap<String, String> = BTreeMap::new();
        for (old, new) in log {
            found.entry(new).or_insert(old);
        }
        renames.before.extend(found);
        renames.head = head;
        renames.since = since.to_string();
        let json = serde_json::to_vec(&renames).expect("renames serialise");
        let dir = project.index_dir();
        std::fs::create_dir_all(&dir).at("cannot create folder", &dir)?;
        write_atomic(&dir.join(CACHE), &json)?;
        Ok(Some(renames.before.len()))
    }
}

/// The renames (`old`, `new`) in the commits of `range` since `since`,
/// newest commit first.
fn git_renames(root: &Path, since: &str, range: &str) -> Option<Vec<(String, String)>> {
    let out = git(root)
        .args(["log", "-M", "--diff-filter=R", "--name-status", "--format="])
        .arg(format!("--since={since}"))
        .arg(range)
        .arg("--")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .filter_map(|line| {
                let mut parts = line.split('\t');
                let status = parts.next()?;
                let (old, new) = (parts.next()?, parts.next()?);
                status
                    .starts_with('R')
                    .then(|| (old.to_string(), new.to_string()))
            })
            .collect(),
    )
}

fn git_line(root: &Path, args: &[&str]) -> Option<String> {
    let out = git(root).args(args).output().ok()?;
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !line.is_empty()).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_of_renames_is_followed_back_and_a_loop_stops() {
        let renames = Renames {
            before: [
                ("c.go", "b.go"),
                ("b.go", "a.go"),
                ("x.go", "y.go"),
                ("y.go", "x.go"),
            ]
            .into_iter()
            .map(|(n, o)| (n.to_string(), o.to_string()))
            .collect(),
            ..Renames::default()
        };
        assert_eq!(renames.earlier_names("c.go"), vec!["b.go", "a.go"]);
        assert_eq!(renames.earlier_names("x.go"), vec!["y.go"]);
        assert!(renames.earlier_names("a.go").is_empty());
    }
}
