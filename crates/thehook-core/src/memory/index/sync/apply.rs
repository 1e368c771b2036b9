//! Writing an [`ItemPlan`] into the databases, inside the sync's transaction.

use std::collections::{BTreeMap, HashSet};

use arroy::distances::BinaryQuantizedCosine;
use heed::PutFlags;
use heed::RwTxn;
use rand::SeedableRng;
use rayon::prelude::*;

use super::plan::ItemPlan;
use crate::error::Result;
use crate::memory::index::paths::{item_links, session_links};
use crate::memory::index::vectors::{encode, TREES};
use crate::memory::index::{
    decode_postings, encode_postings, recent_key, FileRecord, Header, Index, Key, TREES_INDEX,
};
use crate::store::item::Item;

/// Per term: keys whose postings leave, and (key, tf, doc length) that arrive.
type PostingsDelta = (Vec<u32>, Vec<(u32, u32, u32)>);

/// A fixed seed: the same markdown gives the same trees.
const TREE_SEED: u64 = 0x7e400c;

/// How to put `key`, given the largest key stored so far (updated): past
/// it, appended. Keys only grow (`Header::next_key`), so a sync's new
/// items and vectors go in at the end. Appended, LMDB fills each page
/// before it starts the next; put at the end without the flag, it splits
/// each full page in half and leaves the first half half empty for good,
/// and put in a random order, pages are about two thirds full (the
/// vectors of a team's year took 57 MB so, 38 MB appended).
fn put_flags(last: &mut Option<u32>, key: u32) -> PutFlags {
    let past = last.is_none_or(|last| key > last);
    *last = (*last).max(Some(key));
    match past {
        true => PutFlags::APPEND,
        false => PutFlags::empty(),
    }
}

/// The largest key of `db`, if it has any.
fn last_key<V>(wtxn: &RwTxn, db: heed::Database<Key, V>) -> Result<Option<u32>> {
    let keys = db.remap_data_type::<heed::types::DecodeIgnore>();
    Ok(keys.last(wtxn)?.map(|(key, ())| key))
}

impl Index {
    /// Items, ids, the `recent` order, replies and the lexical postings; the header's
    /// document counts follow.
    pub(super) fn apply_items(
        &self,
        wtxn: &mut RwTxn,
        plan: &ItemPlan,
        header: &mut Header,
    ) -> Result<()> {
        let frequencies = |items: &[(u32, Item)]| -> Vec<_> {
            items
                .par_iter()
                .map(|(_, item)| self.analyzer.term_frequencies(&item.text))
                .collect()
        };
        let (removed_tf, added_tf) = (frequencies(&plan.removed), frequencies(&plan.added));
        let mut delta: BTreeMap<String, PostingsDelta> = BTreeMap::new();
        for ((key, item), (tf, len)) in plan.removed.iter().zip(removed_tf) {
            for term in tf.into_keys() {
                delta.entry(term).or_default().0.push(*key);
            }
            header.n_docs = header.n_docs.saturating_sub(1);
            header.total_len = header.total_len.saturating_sub(len as u64);
            self.dbs.items.delete(wtxn, key)?;
            self.dbs.ids.delete(wtxn, &item.id)?;
            self.dbs.recent.delete(wtxn, &recent_key(*key, item))?;
        }
        let mut last = last_key(wtxn, self.dbs.items)?;
        for ((key, item), (tf, len)) in plan.added.iter().zip(added_tf) {
            for (term, n) in tf {
                delta.entry(term).or_default().1.push((*key, n, len));
            }
            header.n_docs += 1;
            header.total_len += len as u64;
            let flags = put_flags(&mut last, *key);
            self.dbs.items.put_with_flags(wtxn, flags, key, item)?;
            self.dbs.ids.put(wtxn, &item.id, key)?;
            self.dbs.recent.put(wtxn, &recent_key(*key, item), key)?;
        }
        // Kept items may have moved lines or changed type: refresh their metadata.
        for (key, item) in &plan.kept_before {
            self.dbs.recent.delete(wtxn, &recent_key(*key, item))?;
        }
        for (key, item) in &plan.kept {
            self.dbs.items.put(wtxn, key, item)?;
            self.dbs.recent.put(wtxn, &recent_key(*key, item), key)?;
        }
        // Every item the changed files had, kept or not, leaves its old
        // link; the files' links as they are now are put back.
        for (key, _) in plan.removed.iter().chain(&plan.kept_before) {
            self.dbs.replies.delete(wtxn, key)?;
        }
        for (question, reply) in &plan.replies {
            self.dbs.replies.put(wtxn, question, reply)?;
        }
        self.apply_postings(wtxn, delta)?;
        self.apply_paths(wtxn, plan)
    }

    /// Removed items' links to the files they name leave and new items'
    /// arrive; kept items' links are put back as they read now (their kind
    /// or date, which order the links, may have changed); a changed session
    /// file's links are replaced.
    fn apply_paths(&self, wtxn: &mut RwTxn, plan: &ItemPlan) -> Result<()> {
        for (key, item) in plan.removed.iter().chain(&plan.kept_before) {
            for link in item_links(*key, item) {
                self.dbs.paths.delete(wtxn, &link)?;
            }
        }
        for (key, item) in plan.added.iter().chain(&plan.kept) {
            for link in item_links(*key, item) {
                self.dbs.paths.put(wtxn, &link, &())?;
            }
        }
        for (before, now) in &plan.sessions {
            for link in before.iter().flat_map(session_links) {
                self.dbs.paths.delete(wtxn, &link)?;
            }
            for link in now.iter().flat_map(session_links) {
                self.dbs.paths.put(wtxn, &link, &())?;
            }
        }
        Ok(())
    }

    fn apply_postings(
        &self,
        wtxn: &mut RwTxn,
        delta: BTreeMap<String, PostingsDelta>,
    ) -> Result<()> {
        for (term, (gone, new)) in delta {
            let gone: HashSet<u32> = gone.into_iter().collect();
            let mut list = match self.dbs.postings.get(wtxn, &term)? {
                Some(bytes) => decode_postings(bytes),
                None => Vec::new(),
            };
            list.retain(|(k, _, _)| !gone.contains(k));
            list.extend(new);
            list.sort_unstable_by_key(|p| p.0);
            if list.is_empty() {
                self.dbs.postings.delete(wtxn, &term)?;
            } else {
                self.dbs
                    .postings
                    .put(wtxn, &term, &encode_postings(&list))?;
            }
        }
        Ok(())
    }

    /// Removed items' vectors leave, new ones arrive (in half precision,
    /// and as arroy's one-bit codes), then, with `build`, arroy rebuilds
    /// its trees. Without any vector (lexical-only, never embedded)
    /// nothing is done.
    pub(super) fn apply_vectors(
        &self,
        wtxn: &mut RwTxn,
        removed: &[(u32, Item)],
        embedded: &[(u32, Item)],
        vectors: Option<&[Vec<f32>]>,
        header: &mut Header,
        build: bool,
    ) -> Result<()> {
        let dims = vectors
            .and_then(|v| v.first().map(Vec::len))
            .or(header.dims);
        let Some(dims) = dims else { return Ok(()) };
        header.dims = Some(dims);
        let writer = arroy::Writer::<BinaryQuantizedCosine>::new(self.dbs.trees, TREES_INDEX, dims);
        for (key, _) in removed {
            writer.del_item(wtxn, *key)?;
            self.dbs.vectors.delete(wtxn, key)?;
        }
        let mut arriving: Vec<(u32, &Vec<f32>)> = embedded
            .iter()
            .map(|(key, _)| *key)
            .zip(vectors.unwrap_or_default())
            .collect();
        arriving.sort_unstable_by_key(|(key, _)| *key);
        let mut last = last_key(wtxn, self.dbs.vectors)?;
        for (key, vector) in arriving {
            writer.add_item(wtxn, key, vector)?;
            let flags = put_flags(&mut last, key);
            self.dbs
                .vectors
                .put_with_flags(wtxn, flags, &key, &encode(vector))?;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(TREE_SEED);
        if build && writer.need_build(wtxn)? {
            writer.builder(&mut rng).n_trees(TREES).build(wtxn)?;
        }
        Ok(())
    }

    /// The changed files' records, so the next sync skips them.
    pub(super) fn apply_records(
        &self,
        wtxn: &mut RwTxn,
        records: &[(String, Option<FileRecord>)],
    ) -> Result<()> {
        for (rel, record) in records {
            match record {
                Some(r) => self.dbs.files.put(wtxn, rel, r)?,
                None => {
                    self.dbs.files.delete(wtxn, rel)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key past every stored one is appended; one below (an item stored
    /// without its vector, embedded later) is put in its place, since
    /// LMDB refuses to append it.
    #[test]
    fn only_keys_past_the_last_are_appended() {
        let mut last = None;
        assert_eq!(put_flags(&mut last, 4), PutFlags::APPEND);
        assert_eq!(put_flags(&mut last, 9), PutFlags::APPEND);
        assert_eq!(put_flags(&mut last, 2), PutFlags::empty());
        assert_eq!(last, Some(9));
        assert_eq!(put_flags(&mut last, 9), PutFlags::empty());
        assert_eq!(put_flags(&mut last, 10), PutFlags::APPEND);
    }
}
