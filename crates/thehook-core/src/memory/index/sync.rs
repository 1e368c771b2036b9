//! Bringing the index up to date with the markdown, file by file: unchanged
//! files cost one `stat`, changed files are re-parsed, and only items whose
//! text is new are embedded.

use std::collections::{BTreeMap, HashMap, HashSet};

use arroy::distances::Cosine;
use rand::SeedableRng;
use rayon::prelude::*;

use super::{decode_postings, encode_postings, recent_key, FileRecord, Header, Index, ARROY_INDEX};
use crate::error::Result;
use crate::memory::embed::{embed_all, Availability};
use crate::memory::item::Item;
use crate::memory::store::{list_sources, read_source, SourceFile};
use crate::project::Project;

/// How to embed new items during a sync.
pub struct SyncPlan<'a> {
    /// `Ready` to embed; `Missing` for a lexical-only index.
    pub availability: &'a Availability,
    /// Start from an empty index (in the same transaction as the new
    /// contents, so readers never see it empty).
    pub rebuild: bool,
    /// Called with (items embedded so far, items to embed).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SyncStats {
    pub files_changed: usize,
    pub items_added: usize,
    pub items_removed: usize,
    pub items_embedded: usize,
    /// Findings about the markdown (bad front matter, non-UTF-8 bytes...).
    pub warnings: Vec<String>,
}

struct FileChange {
    rel: String,
    /// `None`: the file is gone.
    source: Option<SourceFile>,
    items: Vec<Item>,
}

/// The mtime recorded for a file too new to trust: matches no real file.
const SMUDGED: i128 = i128::MIN;

/// Per term: keys whose postings leave, and (key, tf, doc length) that arrive.
type PostingsDelta = (Vec<u32>, Vec<(u32, u32, u32)>);

/// A file modified this shortly before it is indexed may change again within
/// the file system's timestamp granularity, keeping its size and mtime
/// (git's "racy clean" problem). Its record stores no mtime ("smudged", as
/// git does), so the next sync reads it again; once it is older than this,
/// its real mtime is recorded and it costs one `stat` from then on.
const RACY_WINDOW_NS: i128 = 2_000_000_000;

impl Index {
    /// Makes the index match the markdown of `project`.
    pub fn sync(&self, project: &Project, plan: &SyncPlan) -> Result<SyncStats> {
        let mut stats = SyncStats::default();
        let sources = list_sources(project, &mut stats.warnings);
        let embedding = matches!(plan.availability, Availability::Ready { .. });
        // Cheap check under a read transaction: most calls change nothing.
        let backfill_due = embedding
            && self
                .header()?
                .is_some_and(|h| needs_backfill(&h, plan.availability));
        if !plan.rebuild
            && !backfill_due
            && self
                .changed_files(&sources, &self.file_records()?)
                .is_empty()
        {
            return Ok(stats);
        }
        let mut wtxn = self.env.write_txn().map_err(|e| self.err(e))?;
        if plan.rebuild {
            self.clear_in(&mut wtxn, &plan.availability.fingerprint())?;
        }
        // Diff again under the write lock: another process may have synced.
        let mut records = HashMap::new();
        for entry in self.dbs.files.iter(&wtxn).map_err(|e| self.err(e))? {
            let (k, v) = entry.map_err(|e| self.err(e))?;
            records.insert(k.to_string(), v);
        }
        let changed = self.changed_files(&sources, &records);
        let mut header: Header = self
            .dbs
            .header
            .get(&wtxn, "header")
            .map_err(|e| self.err(e))?
            .ok_or_else(|| self.err("the header is missing"))?;
        let backfill = embedding && needs_backfill(&header, plan.availability);
        if changed.is_empty() && !plan.rebuild && !backfill {
            return Ok(stats);
        }
        // Parsing is independent per file: spread it over the cores.
        let parsed: Vec<_> = changed
            .into_par_iter()
            .map(|(rel, source)| {
                let read = source.as_ref().map(read_source);
                (rel, source, read)
            })
            .collect();
        let mut changes = Vec::with_capacity(parsed.len());
        for (rel, source, read) in parsed {
            let items = match read {
                Some(Ok(file)) => {
                    stats.warnings.extend(file.warnings);
                    file.items
                }
                Some(Err(e)) => {
                    // Keep what was indexed for a file we cannot read now.
                    stats
                        .warnings
                        .push(format!("{e}; its items are left as they were"));
                    continue;
                }
                None => Vec::new(),
            };
            changes.push(FileChange { rel, source, items });
        }
        stats.files_changed = changes.len();

        // Which items are new, which stay (keeping their key and vector), which go.
        let mut removed: Vec<(u32, Item)> = Vec::new();
        let mut added: Vec<(u32, Item)> = Vec::new();
        let mut kept: Vec<(u32, Item)> = Vec::new();
        // Kept items as they were indexed, to move their `recent` entries.
        let mut kept_before: Vec<(u32, Item)> = Vec::new();
        let mut new_records: Vec<(String, Option<FileRecord>)> = Vec::new();
        for change in &changes {
            let old_keys = records
                .get(&change.rel)
                .map(|r| r.keys.clone())
                .unwrap_or_default();
            let mut old_by_id: HashMap<String, (u32, Item)> = HashMap::new();
            for key in old_keys {
                if let Some(item) = self.dbs.items.get(&wtxn, &key).map_err(|e| self.err(e))? {
                    old_by_id.insert(item.id.clone(), (key, item));
                }
            }
            let mut keys = Vec::with_capacity(change.items.len());
            for item in &change.items {
                match old_by_id.remove(&item.id) {
                    Some((key, before)) => {
                        keys.push(key);
                        kept.push((key, item.clone()));
                        kept_before.push((key, before));
                    }
                    None => {
                        let key = header.next_key;
                        header.next_key += 1;
                        keys.push(key);
                        added.push((key, item.clone()));
                    }
                }
            }
            removed.extend(old_by_id.into_values());
            let now = jiff::Timestamp::now().as_nanosecond();
            let record = change.source.as_ref().map(|s| FileRecord {
                size: s.size,
                mtime_ns: if now - s.mtime_ns < RACY_WINDOW_NS {
                    SMUDGED
                } else {
                    s.mtime_ns
                },
                keys,
            });
            new_records.push((change.rel.clone(), record));
        }

        // Items stored earlier without a vector get one now, unless they leave.
        let mut to_embed: Vec<(u32, Item)> = added.clone();
        if backfill {
            let gone: HashSet<u32> = removed.iter().map(|(k, _)| *k).collect();
            let kept_now: HashMap<u32, &Item> = kept.iter().map(|(k, i)| (*k, i)).collect();
            for key in self.keys_without_vectors(&wtxn)? {
                if gone.contains(&key) {
                    continue;
                }
                let item = match kept_now.get(&key) {
                    Some(item) => (*item).clone(),
                    None => match self.dbs.items.get(&wtxn, &key).map_err(|e| self.err(e))? {
                        Some(item) => item,
                        None => continue,
                    },
                };
                to_embed.push((key, item));
            }
        }

        // Embed before touching the databases, so a model failure changes nothing.
        let vectors = match plan.availability {
            Availability::Ready { .. } if !to_embed.is_empty() => {
                let texts: Vec<&str> = to_embed.iter().map(|(_, i)| i.text.as_str()).collect();
                let total = texts.len();
                (plan.progress)(0, total);
                let v = embed_all(plan.availability, &texts, &|done| {
                    (plan.progress)(done, total)
                })?;
                stats.items_embedded = v.len();
                Some(v)
            }
            _ => None,
        };

        let frequencies = |items: &[(u32, Item)]| -> Vec<_> {
            items
                .par_iter()
                .map(|(_, item)| self.analyzer.term_frequencies(&item.text))
                .collect()
        };
        let (removed_tf, added_tf) = (frequencies(&removed), frequencies(&added));
        let mut postings_delta: BTreeMap<String, PostingsDelta> = BTreeMap::new();
        for ((key, item), (tf, len)) in removed.iter().zip(removed_tf) {
            for term in tf.into_keys() {
                postings_delta.entry(term).or_default().0.push(*key);
            }
            header.n_docs = header.n_docs.saturating_sub(1);
            header.total_len = header.total_len.saturating_sub(len as u64);
            self.dbs
                .items
                .delete(&mut wtxn, key)
                .map_err(|e| self.err(e))?;
            self.dbs
                .ids
                .delete(&mut wtxn, &item.id)
                .map_err(|e| self.err(e))?;
            self.dbs
                .recent
                .delete(&mut wtxn, &recent_key(*key, item))
                .map_err(|e| self.err(e))?;
        }
        for ((key, item), (tf, len)) in added.iter().zip(added_tf) {
            for (term, n) in tf {
                postings_delta
                    .entry(term)
                    .or_default()
                    .1
                    .push((*key, n, len));
            }
            header.n_docs += 1;
            header.total_len += len as u64;
            self.dbs
                .items
                .put(&mut wtxn, key, item)
                .map_err(|e| self.err(e))?;
            self.dbs
                .ids
                .put(&mut wtxn, &item.id, key)
                .map_err(|e| self.err(e))?;
            self.dbs
                .recent
                .put(&mut wtxn, &recent_key(*key, item), key)
                .map_err(|e| self.err(e))?;
        }
        // Kept items may have moved lines or changed type: refresh their metadata.
        for (key, item) in &kept_before {
            self.dbs
                .recent
                .delete(&mut wtxn, &recent_key(*key, item))
                .map_err(|e| self.err(e))?;
        }
        for (key, item) in &kept {
            self.dbs
                .items
                .put(&mut wtxn, key, item)
                .map_err(|e| self.err(e))?;
            self.dbs
                .recent
                .put(&mut wtxn, &recent_key(*key, item), key)
                .map_err(|e| self.err(e))?;
        }
        for (term, (gone, new)) in postings_delta {
            let gone: HashSet<u32> = gone.into_iter().collect();
            let mut list = match self
                .dbs
                .postings
                .get(&wtxn, &term)
                .map_err(|e| self.err(e))?
            {
                Some(bytes) => decode_postings(bytes),
                None => Vec::new(),
            };
            list.retain(|(k, _, _)| !gone.contains(k));
            list.extend(new);
            list.sort_unstable_by_key(|p| p.0);
            if list.is_empty() {
                self.dbs
                    .postings
                    .delete(&mut wtxn, &term)
                    .map_err(|e| self.err(e))?;
            } else {
                self.dbs
                    .postings
                    .put(&mut wtxn, &term, &encode_postings(&list))
                    .map_err(|e| self.err(e))?;
            }
        }

        // Vectors: removed items leave, new ones arrive, then arroy rebuilds its trees.
        let dims = vectors
            .as_ref()
            .and_then(|v| v.first().map(Vec::len))
            .or(header.dims);
        if let Some(dims) = dims {
            header.dims = Some(dims);
            let writer = arroy::Writer::<Cosine>::new(self.dbs.vectors, ARROY_INDEX, dims);
            for (key, _) in &removed {
                writer.del_item(&mut wtxn, *key).map_err(|e| self.err(e))?;
            }
            if let Some(vectors) = &vectors {
                for ((key, _), vector) in to_embed.iter().zip(vectors) {
                    writer
                        .add_item(&mut wtxn, *key, vector)
                        .map_err(|e| self.err(e))?;
                }
            }
            if writer.need_build(&wtxn).map_err(|e| self.err(e))? {
                // A fixed seed: the same markdown gives the same trees.
                let mut rng = rand::rngs::StdRng::seed_from_u64(0x7e400c);
                writer
                    .builder(&mut rng)
                    .build(&mut wtxn)
                    .map_err(|e| self.err(e))?;
            }
        }

        if embedding {
            header.fingerprint = plan.availability.fingerprint();
            header.missing_vectors = false;
        } else if !added.is_empty() {
            header.missing_vectors = true;
        }

        for (rel, record) in new_records {
            match record {
                Some(r) => self
                    .dbs
                    .files
                    .put(&mut wtxn, &rel, &r)
                    .map_err(|e| self.err(e))?,
                None => {
                    self.dbs
                        .files
                        .delete(&mut wtxn, &rel)
                        .map_err(|e| self.err(e))?;
                }
            }
        }
        self.dbs
            .header
            .put(&mut wtxn, "header", &header)
            .map_err(|e| self.err(e))?;
        wtxn.commit().map_err(|e| self.err(e))?;
        stats.items_added = added.len();
        stats.items_removed = removed.len();
        Ok(stats)
    }

    /// Files that are new, changed (size or mtime) or gone, in path order.
    fn changed_files(
        &self,
        sources: &[SourceFile],
        records: &HashMap<String, FileRecord>,
    ) -> Vec<(String, Option<SourceFile>)> {
        let mut out = Vec::new();
        let present: HashSet<&str> = sources.iter().map(|s| s.rel.as_str()).collect();
        for s in sources {
            let same = records
                .get(&s.rel)
                .is_some_and(|r| r.size == s.size && r.mtime_ns == s.mtime_ns);
            if !same {
                out.push((s.rel.clone(), Some(s.clone())));
            }
        }
        let mut gone: Vec<&String> = records
            .keys()
            .filter(|k| !present.contains(k.as_str()))
            .collect();
        gone.sort();
        out.extend(gone.into_iter().map(|k| (k.clone(), None)));
        out
    }
}

/// Whether an index needs vectors for items stored without one.
fn needs_backfill(header: &Header, availability: &Availability) -> bool {
    header.missing_vectors
        || (header.fingerprint != availability.fingerprint() && header.n_docs > 0)
}
