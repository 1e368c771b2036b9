//! Which items a sync adds, keeps and removes. An item is matched by its id
//! (file and normalised text): one that stays keeps its key, and so its
//! vector, however far it moved in its file.

use std::collections::{HashMap, HashSet};

use super::FileChange;
use crate::error::Result;
use crate::memory::index::{FileRecord, Header, Index};
use crate::memory::session::SessionRecord;
use crate::store::item::Item;
use crate::store::SourceFile;

/// The mtime recorded for a file too new to trust: matches no real file.
const SMUDGED: i128 = i128::MIN;

// A file modified less than `RACY_WINDOW_NS` before it is indexed may change
// again within the file system's timestamp granularity, keeping its size and
// mtime (git's "racy clean" problem). Its record stores no mtime ("smudged",
// as git does), so the next sync reads it again; once it is older, its real
// mtime is recorded and it costs one `stat` from then on.
use crate::store::RACY_WINDOW_NS;

/// Whether `source` is the file `record` indexed: the same size and mtime;
/// or, for a record too new to trust its mtime (smudged) and a file still
/// as new, the same bytes (hooks in the seconds after a capture would
/// parse it again each, 50 ms of compiling the safety rules' patterns).
pub(super) fn unchanged(record: &FileRecord, source: &SourceFile) -> bool {
    if record.size != source.size {
        return false;
    }
    if record.mtime_ns == source.mtime_ns {
        return true;
    }
    let now = jiff::Timestamp::now().as_nanosecond();
    record.mtime_ns == SMUDGED
        && now - source.mtime_ns < RACY_WINDOW_NS
        && record.sha256.is_some()
        && crate::store::source_hash(source) == record.sha256
}

/// What one sync does to the items, decided before anything is written.
#[derive(Debug, Default)]
pub(super) struct ItemPlan {
    /// New items, with the keys they get.
    pub(super) added: Vec<(u32, Item)>,
    /// Items that stay, as they read now (their line or type may differ).
    pub(super) kept: Vec<(u32, Item)>,
    /// The same items as they were indexed, to move their `recent` entries.
    pub(super) kept_before: Vec<(u32, Item)>,
    /// Items that leave, as they were indexed.
    pub(super) removed: Vec<(u32, Item)>,
    /// The `(question, reply)` keys of the changed files, as they are now
    /// (those indexed before leave with their items' keys).
    pub(super) replies: Vec<(u32, u32)>,
    /// Each changed file's new record; `None` for a file that is gone.
    pub(super) records: Vec<(String, Option<FileRecord>)>,
    /// Each changed session file's record as indexed and as it reads now.
    pub(super) sessions: Vec<(Option<SessionRecord>, Option<SessionRecord>)>,
}

impl ItemPlan {
    /// Matches the items of each changed file with those indexed for it
    /// before. New items take keys from `header.next_key`.
    pub(super) fn new(
        index: &Index,
        wtxn: &heed::RoTxn<heed::WithoutTls>,
        records: &HashMap<String, FileRecord>,
        changes: &[FileChange],
        header: &mut Header,
    ) -> Result<ItemPlan> {
        let mut plan = ItemPlan::default();
        let now = jiff::Timestamp::now().as_nanosecond();
        for change in changes {
            let mut before: HashMap<String, (u32, Item)> = HashMap::new();
            for &key in records.get(&change.rel).map_or(&[][..], |r| &r.keys) {
                if let Some(item) = index.dbs.items.get(wtxn, &key)? {
                    before.insert(item.id.clone(), (key, item));
                }
            }
            let mut keys = Vec::with_capacity(change.items.len());
            for item in &change.items {
                let key = match before.remove(&item.id) {
                    Some((key, was)) => {
                        plan.kept.push((key, item.clone()));
                        plan.kept_before.push((key, was));
                        key
                    }
                    None => {
                        let key = header.next_key;
                        header.next_key += 1;
                        plan.added.push((key, item.clone()));
                        key
                    }
                };
                keys.push(key);
            }
            plan.replies.extend(
                change
                    .replies
                    .iter()
                    .map(|&(question, reply)| (keys[question], keys[reply])),
            );
            let mut gone: Vec<_> = before.into_values().collect();
            gone.sort_by_key(|(key, _)| *key);
            plan.removed.extend(gone);
            let before = records.get(&change.rel).and_then(|r| r.session.clone());
            if before.is_some() || change.session.is_some() {
                plan.sessions.push((before, change.session.clone()));
            }
            let record = change.source.as_ref().map(|s| {
                let smudged = now - s.mtime_ns < RACY_WINDOW_NS;
                FileRecord {
                    size: s.size,
                    mtime_ns: if smudged { SMUDGED } else { s.mtime_ns },
                    keys,
                    sha256: change.sha256.clone().filter(|_| smudged),
                    session: change.session.clone(),
                    asks: change.asks,
                }
            });
            plan.records.push((change.rel.clone(), record));
        }
        Ok(plan)
    }

    /// Each changed session file's record made again from its items as
    /// the learned check judged them (after the parse that made the
    /// record): its gist is one agents may be given, or none yet.
    pub(super) fn judge_sessions(&mut self) {
        let items: HashMap<u32, &Item> = self
            .added
            .iter()
            .chain(&self.kept)
            .map(|(key, item)| (*key, item))
            .collect();
        let mut judged = HashMap::new();
        for (_, record) in &mut self.records {
            let Some(FileRecord {
                keys,
                session: Some(session),
                ..
            }) = record
            else {
                continue;
            };
            let of_file: Vec<&Item> = keys.iter().filter_map(|k| items.get(k).copied()).collect();
            session.judged(&of_file);
            judged.insert(session.path.clone(), session.clone());
        }
        for (_, now) in &mut self.sessions {
            if let Some(session) = now {
                if let Some(judged) = judged.remove(&session.path) {
                    *session = judged;
                }
            }
        }
    }

    /// The items to embed: the new ones, and with `backfill` every item
    /// stored earlier without a vector, unless it leaves.
    pub(super) fn to_embed(
        &self,
        index: &Index,
        wtxn: &heed::RoTxn<heed::WithoutTls>,
        backfill: bool,
    ) -> Result<Vec<(u32, Item)>> {
        let mut to_embed = self.added.clone();
        if !backfill {
            return Ok(to_embed);
        }
        let gone: HashSet<u32> = self.removed.iter().map(|(k, _)| *k).collect();
        let kept_now: HashMap<u32, &Item> = self.kept.iter().map(|(k, i)| (*k, i)).collect();
        for key in index.keys_without_vectors(wtxn)? {
            if gone.contains(&key) {
                continue;
            }
            let item = match kept_now.get(&key) {
                Some(item) => (*item).clone(),
                None => match index.dbs.items.get(wtxn, &key)? {
                    Some(item) => item,
                    None => continue,
                },
            };
            to_embed.push((key, item));
        }
        Ok(to_embed)
    }
}
