//! The sessions keyed the ways the hooks ask for them
//! ([`SessionLookup`]), so a session start or a prompt reads what its
//! answer names and not every session record (decoding 7,300 of them was
//! a third of a warm session start at a team's year). Two databases:
//!
//! - `session_dates`: `<date>\0<session file>` → its [`SessionKey`]: the
//!   newest last, so "the latest" and "how many sessions back" are a walk
//!   from the end; its length is the number of sessions.
//! - `session_keys`, by the first byte:
//!   `b<branch>\0<date>\0<session file>` → its key (a branch's sessions),
//!   `i<session id>\0<session file>` (the files of one session),
//!   `p<session file>` → its key,
//!   `t<file, reversed>` → how many sessions changed the file, as a
//!   little-endian u32 (a file by the tail of its path),
//!   `w<term>\0<file>` (a file by a word of its name).
//!
//! The sessions that changed a file are the `paths` database's
//! (`memory/index/paths.rs`). Both are written in the transaction that
//! writes the records, from the same before-and-after pairs as the
//! sessions list (`memory/index/sessions.rs`), so they never disagree. A
//! rebuild in several transactions writes the keys and the list once, in
//! its last, from every record; until then it has none.

use std::collections::{BTreeMap, HashSet};

use heed::types::{Bytes, DecodeIgnore, Str};
use heed::{PutFlags, RoTxn, RwTxn, WithoutTls};

use super::Index;
use crate::error::Result;
use crate::memory::session::SessionRecord;
use crate::memory::session_lookup::{
    ends_with_part, name_terms, SessionKey, SessionsByAge, SessionsByFile, TouchedFile,
};

/// LMDB's longest key (its default `MDB_MAXKEYSIZE`): a longer one is
/// refused, and a session whose key would be longer is left out of the
/// keys (a date or branch that long is no real one; a path that long is
/// refused by the `paths` database already).
const MAX_KEY_BYTES: usize = 511;
/// Characters of a date kept in a key: RFC 3339 with nanoseconds and an
/// offset is 35.
const MAX_DATE_CHARS: usize = 64;

const BRANCH: &str = "b";
const SESSION_ID: &str = "i";
const TAIL: &str = "t";
const WORD: &str = "w";
const PATH: &str = "p";

/// A part of a key: no NUL (which separates the parts).
fn part(text: &str) -> String {
    text.replace('\0', " ")
}

fn date_part(date: &str) -> String {
    part(&crate::text::clip_chars(date, MAX_DATE_CHARS))
}

fn date_key(s: &SessionKey) -> String {
    format!("{}\0{}", date_part(&s.date), s.path)
}

fn branch_prefix(branch: &str) -> String {
    format!("{BRANCH}{}\0", part(branch))
}

fn id_prefix(id: &str) -> String {
    format!("{SESSION_ID}{}\0", part(id))
}

fn tail_key(file: &str) -> String {
    format!("{TAIL}{}", file.chars().rev().collect::<String>())
}

fn word_prefix(word: &str) -> String {
    format!("{WORD}{}\0", part(word))
}

fn encode(key: &SessionKey) -> Vec<u8> {
    // Strings and options only: postcard cannot fail on them.
    postcard::to_allocvec(key).unwrap_or_default()
}

fn decode(bytes: &[u8]) -> Option<SessionKey> {
    postcard::from_bytes(bytes).ok()
}

/// Each file once: a session that lists a file twice changed it once.
fn distinct(files: &[String]) -> Vec<&str> {
    let mut seen = HashSet::new();
    files
        .iter()
        .map(String::as_str)
        .filter(|f| seen.insert(*f))
        .collect()
}

impl Index {
    /// The sessions as the hooks ask for them, read in one transaction.
    pub(crate) fn session_lookup(&self) -> Result<KeyedSessions<'_>> {
        Ok(KeyedSessions {
            index: self,
            rtxn: self.env.read_txn()?,
        })
    }

    /// Brings the keys in step with `changed` (each changed session file's
    /// record before and now).
    pub(super) fn update_session_keys(
        &self,
        wtxn: &mut RwTxn,
        changed: &[(Option<SessionRecord>, Option<SessionRecord>)],
    ) -> Result<()> {
        let mut files: BTreeMap<&str, i64> = BTreeMap::new();
        for before in changed.iter().filter_map(|(before, _)| before.as_ref()) {
            self.remove_session_keys(wtxn, before)?;
            for file in distinct(&before.files) {
                *files.entry(file).or_default() -= 1;
            }
        }
        for now in changed.iter().filter_map(|(_, now)| now.as_ref()) {
            self.put_session_keys(wtxn, now)?;
            for file in distinct(&now.files) {
                *files.entry(file).or_default() += 1;
            }
        }
        // Each file's count once, whatever the number of sessions on it.
        for (file, change) in files {
            self.count_sessions_on(wtxn, file, change)?;
        }
        Ok(())
    }

    /// Writes the keys of every session in `all` afresh, into emptied
    /// databases in key order. Appended so, LMDB fills each page before it
    /// starts the next; put in the keys' scattered order (a branch, a
    /// reversed path, a word), it splits pages and leaves them about half
    /// full, and a rebuild wrote a third more of these pages than it keeps.
    pub(super) fn rebuild_session_keys(
        &self,
        wtxn: &mut RwTxn,
        all: &[SessionRecord],
    ) -> Result<()> {
        self.forget_session_keys(wtxn)?;
        let mut dates = BTreeMap::new();
        let mut others = BTreeMap::new();
        let mut files: BTreeMap<&str, u32> = BTreeMap::new();
        for session in all {
            for file in distinct(&session.files) {
                *files.entry(file).or_default() += 1;
            }
            let Some(entries) = entries(session) else {
                continue;
            };
            for (key, holds) in entries.others {
                let value = if holds {
                    entries.value.clone()
                } else {
                    Vec::new()
                };
                others.insert(key, value);
            }
            dates.insert(entries.by_date, entries.value);
        }
        for (file, n) in files {
            let Some(keys) = self.file_keys(file) else {
                continue;
            };
            others.insert(keys.tail, n.to_le_bytes().to_vec());
            others.extend(keys.words.into_iter().map(|word| (word, Vec::new())));
        }
        append_all(wtxn, self.dbs.session_dates, dates)?;
        append_all(wtxn, self.dbs.session_keys, others)
    }

    pub(super) fn forget_session_keys(&self, wtxn: &mut RwTxn) -> Result<()> {
        self.dbs.session_dates.clear(wtxn)?;
        self.dbs.session_keys.clear(wtxn)?;
        Ok(())
    }

    fn put_session_keys(&self, wtxn: &mut RwTxn, session: &SessionRecord) -> Result<()> {
        let Some(entries) = entries(session) else {
            return Ok(());
        };
        self.dbs
            .session_dates
            .put(wtxn, &entries.by_date, &entries.value)?;
        for (key, value) in &entries.others {
            let value = if *value { &entries.value[..] } else { &[] };
            self.dbs.session_keys.put(wtxn, key, value)?;
        }
        Ok(())
    }

    fn remove_session_keys(&self, wtxn: &mut RwTxn, session: &SessionRecord) -> Result<()> {
        let Some(entries) = entries(session) else {
            return Ok(());
        };
        self.dbs.session_dates.delete(wtxn, &entries.by_date)?;
        for (key, _) in &entries.others {
            self.dbs.session_keys.delete(wtxn, key)?;
        }
        Ok(())
    }
}

/// The keys one session has, the same for its writing and its removal.
struct Entries {
    /// Its `session_dates` key.
    by_date: String,
    /// Its encoded [`SessionKey`].
    value: Vec<u8>,
    /// Its `session_keys` keys, and whether each holds the value.
    others: Vec<(String, bool)>,
}

/// `None` for a session whose date or branch makes its keys pass LMDB's
/// limit (no real one does): it is left out of the keys.
fn entries(session: &SessionRecord) -> Option<Entries> {
    let key = SessionKey::of(session);
    let by_date = date_key(&key);
    if by_date.len() + key.branch.as_deref().map_or(0, str::len) + 2 > MAX_KEY_BYTES {
        return None;
    }
    let mut others = vec![(format!("{PATH}{}", key.path), true)];
    if let Some(branch) = &key.branch {
        others.push((format!("{}{by_date}", branch_prefix(branch)), true));
    }
    if let Some(id) = &key.session_id {
        let id_key = format!("{}{}", id_prefix(id), key.path);
        if id_key.len() <= MAX_KEY_BYTES {
            others.push((id_key, false));
        }
    }
    Some(Entries {
        value: encode(&key),
        by_date,
        others,
    })
}

/// The keys a file has while some session changed it.
struct FileKeys {
    /// `t<file, reversed>`: how many sessions.
    tail: String,
    /// `w<term>\0<file>`, one per word of its name.
    words: Vec<String>,
}

impl Index {
    /// `None` for a path too long for LMDB's keys.
    fn file_keys(&self, file: &str) -> Option<FileKeys> {
        let tail = tail_key(file);
        if tail.len() + 1 + MAX_DATE_CHARS > MAX_KEY_BYTES {
            return None;
        }
        // A word key of a long path and a long name would pass LMDB's limit.
        let words = name_terms(&self.analyzer, file)
            .into_iter()
            .map(|word| format!("{}{file}", word_prefix(&word)))
            .filter(|key| key.len() <= MAX_KEY_BYTES)
            .collect();
        Some(FileKeys { tail, words })
    }

    /// Adds `change` to how many sessions changed `file`: its tail and the
    /// words of its name come with the first and go with the last.
    fn count_sessions_on(&self, wtxn: &mut RwTxn, file: &str, change: i64) -> Result<()> {
        if change == 0 {
            return Ok(());
        }
        let Some(FileKeys { tail, words }) = self.file_keys(file) else {
            return Ok(());
        };
        let keys = self.dbs.session_keys;
        let was = i64::from(keys.get(wtxn, &tail)?.map_or(0, count));
        let now = u32::try_from((was + change).max(0)).unwrap_or(u32::MAX);
        if now == 0 {
            keys.delete(wtxn, &tail)?;
            for word in words {
                keys.delete(wtxn, &word)?;
            }
            return Ok(());
        }
        keys.put(wtxn, &tail, &now.to_le_bytes())?;
        if was == 0 {
            for word in words {
                keys.put(wtxn, &word, &[])?;
            }
        }
        Ok(())
    }
}

/// Puts `entries`, in their order, at the end of `db` (each key past the
/// last: a `BTreeMap`'s order of strings is LMDB's of their bytes).
fn append_all(
    wtxn: &mut RwTxn,
    db: heed::Database<'static, Str, Bytes>,
    entries: BTreeMap<String, Vec<u8>>,
) -> Result<()> {
    for (key, value) in entries {
        db.put_with_flags(wtxn, PutFlags::APPEND, &key, &value)?;
    }
    Ok(())
}

fn count(bytes: &[u8]) -> u32 {
    bytes.try_into().map(u32::from_le_bytes).unwrap_or_default()
}

/// [`SessionLookup`] over the index's keys, in one read transaction.
pub(crate) struct KeyedSessions<'i> {
    index: &'i Index,
    rtxn: RoTxn<'i, WithoutTls>,
}

impl KeyedSessions<'_> {
    /// The session files of `current` (a resumed session has one).
    fn files_of(&self, current: Option<&str>) -> Result<HashSet<String>> {
        let Some(id) = current else {
            return Ok(HashSet::new());
        };
        let prefix = id_prefix(id);
        let keys = self
            .index
            .dbs
            .session_keys
            .remap_data_type::<DecodeIgnore>();
        let mut out = HashSet::new();
        for entry in keys.prefix_iter(&self.rtxn, &prefix)? {
            out.insert(entry?.0[prefix.len()..].to_string());
        }
        Ok(out)
    }

    fn touched(&self, file: &str) -> Result<TouchedFile> {
        let n = self
            .index
            .dbs
            .session_keys
            .get(&self.rtxn, &tail_key(file))?
            .map_or(0, count);
        Ok(TouchedFile {
            path: file.to_string(),
            sessions: n as usize,
        })
    }
}

impl SessionsByAge for KeyedSessions<'_> {
    fn count(&self, current: Option<&str>) -> Result<usize> {
        let all = self.index.dbs.session_dates.len(&self.rtxn)? as usize;
        Ok(all.saturating_sub(self.files_of(current)?.len()))
    }

    fn newest(&self, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>> {
        let mut out = Vec::with_capacity(n);
        for entry in self.index.dbs.session_dates.rev_iter(&self.rtxn)? {
            if out.len() >= n {
                break;
            }
            out.extend(decode(entry?.1).filter(|k| !k.is(current)));
        }
        Ok(out)
    }

    fn of_branch(&self, branch: &str, n: usize, current: Option<&str>) -> Result<Vec<SessionKey>> {
        let prefix = branch_prefix(branch);
        let mut out = Vec::with_capacity(n);
        for entry in self
            .index
            .dbs
            .session_keys
            .rev_prefix_iter(&self.rtxn, &prefix)?
        {
            if out.len() >= n {
                break;
            }
            out.extend(decode(entry?.1).filter(|k| !k.is(current)));
        }
        Ok(out)
    }

    fn paths_of(&self, current: Option<&str>) -> Result<HashSet<String>> {
        self.files_of(current)
    }

    fn keys(&self, paths: &HashSet<String>) -> Result<Vec<SessionKey>> {
        let keys = self.index.dbs.session_keys;
        let mut out = Vec::with_capacity(paths.len());
        for path in paths {
            let key = format!("{PATH}{path}");
            out.extend(keys.get(&self.rtxn, &key)?.and_then(decode));
        }
        Ok(out)
    }

    fn walk_newest(
        &self,
        current: Option<&str>,
        visit: &mut dyn FnMut(usize, &str) -> bool,
    ) -> Result<()> {
        let skip = self.files_of(current)?;
        // The keys alone, not checked as text: a session file's path is
        // what this index wrote.
        let dates = self
            .index
            .dbs
            .session_dates
            .remap_types::<Bytes, DecodeIgnore>();
        let mut age = 0;
        for entry in dates.rev_iter(&self.rtxn)? {
            let (key, ()) = entry?;
            let path = key
                .iter()
                .position(|b| *b == 0)
                .map_or(key, |nul| &key[nul + 1..]);
            let path = std::str::from_utf8(path).unwrap_or_default();
            if skip.contains(path) {
                continue;
            }
            if !visit(age, path) {
                break;
            }
            age += 1;
        }
        Ok(())
    }

    fn record(&self, path: &str) -> Result<Option<SessionRecord>> {
        Ok(self
            .index
            .dbs
            .files
            .get(&self.rtxn, path)?
            .and_then(|r| r.session))
    }
}

impl SessionsByFile for KeyedSessions<'_> {
    fn touching(&self, file: &str) -> Result<Vec<String>> {
        let prefix = format!("{file}\0s");
        let mut out = Vec::new();
        for entry in self.index.dbs.paths.prefix_iter(&self.rtxn, &prefix)? {
            let link = entry?.0;
            // `<age: 12 digits><session file>`
            out.extend(link[prefix.len()..].get(12..).map(str::to_string));
        }
        Ok(out)
    }

    fn newest_touching(
        &self,
        files: &[String],
        visit: &mut dyn FnMut(&str) -> Result<bool>,
    ) -> Result<()> {
        // Each file's links are `<file>\0s<age><session file>`, the newest
        // first (`memory/index/paths.rs`): merged, only as many are read
        // as `visit` takes.
        let mut heads = Vec::with_capacity(files.len());
        for file in files {
            let prefix = format!("{file}\0s");
            let mut links = self.index.dbs.paths.prefix_iter(&self.rtxn, &prefix)?;
            let first = links.next().transpose()?.map(|(k, ())| k);
            heads.push((prefix.len(), links, first));
        }
        let mut visited: HashSet<&str> = HashSet::new();
        loop {
            let next = heads
                .iter()
                .enumerate()
                .filter_map(|(i, (at, _, head))| head.map(|k| (i, &k[*at..])))
                .min_by(|a, b| a.1.cmp(b.1));
            let Some((i, aged)) = next else {
                return Ok(());
            };
            let (_, links, head) = &mut heads[i];
            *head = links.next().transpose()?.map(|(k, ())| k);
            // `<age: 12 digits><session file>`
            let Some(session) = aged.get(12..) else {
                continue;
            };
            if visited.insert(session) && !visit(session)? {
                return Ok(());
            }
        }
    }

    fn which_changed(
        &self,
        sessions: &HashSet<String>,
        files: &[String],
    ) -> Result<HashSet<String>> {
        let mut out = HashSet::new();
        // A point read of each link (`memory/index/paths.rs`), not every
        // session on each file.
        for key in self.keys(sessions)? {
            let age = super::paths::age(&key.date);
            for file in files {
                let link = format!("{file}\0s{age}{}", key.path);
                if self.index.dbs.paths.get(&self.rtxn, &link)?.is_some() {
                    out.insert(key.path);
                    break;
                }
            }
        }
        Ok(out)
    }

    fn files_ending(&self, tail: &str) -> Result<Vec<TouchedFile>> {
        let prefix = tail_key(tail);
        let mut out = Vec::new();
        for entry in self
            .index
            .dbs
            .session_keys
            .prefix_iter(&self.rtxn, &prefix)?
        {
            let (key, bytes) = entry?;
            let file: String = key[TAIL.len()..].chars().rev().collect();
            if ends_with_part(&file, tail) {
                out.push(TouchedFile {
                    path: file,
                    sessions: count(bytes) as usize,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn files_named_with(&self, word: &str) -> Result<Vec<TouchedFile>> {
        let prefix = word_prefix(word);
        let keys = self
            .index
            .dbs
            .session_keys
            .remap_data_type::<DecodeIgnore>();
        let mut files = Vec::new();
        for entry in keys.prefix_iter(&self.rtxn, &prefix)? {
            files.push(entry?.0[prefix.len()..].to_string());
        }
        files.sort();
        files.iter().map(|f| self.touched(f)).collect()
    }
}
