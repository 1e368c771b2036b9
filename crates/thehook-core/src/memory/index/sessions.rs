//! Every session file's record in one value, for what lists them all
//! (`status`, the page, the review of withheld text): decoding 7,300 file
//! records (JSON, with their item keys) one by one was slow. (The hooks
//! read the sessions' keys instead: `session_keys.rs`.) The list is kept in postcard (a compact serde
//! encoding) under its own key of the header database, rewritten in the
//! same transaction as any change to a session file's record, so it never
//! disagrees with the records (a rebuild in several transactions drops it
//! and writes it in its last). An index written before it existed has no
//! list: the records are read, until the next sync that changes a session
//! writes it.

use heed::types::{Bytes, Str};
use heed::{RoTxn, RwTxn, WithoutTls};

use super::Index;
use crate::error::Result;
use crate::memory::session::SessionRecord;

/// The key of the list in the header database.
const KEY: &str = "sessions";

impl Index {
    /// Every session file's record, in path order.
    pub(crate) fn sessions(&self) -> Result<Vec<SessionRecord>> {
        self.sessions_in(&self.env.read_txn()?)
    }

    /// [`Index::sessions`] in the caller's transaction: the list as
    /// stored, else the records one by one.
    pub(super) fn sessions_in(&self, txn: &RoTxn<WithoutTls>) -> Result<Vec<SessionRecord>> {
        match self.stored_sessions(txn)? {
            Some(sessions) => Ok(sessions),
            None => self.sessions_from_records(txn),
        }
    }

    /// The list as stored, if it is there and reads.
    pub(super) fn stored_sessions(
        &self,
        rtxn: &RoTxn<WithoutTls>,
    ) -> Result<Option<Vec<SessionRecord>>> {
        let db = self.dbs.header.remap_types::<Str, Bytes>();
        Ok(db
            .get(rtxn, KEY)?
            .and_then(|bytes| postcard::from_bytes(bytes).ok()))
    }

    /// The records of every session file, read one by one.
    pub(super) fn sessions_from_records(
        &self,
        rtxn: &RoTxn<WithoutTls>,
    ) -> Result<Vec<SessionRecord>> {
        let prefix = crate::project::SESSIONS_PREFIX;
        let mut out = Vec::new();
        for entry in self.dbs.files.prefix_iter(rtxn, prefix)? {
            if let Some(session) = entry?.1.session {
                out.push(session);
            }
        }
        Ok(out)
    }

    /// Brings the list, and the keys the hooks read
    /// ([`super::session_keys`]), in step with `changed` (each changed session file's
    /// record before and now), in the transaction that changed the
    /// records: the list as stored, those files' entries replaced, so a
    /// hook's sync of one new session does not read every record. Without
    /// a stored list (an index written before it, or just cleared) it is
    /// made from the records, already written in this transaction.
    pub(super) fn update_sessions(
        &self,
        wtxn: &mut RwTxn,
        changed: &[(Option<SessionRecord>, Option<SessionRecord>)],
    ) -> Result<()> {
        let Some(mut sessions) = self.stored_sessions(wtxn)? else {
            return self.rewrite_sessions(wtxn);
        };
        self.update_session_keys(wtxn, changed)?;
        let paths: std::collections::HashSet<&str> = changed
            .iter()
            .flat_map(|(before, now)| before.iter().chain(now))
            .map(|s| s.path.as_str())
            .collect();
        sessions.retain(|s| !paths.contains(s.path.as_str()));
        sessions.extend(changed.iter().filter_map(|(_, now)| now.clone()));
        // The records' order: by path.
        sessions.sort_by(|a, b| a.path.cmp(&b.path));
        self.put_sessions(wtxn, &sessions)
    }

    /// Writes the list and the keys afresh from the records (already
    /// written in this transaction): a rebuild's last transaction (which
    /// writes them once and not once per transaction), or an index without
    /// a stored list.
    pub(super) fn rewrite_sessions(&self, wtxn: &mut RwTxn) -> Result<()> {
        let sessions = self.sessions_from_records(wtxn)?;
        self.rebuild_session_keys(wtxn, &sessions)?;
        self.put_sessions(wtxn, &sessions)
    }

    fn put_sessions(&self, wtxn: &mut RwTxn, sessions: &[SessionRecord]) -> Result<()> {
        let db = self.dbs.header.remap_types::<Str, Bytes>();
        match postcard::to_allocvec(sessions) {
            Ok(bytes) => db.put(wtxn, KEY, &bytes)?,
            // Not expected (strings and numbers only); the records stay
            // the truth, read one by one.
            Err(_) => {
                db.delete(wtxn, KEY)?;
            }
        }
        Ok(())
    }

    /// Drops the list and the keys (an index being cleared).
    pub(super) fn forget_sessions(&self, wtxn: &mut RwTxn) -> Result<()> {
        let db = self.dbs.header.remap_types::<Str, Bytes>();
        db.delete(wtxn, KEY)?;
        self.forget_session_keys(wtxn)
    }
}
