//! The questions the hooks ask of the sessions, answered without reading
//! every session record: the newest, a branch's, those that changed a file,
//! the files a name or a word points at. The index answers them with a few
//! key reads each (`memory/index/session_keys.rs`); a list of records
//! answers them too ([`SessionList`]), for the tests and as the reference
//! the index's answers are checked against.

#[cfg(test)]
use std::collections::HashMap;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::memory::session::SessionRecord;

/// What orders and names a session, without its text: enough to rank it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SessionKey {
    /// The session file, project-relative.
    pub(crate) path: String,
    pub(crate) date: String,
    pub(crate) session_id: Option<String>,
    pub(crate) branch: Option<String>,
}

impl SessionKey {
    pub(crate) fn of(record: &SessionRecord) -> SessionKey {
        SessionKey {
            path: record.path.clone(),
            date: record.date.clone(),
            session_id: record.session_id.clone(),
            branch: record.branch.clone(),
        }
    }

    /// Whether this is the session `current` (one starting or resumed now).
    pub(crate) fn is(&self, current: Option<&str>) -> bool {
        current.is_some() && self.session_id.as_deref() == current
    }
}

#[cfg(test)]
/// The newest first: by date, then by path, both descending (the order
/// "sessions back" counts in).
pub(crate) fn newest_first(a: &SessionKey, b: &SessionKey) -> std::cmp::Ordering {
    b.date.cmp(&a.date).then_with(|| b.path.cmp(&a.path))
}

/// A file sessions changed, and how many of them did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TouchedFile {
    pub(crate) path: String,
    pub(crate) sessions: usize,
}

/// The sessions, asked the hooks' questions: one trait by age and branch
/// ([`SessionsByAge`]), one by the files they changed ([`SessionsByFile`]).
/// "Sessions" leaves out none: a caller passes the one to leave out
/// (`current`) where it matters.
pub(crate) trait SessionLookup: SessionsByAge + SessionsByFile {}

impl<T: SessionsByAge + SessionsByFile> SessionLookup for T {}

/// Sessions by how new they are, their branch and their own files.
pub(crate) trait SessionsByAge {
    /// How many sessions there are, `current`'s own not counted.
    fn count(&self, current: Option<&str>) -> Result<usize>;
    /// The `n` newest, but `current`'s.
    fn newest(&self, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>>;
    /// The `n` newest on `branch`, but `current`'s.
    fn of_branch(&self, branch: &str, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>>;
    /// The session files of `current` (a resumed session has one).
    fn paths_of(&self, current: Option<&str>) -> Result<HashSet<String>>;
    /// The keys of those of `paths` that are sessions, in no promised order.
    fn keys(&self, paths: &HashSet<String>) -> Result<Vec<SessionKey>>;
    /// Calls `visit` with each session file, the newest first, and its age
    /// (how many sessions are newer, `current`'s not counted; `current`'s
    /// own are not visited), until `visit` says to stop (false).
    fn walk_newest(
        &self,
        current: Option<&str>,
        visit: &mut dyn FnMut(usize, &str) -> bool,
    ) -> Result<()>;
    /// The record of one session file.
    fn record(&self, path: &str) -> Result<Option<SessionRecord>>;
}

/// Sessions by the files they changed, and those files by name.
pub(crate) trait SessionsByFile {
    /// The session files that changed `file`, in no promised order.
    fn touching(&self, file: &str) -> Result<Vec<String>>;
    /// Calls `visit` with each session file that changed any of `files`,
    /// once, the newest first (by time to the second, then by path), until
    /// `visit` says to stop (false).
    fn newest_touching(
        &self,
        files: &[String],
        visit: &mut dyn FnMut(&str) -> Result<bool>,
    ) -> Result<()>;
    /// Of `sessions`, those that changed any of `files`.
    fn which_changed(
        &self,
        sessions: &HashSet<String>,
        files: &[String],
    ) -> Result<HashSet<String>>;
    /// The files sessions changed that are `tail` or end in `/tail`.
    fn files_ending(&self, tail: &str) -> Result<Vec<TouchedFile>>;
    /// The files sessions changed whose name (the last part, before its
    /// first dot) has `word` among its terms.
    fn files_named_with(&self, word: &str) -> Result<Vec<TouchedFile>>;
}

/// Every session's record in memory: the reference [`SessionLookup`].
#[cfg(test)]
pub(crate) struct SessionList<'a> {
    sessions: &'a [SessionRecord],
    analyzer: &'a crate::text::analysis::lexical::Analyzer,
}

#[cfg(test)]
impl<'a> SessionList<'a> {
    pub(crate) fn new(
        sessions: &'a [SessionRecord],
        analyzer: &'a crate::text::analysis::lexical::Analyzer,
    ) -> SessionList<'a> {
        SessionList { sessions, analyzer }
    }

    fn sorted(&self, current: Option<&str>) -> Vec<SessionKey> {
        let mut keys: Vec<SessionKey> = self
            .sessions
            .iter()
            .map(SessionKey::of)
            .filter(|k| !k.is(current))
            .collect();
        keys.sort_by(newest_first);
        keys
    }

    /// The files sessions changed that `keep` takes, by path.
    fn files_where(&self, keep: impl Fn(&str) -> bool) -> Vec<TouchedFile> {
        let mut out: Vec<TouchedFile> = self
            .touched()
            .into_iter()
            .filter(|(f, _)| keep(f))
            .map(|(f, n)| TouchedFile {
                path: f.to_string(),
                sessions: n,
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    fn touched(&self) -> HashMap<&str, usize> {
        let mut out: HashMap<&str, usize> = HashMap::new();
        for s in self.sessions {
            let files: HashSet<&str> = s.files.iter().map(String::as_str).collect();
            for f in files {
                *out.entry(f).or_default() += 1;
            }
        }
        out
    }
}

#[cfg(test)]
impl SessionsByAge for SessionList<'_> {
    fn count(&self, current: Option<&str>) -> Result<usize> {
        Ok(self.sorted(current).len())
    }

    fn newest(&self, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>> {
        Ok(self.sorted(current).into_iter().take(n).collect())
    }

    fn of_branch(&self, branch: &str, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>> {
        Ok(self
            .sorted(current)
            .into_iter()
            .filter(|k| k.branch.as_deref() == Some(branch))
            .take(n)
            .collect())
    }

    fn paths_of(&self, current: Option<&str>) -> Result<HashSet<String>> {
        Ok(self
            .sessions
            .iter()
            .map(SessionKey::of)
            .filter(|k| k.is(current))
            .map(|k| k.path)
            .collect())
    }

    fn keys(&self, paths: &HashSet<String>) -> Result<Vec<SessionKey>> {
        Ok(self
            .sessions
            .iter()
            .filter(|s| paths.contains(&s.path))
            .map(SessionKey::of)
            .collect())
    }

    fn walk_newest(
        &self,
        current: Option<&str>,
        visit: &mut dyn FnMut(usize, &str) -> bool,
    ) -> Result<()> {
        for (age, key) in self.sorted(current).iter().enumerate() {
            if !visit(age, &key.path) {
                break;
            }
        }
        Ok(())
    }

    fn record(&self, path: &str) -> Result<Option<SessionRecord>> {
        Ok(self.sessions.iter().find(|s| s.path == path).cloned())
    }
}

#[cfg(test)]
impl SessionsByFile for SessionList<'_> {
    fn touching(&self, file: &str) -> Result<Vec<String>> {
        Ok(self
            .sessions
            .iter()
            .filter(|s| s.files.iter().any(|f| f == file))
            .map(|s| s.path.clone())
            .collect())
    }

    fn newest_touching(
        &self,
        files: &[String],
        visit: &mut dyn FnMut(&str) -> Result<bool>,
    ) -> Result<()> {
        let second = |date: &str| {
            date.parse::<jiff::Timestamp>()
                .map_or(0, |t| t.as_second().max(0))
        };
        let mut on: Vec<&SessionRecord> = self
            .sessions
            .iter()
            .filter(|s| s.files.iter().any(|f| files.contains(f)))
            .collect();
        on.sort_by(|a, b| {
            second(&b.date)
                .cmp(&second(&a.date))
                .then_with(|| a.path.cmp(&b.path))
        });
        for s in on {
            if !visit(&s.path)? {
                break;
            }
        }
        Ok(())
    }

    fn which_changed(
        &self,
        sessions: &HashSet<String>,
        files: &[String],
    ) -> Result<HashSet<String>> {
        Ok(self
            .sessions
            .iter()
            .filter(|s| sessions.contains(&s.path) && s.files.iter().any(|f| files.contains(f)))
            .map(|s| s.path.clone())
            .collect())
    }

    fn files_ending(&self, tail: &str) -> Result<Vec<TouchedFile>> {
        Ok(self.files_where(|f| ends_with_part(f, tail)))
    }

    fn files_named_with(&self, word: &str) -> Result<Vec<TouchedFile>> {
        Ok(self.files_where(|f| name_terms(self.analyzer, f).iter().any(|t| t == word)))
    }
}

/// Whether `file` is `tail` or ends in `/tail`.
pub(crate) fn ends_with_part(file: &str, tail: &str) -> bool {
    file == tail
        || file
            .strip_suffix(tail)
            .is_some_and(|head| head.ends_with('/'))
}

/// The terms of a file's name: its last part before the first dot
/// (`cmd/rewind.go` -> `rewind`, `manual_commit_hooks.go` -> `manual`,
/// `commit`, `hooks`).
pub(crate) fn name_terms(
    analyzer: &crate::text::analysis::lexical::Analyzer,
    file: &str,
) -> Vec<String> {
    let stem = file.rsplit('/').next().unwrap_or(file);
    let stem = stem.split('.').next().unwrap_or(stem);
    // Its parts as words: the analyzer keeps an identifier whole beside its
    // parts (`manual_commit_hooks` too), which no prompt says.
    let mut words = String::with_capacity(stem.len() + 4);
    let mut prev: Option<char> = None;
    for c in stem.chars() {
        if c == '_' || c == '-' {
            words.push(' ');
        } else {
            if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
                words.push(' ');
            }
            words.push(c);
        }
        prev = Some(c);
    }
    analyzer.terms(&words)
}

/// A seeded xorshift64: `next(n)` is below `n`, the same on every run and
/// machine (the seeded tests of the hooks' questions).
#[cfg(test)]
pub(crate) fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}

#[cfg(test)]
mod name_tests {
    use super::name_terms;
    use crate::text::analysis::lexical::Analyzer;

    #[test]
    fn a_files_name_is_the_words_of_its_parts() {
        let analyzer = Analyzer::default();
        assert_eq!(name_terms(&analyzer, "cmd/rewind.go"), ["rewind"]);
        assert_eq!(
            name_terms(&analyzer, "cmd/manual_commit_hooks.go"),
            ["manual", "commit", "hook"]
        );
        assert_eq!(
            name_terms(&analyzer, "src/tokenUsage.ts"),
            ["token", "usag"]
        );
        assert_eq!(
            name_terms(&analyzer, "a/token-usage.test.ts"),
            ["token", "usag"]
        );
    }
}
