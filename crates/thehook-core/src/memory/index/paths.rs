//! The `paths` database: from a repository file to the items that name it
//! and the sessions that changed it, so the file hook answers with a few key
//! reads, whatever the size of memory. A link is a key alone, sorted the way
//! the hook reads: `<path>\0i<rank><age><key>` for an item (its kind's
//! [`files::rank`], then newest first) and `<path>\0s<age><session file>`
//! for a session (newest first). [`files::named`] says which paths an item
//! names; a session file's front matter, which files its session changed.
//! A symbol an item names in backticks links it the same way under
//! `\0<symbol>\0i...` (no path starts with NUL): the file hook looks up
//! the symbols the touched file defines.

use std::collections::HashSet;

use super::Index;
use crate::error::Result;
use crate::memory::files;
use crate::memory::session::SessionRecord;
use crate::policy::stale::cited_symbols;
use crate::store::item::Item;

/// What memory knows about one file, best first.
#[derive(Debug, Default)]
pub(crate) struct AboutFile {
    /// Items that name it (by its path or a tail of it, or a symbol it
    /// defines): by kind, then newest first.
    pub(crate) items: Vec<Item>,
    /// Sessions that changed it, newest first.
    pub(crate) sessions: Vec<SessionRecord>,
}

/// The names one file is looked up by.
#[derive(Debug, Default)]
pub(crate) struct FileNames<'a> {
    /// Its path from the repository root.
    pub(crate) path: &'a str,
    /// The paths it had before git renamed it, the latest first: sessions
    /// that changed it under those count (items naming them are stale).
    pub(crate) earlier: Vec<&'a str>,
    /// The symbols it defines, which items may name.
    pub(crate) defines: Vec<&'a str>,
}

/// Seconds before this sort the newest first (as text) until the year 33658.
const LATEST: i64 = 999_999_999_999;

/// `date` (RFC 3339) as 12 digits that sort the newest first.
pub(super) fn age(date: &str) -> String {
    let seconds = date
        .parse::<jiff::Timestamp>()
        .map(|t| t.as_second().clamp(0, LATEST))
        .unwrap_or(0);
    format!("{:012}", LATEST - seconds)
}

/// The links of item `key`: one for each file and each symbol it names.
pub(super) fn item_links(key: u32, item: &Item) -> Vec<String> {
    let rank = files::rank(item.kind);
    let age = age(&item.date);
    let paths = files::named(&item.text);
    let symbols = cited_symbols(&item.text).into_iter().map(symbol_key);
    paths
        .into_iter()
        .chain(symbols)
        .map(|name| format!("{name}\0i{rank}{age}{key:08x}"))
        .collect()
}

/// Where a symbol's links are kept, apart from any path's.
fn symbol_key(symbol: &str) -> String {
    format!("\0{symbol}")
}

/// The links of a session: one for each file it changed.
pub(super) fn session_links(session: &SessionRecord) -> Vec<String> {
    let age = age(&session.date);
    session
        .files
        .iter()
        .map(|path| format!("{path}\0s{age}{}", session.path))
        .collect()
}

impl Index {
    /// At most `limit` items that name the file (by its path or a tail of
    /// it: `config/loader.go`, `loader.go`) per tail and per symbol it
    /// defines, and at most `limit` sessions that changed it (under its
    /// path or an earlier one): the first in the order they are given,
    /// however many there are. No session when more than `most` changed
    /// it: then it says nothing about which one is meant.
    pub(crate) fn about_file(
        &self,
        file: &FileNames,
        limit: usize,
        most: usize,
    ) -> Result<AboutFile> {
        let rtxn = self.env.read_txn()?;
        let mut about = AboutFile::default();
        let mut keys: Vec<(String, u32)> = Vec::new();
        let mut seen: HashSet<u32> = HashSet::new();
        let names = files::tails(file.path)
            .map(str::to_string)
            .chain(file.defines.iter().map(|s| symbol_key(s)));
        for name in names {
            let items = format!("{name}\0i");
            for entry in self.dbs.paths.prefix_iter(&rtxn, &items)?.take(limit) {
                let (link, ()) = entry?;
                let order = &link[items.len()..];
                let key = order
                    .get(13..)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                if let Some(key) = key.filter(|k| seen.insert(*k)) {
                    keys.push((order.to_string(), key));
                }
            }
        }
        keys.sort();
        for (_, key) in keys {
            about.items.extend(self.dbs.items.get(&rtxn, &key)?);
        }
        // (age, session file) under each name, newest first, each session once.
        let mut changed: Vec<(String, String)> = Vec::new();
        for path in std::iter::once(file.path).chain(file.earlier.iter().copied()) {
            let sessions = format!("{path}\0s");
            for entry in self.dbs.paths.prefix_iter(&rtxn, &sessions)?.take(most + 1) {
                let (link, ()) = entry?;
                let order = &link[sessions.len()..];
                let (age, session) = order.split_at(order.len().min(12));
                changed.push((age.to_string(), session.to_string()));
            }
        }
        changed.sort();
        let mut files: Vec<String> = Vec::new();
        for (_, session) in changed {
            if !files.contains(&session) {
                files.push(session);
            }
        }
        if files.len() <= most {
            for file in files.into_iter().take(limit) {
                let record = self.dbs.files.get(&rtxn, &file)?;
                about.sessions.extend(record.and_then(|r| r.session));
            }
        }
        Ok(about)
    }

    /// How many markdown files the index holds: the sessions, and the few
    /// knowledge files.
    pub(crate) fn file_count(&self) -> Result<u64> {
        let rtxn = self.env.read_txn()?;
        Ok(self.dbs.files.len(&rtxn)?)
    }
}
