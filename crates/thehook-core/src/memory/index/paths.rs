//! The `paths` database: from a repository file to the items that name it
//! and the sessions that changed it, so the file hook answers with a few key
//! reads, whatever the size of memory. Keys are `<path>\0i<key>` for an item
//! (`key` as 8 hex digits) and `<path>\0s<session file>` for a session;
//! [`crate::memory::files`] says which paths an item names.

use std::collections::HashSet;

use super::Index;
use crate::error::Result;
use crate::memory::files;
use crate::memory::item::Item;
use crate::memory::session::SessionRecord;

/// What memory knows about one file.
#[derive(Debug, Default)]
pub(crate) struct AboutFile {
    /// Items that name it (by its path or a tail of it), in key order.
    pub(crate) items: Vec<Item>,
    /// Sessions that changed it.
    pub(crate) sessions: Vec<SessionRecord>,
}

pub(super) fn item_link(path: &str, key: u32) -> String {
    format!("{path}\0i{key:08x}")
}

pub(super) fn session_link(path: &str, session_file: &str) -> String {
    format!("{path}\0s{session_file}")
}

impl Index {
    /// The items that name the repository-relative `path` (or a tail of it:
    /// `config/loader.go`, `loader.go`) and the sessions that changed it.
    pub(crate) fn about_file(&self, path: &str) -> Result<AboutFile> {
        let rtxn = self.env.read_txn()?;
        let mut about = AboutFile::default();
        let mut keys: Vec<u32> = Vec::new();
        let mut seen: HashSet<u32> = HashSet::new();
        for tail in files::tails(path) {
            let prefix = format!("{tail}\0");
            for entry in self.dbs.paths.prefix_iter(&rtxn, &prefix)? {
                let (link, ()) = entry?;
                let target = &link[prefix.len()..];
                if let Some(hex) = target.strip_prefix('i') {
                    let key = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
                    if seen.insert(key) {
                        keys.push(key);
                    }
                } else if let Some(file) = target.strip_prefix('s').filter(|_| tail == path) {
                    let record = self.dbs.files.get(&rtxn, file)?;
                    about.sessions.extend(record.and_then(|r| r.session));
                }
            }
        }
        keys.sort_unstable();
        for key in keys {
            about.items.extend(self.dbs.items.get(&rtxn, &key)?);
        }
        Ok(about)
    }
}
