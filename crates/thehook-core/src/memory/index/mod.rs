//! The index: one LMDB environment (heed) at `.thehook/index/` holding
//! vectors and arroy's trees, item metadata, lexical postings and a header. It is a cache of the
//! markdown: anything wrong with it (corruption, another model, another
//! schema) is cured by rebuilding from the markdown, never by failing.
//!
//! Here: the header, the records and the reads by key, type and date. Beside:
//! [`environment`] (LMDB opened once per process, the databases),
//! [`postings`] (BM25 over the postings), [`vectors`] (half-precision
//! vectors, compared all or through arroy's trees), [`paths`] (from a file to the items and sessions about it),
//! [`sessions`] (every session's record as one value), [`session_keys`]
//! (the sessions keyed as the hooks ask for them), [`sync`] (markdown
//! into the index), [`mdb_check`] (a damaged file found before LMDB reads
//! it).

#[cfg(test)]
mod dump;
mod environment;
mod mdb_check;
mod paths;
mod postings;
mod session_keys;
mod sessions;
mod sync;
#[cfg(test)]
mod tests;
mod vectors;

// LMDB's Windows lock setup calls advapi32 (InitializeSecurityDescriptor,
// SetSecurityDescriptorDacl), and lmdb-master-sys does not link it: the
// Windows build failed to link here (mingw), as heed's own CI did on MSVC
// (meilisearch/heed#343). Rust's std no longer links advapi32 for us.
#[cfg(windows)]
#[link(name = "advapi32")]
unsafe extern "system" {}

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use heed::types::U32;
use heed::{byteorder::BigEndian, Env, WithoutTls};
use serde::{Deserialize, Serialize};

pub(crate) use mdb_check::check_data_file;
pub(crate) use paths::{AboutFile, FileNames};
pub(crate) use sync::{learned_check, SyncPlan, SyncStats};
pub use sync::{Embedding, Focus};

use environment::{open_dbs, open_env, wipe, Dbs, Lease};
use postings::{decode_postings, encode_postings};

use crate::error::Result;
use crate::memory::session::SessionRecord;
use crate::project::Project;
use crate::store::item::{Item, ItemKind};
use crate::store::Stamp;
use crate::text::analysis::lexical::Analyzer;

use crate::model::LEXICAL_ONLY;

/// Bump when the stored layout or the analyzer changes: old indexes rebuild.
pub(crate) const SCHEMA_VERSION: u32 = 15;
/// The schemas before, which differ only by what [`Index::upgrade`] adds:
/// their indexes are brought up to date, not rebuilt.
const UPGRADED_IN_PLACE: [u32; 2] = [13, 14];
/// The first schema whose index keeps the sessions' keys.
const SESSION_KEYS_SINCE: u32 = 14;

/// The one arroy index in the `trees` database.
const TREES_INDEX: u16 = 0;

type Key = U32<BigEndian>;

/// What the index says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Header {
    pub schema: u32,
    /// The fingerprint of the model the stored vectors came from, or
    /// `lexical-only` while no vector was ever stored.
    pub fingerprint: String,
    /// Items were added while no model was available: they have no vector
    /// yet, and the next sync with the model embeds them.
    #[serde(default)]
    pub missing_vectors: bool,
    /// Vector dimensions, once the first vector is stored.
    pub dims: Option<usize>,
    pub next_key: u32,
    pub n_docs: u32,
    pub total_len: u64,
    /// The markdown folders as of the last sync that matched them, for the
    /// hooks' quick check ([`crate::store::Stamp`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
    /// What the verdicts on action lines depend on beside their files, as
    /// of the last sync that judged them (`policy::verify::trust_stamp`):
    /// when it no longer holds, every file holding one is judged again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Stamp>,
}

/// What the index remembers of each markdown file, to see what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    pub size: u64,
    /// The file's mtime, or a value no file has when it was too recent to
    /// trust (see `sync::RACY_WINDOW_NS`).
    pub mtime_ns: i128,
    pub keys: Vec<u32>,
    /// The SHA-256 of the bytes indexed, kept while the mtime is not
    /// (smudged): a file read again in that window with the same bytes is
    /// not parsed again (`sync::plan::unchanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A session file's facts, for session start to rank it by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionRecord>,
    /// An item of the file asks for an action (`policy::verify`): the file
    /// is judged again when what the verdict depends on changes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub asks: bool,
}

/// Restricts search results.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    pub(crate) kinds: Vec<ItemKind>,
    pub(crate) since: Option<jiff::Timestamp>,
    /// Only what an agent may be given: no withheld item
    /// ([`crate::text::safety`]). Every agent-facing search sets it.
    pub(crate) agents_only: bool,
}

impl Filter {
    /// What an agent may be given, of any type and date.
    pub(crate) fn for_agents() -> Filter {
        Filter {
            agents_only: true,
            ..Filter::default()
        }
    }
    /// No type or date bound (what the `recent` keys can pre-select).
    pub(crate) fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.since.is_none()
    }
    pub(crate) fn accepts(&self, item: &Item) -> bool {
        (!self.agents_only || item.for_agents())
            && (self.kinds.is_empty() || self.kinds.contains(&item.kind))
            && self.since.is_none_or(|since| {
                item.date
                    .parse::<jiff::Timestamp>()
                    .is_ok_and(|d| d >= since)
            })
    }
}

/// Candidates of both retrievers for one query, read in one transaction.
#[derive(Debug, Default)]
pub struct Candidates {
    /// Best first: (item, BM25 score).
    pub lexical: Vec<(Item, f32)>,
    /// Best first: (item, cosine similarity).
    pub vector: Vec<(Item, f32)>,
}

/// Counts for `status`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexStats {
    pub items: u64,
    pub files: u64,
    pub vectors: u64,
    pub by_type: std::collections::BTreeMap<String, u64>,
    pub fingerprint: String,
    pub schema: u32,
    pub size_bytes: u64,
}

/// An open index.
pub(crate) struct Index {
    env: Env<WithoutTls>,
    dbs: Dbs,
    path: PathBuf,
    analyzer: Analyzer,
    _lease: Lease,
}

impl Index {
    /// Opens (creating if needed) the index of `project` for the model with
    /// `fingerprint`. Returns the index and, if it had to be rebuilt, why.
    /// A rebuilt index is empty: the caller syncs it from markdown.
    /// A full disk is said as such ([`Error::when_disk_full`]).
    pub(crate) fn open(project: &Project, fingerprint: &str) -> Result<(Index, Option<String>)> {
        Self::open_or_rebuild(project, fingerprint)
            .map_err(|e| e.when_disk_full(&project.index_dir()))
    }

    fn open_or_rebuild(project: &Project, fingerprint: &str) -> Result<(Index, Option<String>)> {
        let path = project.index_dir();
        let data = path.join("data.mdb");
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        let mut reason = None;
        // Open in this process already: share it (checked when it was opened).
        let (env, lease) = match Lease::existing(&key) {
            Some(shared) => shared,
            None => {
                let env = Self::open_new(project, &path, &data, &mut reason)?;
                let lease = Lease::new(&key, &env);
                (env, lease)
            }
        };
        let dbs = open_dbs(&env)?;
        let index = Index {
            env,
            dbs,
            path,
            analyzer: Analyzer::default(),
            _lease: lease,
        };
        Self::check_header(index, fingerprint, reason)
    }

    /// Opens the environment at `path` for the first time in this process,
    /// checking the file first and rebuilding a damaged one (`reason` says why).
    fn open_new(
        project: &Project,
        path: &Path,
        data: &Path,
        reason: &mut Option<String>,
    ) -> Result<Env<WithoutTls>> {
        let path = path.to_path_buf();
        // The common case: a sound file that opens. No lock, so a reader
        // never waits for a writer that holds it.
        let sound = data.exists() && check_data_file(data).is_ok();
        let env = match sound.then(|| open_env(&path)) {
            Some(Ok(env)) => env,
            // Opened already by this process: never wipe a live environment.
            Some(Err(e @ heed::Error::EnvAlreadyOpened)) => return Err(e.into()),
            _ => {
                // Creating, or repairing. Another process may be creating the
                // environment right now (an empty data.mdb looks damaged):
                // check, wipe and open one at a time, and check again.
                let _lock = project.lock()?;
                if let Err(why) = check_data_file(data) {
                    wipe(&path)?;
                    *reason = Some(format!("the index file was damaged ({why})"));
                }
                match open_env(&path) {
                    Ok(env) => env,
                    Err(e @ heed::Error::EnvAlreadyOpened) => return Err(e.into()),
                    // No room: wiping would lose the index and not help.
                    Err(e) if matches!(&e, heed::Error::Io(io) if crate::error::is_full(io)) => {
                        return Err(e.into())
                    }
                    Err(why) => {
                        wipe(&path)?;
                        *reason = Some(format!("the index could not be opened ({why})"));
                        open_env(&path)?
                    }
                }
            }
        };
        Ok(env)
    }

    /// Clears an index without a header or of another model (or schema).
    fn check_header(
        index: Index,
        fingerprint: &str,
        mut reason: Option<String>,
    ) -> Result<(Index, Option<String>)> {
        match index.header()? {
            None => index.clear(fingerprint)?,
            Some(header) if UPGRADED_IN_PLACE.contains(&header.schema) => {
                index.upgrade()?;
                return Self::check_header(index, fingerprint, reason);
            }
            Some(header) => {
                if let Some(why) = stale_reason(&header, fingerprint) {
                    index.clear(fingerprint)?;
                    reason = reason.or(Some(why));
                }
            }
        }
        Ok((index, reason))
    }

    /// Brings an index of [`UPGRADED_IN_PLACE`] to this schema: one of 13
    /// lacks the sessions' keys, written from its sessions list; both lack
    /// the verdicts on action lines, so the files holding one are marked to
    /// be judged by the next sync. (A team's year takes a fraction of a
    /// second; a rebuild, minutes.)
    fn upgrade(&self) -> Result<()> {
        let mut wtxn = self.env.write_txn()?;
        // Another process may have upgraded it since it was read.
        let Some(mut header) = self.dbs.header.get(&wtxn, "header")? else {
            return Ok(());
        };
        if !UPGRADED_IN_PLACE.contains(&header.schema) {
            return Ok(());
        }
        if header.schema < SESSION_KEYS_SINCE {
            let sessions = self.sessions_in(&wtxn)?;
            self.rebuild_session_keys(&mut wtxn, &sessions)?;
        }
        self.mark_asking(&mut wtxn)?;
        // No trust stamp: the next sync judges the marked files.
        header.trust = None;
        header.schema = SCHEMA_VERSION;
        self.dbs.header.put(&mut wtxn, "header", &header)?;
        Ok(wtxn.commit()?)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn header(&self) -> Result<Option<Header>> {
        let rtxn = self.env.read_txn()?;
        Ok(self.dbs.header.get(&rtxn, "header")?)
    }

    /// Empties every database and writes a fresh header.
    pub(crate) fn clear(&self, fingerprint: &str) -> Result<()> {
        let mut wtxn = self.env.write_txn()?;
        self.clear_in(&mut wtxn, fingerprint)?;
        Ok(wtxn.commit()?)
    }

    /// [`Index::clear`] inside a caller's transaction, so that a rebuild is
    /// one commit: readers see the old index until the new one is complete.
    fn clear_in(&self, wtxn: &mut heed::RwTxn, fingerprint: &str) -> Result<()> {
        let d = self.dbs;
        d.items.clear(wtxn)?;
        d.ids.clear(wtxn)?;
        d.files.clear(wtxn)?;
        d.postings.clear(wtxn)?;
        d.recent.clear(wtxn)?;
        d.replies.clear(wtxn)?;
        d.paths.clear(wtxn)?;
        d.vectors.clear(wtxn)?;
        d.trees.clear(wtxn)?;
        self.forget_sessions(wtxn)?;
        let header = Header {
            schema: SCHEMA_VERSION,
            fingerprint: fingerprint.to_string(),
            missing_vectors: false,
            dims: None,
            next_key: 0,
            n_docs: 0,
            total_len: 0,
            stamp: None,
            trust: None,
        };
        Ok(d.header.put(wtxn, "header", &header)?)
    }

    /// The file records, to diff against the markdown on disk.
    pub(crate) fn file_records(&self) -> Result<HashMap<String, FileRecord>> {
        let rtxn = self.env.read_txn()?;
        let mut out = HashMap::new();
        for entry in self.dbs.files.iter(&rtxn)? {
            let (k, v) = entry?;
            out.insert(k.to_string(), v);
        }
        Ok(out)
    }

    /// Makes the next sync read the file `rel` again: a release changes
    /// the verdicts of its items, not its bytes.
    pub(crate) fn reread(&self, rel: &str) -> Result<()> {
        let mut wtxn = self.env.write_txn()?;
        if let Some(mut record) = self.dbs.files.get(&wtxn, rel)? {
            record.mtime_ns = i128::MIN;
            // Not the same bytes as far as the sync can tell.
            record.sha256 = None;
            self.dbs.files.put(&mut wtxn, rel, &record)?;
        }
        // No folder moved: the hooks' quick check must not skip the file.
        if let Some(mut header) = self.dbs.header.get(&wtxn, "header")? {
            header.stamp = None;
            self.dbs.header.put(&mut wtxn, "header", &header)?;
        }
        Ok(wtxn.commit()?)
    }

    /// Marks the files holding an item that asks for an action, as an index
    /// of a schema that kept no such mark holds them.
    fn mark_asking(&self, wtxn: &mut heed::RwTxn) -> Result<()> {
        let mut asking = std::collections::BTreeSet::new();
        for entry in self.dbs.items.iter(wtxn)? {
            let (_, item) = entry?;
            if crate::policy::actions::action_of(&item.text).is_some() {
                asking.insert(item.path);
            }
        }
        for rel in asking {
            if let Some(mut record) = self.dbs.files.get(wtxn, &rel)? {
                record.asks = true;
                self.dbs.files.put(wtxn, &rel, &record)?;
            }
        }
        Ok(())
    }

    /// Makes the next sync read again every file holding an action line:
    /// what their verdicts depend on beside the files changed.
    pub(crate) fn reread_asking(&self) -> Result<usize> {
        let mut wtxn = self.env.write_txn()?;
        let mut asking = Vec::new();
        for entry in self.dbs.files.iter(&wtxn)? {
            let (rel, record) = entry?;
            if record.asks {
                asking.push((rel.to_string(), record));
            }
        }
        for (rel, mut record) in asking.iter().cloned() {
            record.mtime_ns = i128::MIN;
            record.sha256 = None;
            self.dbs.files.put(&mut wtxn, &rel, &record)?;
        }
        wtxn.commit()?;
        Ok(asking.len())
    }

    /// Both retrievers' candidates for a query, in one read transaction.
    pub(crate) fn candidates(
        &self,
        query: &str,
        query_vector: Option<&[f32]>,
        limit: usize,
        filter: &Filter,
    ) -> Result<Candidates> {
        let vector = query_vector.map(<[f32]>::to_vec);
        self.candidates_then_vector(query, || Ok(vector), limit, filter)
    }

    /// [`Index::candidates`] with the query vector asked for only after the
    /// lexical search, so a vector still being computed on another thread
    /// overlaps with it.
    pub(crate) fn candidates_then_vector(
        &self,
        query: &str,
        query_vector: impl FnOnce() -> Result<Option<Vec<f32>>>,
        limit: usize,
        filter: &Filter,
    ) -> Result<Candidates> {
        let rtxn = self.env.read_txn()?;
        let header = self.dbs.header.get(&rtxn, "header")?;
        let Some(header) = header else {
            return Ok(Candidates::default());
        };
        let lexical = self
            .lexical_matches(&rtxn, &header, &self.query_terms(query), limit, filter)?
            .into_iter()
            .map(|m| (m.item, m.score))
            .collect();
        let vector = match query_vector()? {
            Some(v) => self.vector(&rtxn, &v, limit, filter)?,
            None => Vec::new(),
        };
        Ok(Candidates { lexical, vector })
    }

    /// The newest items of the given types, newest first (at most `limit`).
    pub(crate) fn recent(&self, kinds: &[ItemKind], limit: usize) -> Result<Vec<Item>> {
        let rtxn = self.env.read_txn()?;
        let mut found: Vec<(String, u32)> = Vec::new();
        for kind in kinds {
            let prefix = format!("{kind}\0");
            let iter = self.dbs.recent.rev_prefix_iter(&rtxn, &prefix)?;
            for entry in iter.take(limit) {
                let (k, key) = entry?;
                let date = k[prefix.len()..].to_string();
                found.push((date, key));
            }
        }
        found.sort_by(|a, b| b.cmp(a));
        let mut out = Vec::with_capacity(limit.min(found.len()));
        for (_, key) in found.into_iter().take(limit) {
            if let Some(item) = self.dbs.items.get(&rtxn, &key)? {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// Every item, in key order.
    pub(crate) fn all_items(&self) -> Result<Vec<Item>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::new();
        for entry in self.dbs.items.iter(&rtxn)? {
            out.push(entry?.1);
        }
        Ok(out)
    }

    /// The items `cited` (`path:line`, as [`Item::citation`] writes them),
    /// in that order; a citation no item has now is passed over.
    pub(crate) fn items_cited(&self, cited: &[String]) -> Result<Vec<Item>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::with_capacity(cited.len());
        for citation in cited {
            let Some((path, line)) = citation.rsplit_once(':') else {
                continue;
            };
            let Some(record) = self.dbs.files.get(&rtxn, path)? else {
                continue;
            };
            for key in record.keys {
                match self.dbs.items.get(&rtxn, &key)? {
                    Some(item) if item.line_start.to_string() == line => {
                        out.push(item);
                        break;
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    /// Items whose id starts with `prefix` (at most `limit`).
    pub(crate) fn items_by_id_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<Item>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::new();
        for entry in self.dbs.ids.prefix_iter(&rtxn, prefix)? {
            let (_, key) = entry?;
            if let Some(item) = self.dbs.items.get(&rtxn, &key)? {
                out.push(item);
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    pub(crate) fn stats(&self) -> Result<IndexStats> {
        let rtxn = self.env.read_txn()?;
        let header = self.dbs.header.get(&rtxn, "header")?;
        let mut by_type = std::collections::BTreeMap::new();
        for entry in self.dbs.items.iter(&rtxn)? {
            *by_type.entry(entry?.1.kind.to_string()).or_insert(0) += 1;
        }
        let vectors = self.dbs.vectors.len(&rtxn)?;
        let size_bytes = std::fs::metadata(self.path.join("data.mdb")).map_or(0, |m| m.len());
        Ok(IndexStats {
            items: self.dbs.items.len(&rtxn)?,
            files: self.dbs.files.len(&rtxn)?,
            vectors,
            by_type,
            fingerprint: header
                .as_ref()
                .map_or(String::new(), |h| h.fingerprint.clone()),
            schema: header.map_or(SCHEMA_VERSION, |h| h.schema),
            size_bytes,
        })
    }
}

/// Why an index with `header` cannot serve `fingerprint`, if it cannot.
fn stale_reason(header: &Header, fingerprint: &str) -> Option<String> {
    if header.schema != SCHEMA_VERSION {
        return Some(format!(
            "the index format changed (schema {} -> {SCHEMA_VERSION})",
            header.schema
        ));
    }
    // Without a model the stored vectors are kept for when it is back, and an
    // index without vectors gets them added by the next sync: only a
    // different real model invalidates them.
    let other_model = header.fingerprint != fingerprint
        && header.fingerprint != LEXICAL_ONLY
        && fingerprint != LEXICAL_ONLY;
    other_model.then(|| {
        format!(
            "the embedding model changed ({} -> {fingerprint})",
            header.fingerprint
        )
    })
}

/// The key of an item in the `recent` database: type, then a date that sorts
/// as text, then the item's key.
fn recent_key(key: u32, item: &Item) -> String {
    let seconds = item
        .date
        .parse::<jiff::Timestamp>()
        .map(|t| t.as_second().max(0))
        .unwrap_or(0);
    format!("{}\0{seconds:012}\0{key:08x}", item.kind)
}
