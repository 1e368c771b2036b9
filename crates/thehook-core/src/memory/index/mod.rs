//! The index: one LMDB environment (heed) at `.thehook/index/` holding arroy
//! vectors, item metadata, lexical postings and a header. It is a cache of the
//! markdown: anything wrong with it (corruption, another model, another
//! schema) is cured by rebuilding from the markdown, never by failing.

#[cfg(test)]
mod dump;
mod mdb_check;
mod sync;
#[cfg(test)]
mod tests;

// LMDB's Windows lock setup calls advapi32 (InitializeSecurityDescriptor,
// SetSecurityDescriptorDacl), and lmdb-master-sys does not link it: the
// Windows build failed to link here (mingw), as heed's own CI did on MSVC
// (meilisearch/heed#343). Rust's std no longer links advapi32 for us.
#[cfg(windows)]
#[link(name = "advapi32")]
unsafe extern "system" {}

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arroy::distances::Cosine;
use heed::types::{Bytes, SerdeJson, Str, U32};
use heed::{byteorder::BigEndian, CommitOrAbort, Env, EnvOpenOptions, WithoutTls};
use roaring::RoaringBitmap;
use serde::{Deserialize, Serialize};

pub use mdb_check::check_data_file;
pub use sync::{SyncPlan, SyncStats};

use crate::error::{Error, Result};
use crate::memory::item::{Item, ItemKind};
use crate::memory::lexical::{bm25, Analyzer};
use crate::memory::session::SessionRecord;
use crate::project::Project;

pub use crate::memory::embed::LEXICAL_ONLY;

/// Bump when the stored layout or the analyzer changes: old indexes rebuild.
pub const SCHEMA_VERSION: u32 = 6;

/// The share of an asking item's BM25 score its reply gets: a reply rarely
/// repeats the words of the question it answers. A simulation of this
/// ranking on LoCoMo gained +0.042 (worst format) at 0.5, +0.043 at 0.7 and
/// +0.044 at 1.0; 0.7 did best combined with the other changes it tried.
/// Through the binary, 0.7 gave +0.048.
const REPLY_SHARE: f32 = 0.7;

/// LMDB's map is address space, not disk: the file grows as data is written.
const MAP_SIZE: usize = 8 << 30;
const ARROY_INDEX: u16 = 0;

type Key = U32<BigEndian>;

/// What the index says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
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
}

/// What the index remembers of each markdown file, to see what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub size: u64,
    /// The file's mtime, or a value no file has when it was too recent to
    /// trust (see `sync::RACY_WINDOW_NS`).
    pub mtime_ns: i128,
    pub keys: Vec<u32>,
    /// A session file's facts, for session start to rank it by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionRecord>,
}

#[derive(Clone, Copy)]
struct Dbs {
    header: heed::Database<'static, Str, SerdeJson<Header>>,
    items: heed::Database<'static, Key, SerdeJson<Item>>,
    ids: heed::Database<'static, Str, Key>,
    files: heed::Database<'static, Str, SerdeJson<FileRecord>>,
    postings: heed::Database<'static, Str, Bytes>,
    /// `<type>\0<date>\0<key>` → key: the newest items of a type, in order.
    recent: heed::Database<'static, Str, Key>,
    /// An item that asks → the item that replies to it (its share of the
    /// question's BM25 score, [`REPLY_SHARE`]).
    replies: heed::Database<'static, Key, Key>,
    vectors: arroy::Database<'static, Cosine>,
}

/// Restricts search results.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub kinds: Vec<ItemKind>,
    pub since: Option<jiff::Timestamp>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.since.is_none()
    }
    pub fn accepts(&self, item: &Item) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&item.kind))
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
pub struct Index {
    env: Env<WithoutTls>,
    dbs: Dbs,
    path: PathBuf,
    analyzer: Analyzer,
    /// Every vector, read once per snapshot: a process that stays open (the
    /// Node addon, the MCP server) then compares a query without reading
    /// 15 MB of LMDB pages per call at 10,000 items.
    vectors: std::sync::Mutex<Option<VectorCache>>,
    /// Vector searches so far (and reads ahead): the first goes through
    /// arroy's trees, so a one-shot process (a hook) does not read every
    /// vector unless it read them ahead.
    vector_searches: std::sync::atomic::AtomicUsize,
    _lease: Lease,
}

/// The vectors of one LMDB snapshot, flat, with their norms.
struct VectorCache {
    /// The write transaction they were read at.
    txn_id: usize,
    keys: Vec<u32>,
    norms: Vec<f32>,
    flat: Vec<f32>,
    dims: usize,
}

impl VectorCache {
    fn read(
        reader: &arroy::Reader<Cosine>,
        rtxn: &heed::RoTxn<WithoutTls>,
    ) -> arroy::Result<VectorCache> {
        let dims = reader.dimensions();
        let mut cache = VectorCache {
            txn_id: rtxn.id(),
            keys: Vec::with_capacity(reader.n_items() as usize),
            norms: Vec::with_capacity(reader.n_items() as usize),
            flat: Vec::with_capacity(reader.n_items() as usize * dims),
            dims,
        };
        for entry in reader.iter(rtxn)? {
            let (key, vector) = entry?;
            cache.keys.push(key);
            cache
                .norms
                .push(vector.iter().map(|x| x * x).sum::<f32>().sqrt());
            cache.flat.extend_from_slice(&vector);
        }
        Ok(cache)
    }

    /// The `limit` nearest keys among `allowed` (all without), as arroy's
    /// cosine distance, nearest first.
    fn nearest(
        &self,
        query: &[f32],
        allowed: Option<&RoaringBitmap>,
        limit: usize,
    ) -> Vec<(u32, f32)> {
        let query_norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut scored: Vec<(u32, f32)> = self
            .flat
            .chunks_exact(self.dims)
            .zip(&self.keys)
            .zip(&self.norms)
            .filter(|((_, key), _)| allowed.is_none_or(|a| a.contains(**key)))
            .map(|((vector, key), norm)| {
                let dot: f32 = vector.iter().zip(query).map(|(a, b)| a * b).sum();
                let cos = match norm * query_norm {
                    0.0 => 0.0,
                    n => dot / n,
                };
                (*key, (1.0 - cos) / 2.0)
            })
            .collect();
        scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }
}

/// Environments open in this process, by path, with how many leases hold
/// each. LMDB must not open one file twice in a process (heed refuses with
/// `EnvAlreadyOpened`), yet one process may hold several `Memory`s of a
/// project: the Node addon keeps one open while `cli()` opens another, and
/// the MCP server's outlives each call. They share one environment.
type OpenEnvs = std::sync::Mutex<HashMap<PathBuf, (Env<WithoutTls>, usize)>>;

fn open_envs() -> &'static OpenEnvs {
    static OPEN: std::sync::OnceLock<OpenEnvs> = std::sync::OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// A hold on a shared environment; the last one to go lets it close.
struct Lease {
    key: PathBuf,
}

impl Lease {
    /// The environment at `key` if this process has it open already.
    fn existing(key: &Path) -> Option<(Env<WithoutTls>, Lease)> {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        let (env, holders) = open.get_mut(key)?;
        *holders += 1;
        Some((
            env.clone(),
            Lease {
                key: key.to_path_buf(),
            },
        ))
    }

    fn new(key: &Path, env: &Env<WithoutTls>) -> Lease {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        open.entry(key.to_path_buf())
            .and_modify(|(_, holders)| *holders += 1)
            .or_insert_with(|| (env.clone(), 1));
        Lease {
            key: key.to_path_buf(),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, holders)) = open.get_mut(&self.key) {
            *holders -= 1;
            if *holders == 0 {
                open.remove(&self.key);
            }
        }
    }
}

impl Index {
    /// Opens (creating if needed) the index of `project` for the model with
    /// `fingerprint`. Returns the index and, if it had to be rebuilt, why.
    /// A rebuilt index is empty: the caller syncs it from markdown.
    pub fn open(project: &Project, fingerprint: &str) -> Result<(Index, Option<String>)> {
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
            vectors: Default::default(),
            vector_searches: Default::default(),
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
            Some(header) => {
                if let Some(why) = stale_reason(&header, fingerprint) {
                    index.clear(fingerprint)?;
                    reason = reason.or(Some(why));
                }
            }
        }
        Ok((index, reason))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> Result<Option<Header>> {
        let rtxn = self.env.read_txn()?;
        Ok(self.dbs.header.get(&rtxn, "header")?)
    }

    /// Empties every database and writes a fresh header.
    pub fn clear(&self, fingerprint: &str) -> Result<()> {
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
        d.vectors.clear(wtxn)?;
        let header = Header {
            schema: SCHEMA_VERSION,
            fingerprint: fingerprint.to_string(),
            missing_vectors: false,
            dims: None,
            next_key: 0,
            n_docs: 0,
            total_len: 0,
        };
        Ok(d.header.put(wtxn, "header", &header)?)
    }

    /// The file records, to diff against the markdown on disk.
    pub fn file_records(&self) -> Result<HashMap<String, FileRecord>> {
        let rtxn = self.env.read_txn()?;
        let mut out = HashMap::new();
        for entry in self.dbs.files.iter(&rtxn)? {
            let (k, v) = entry?;
            out.insert(k.to_string(), v);
        }
        Ok(out)
    }

    /// Both retrievers' candidates for a query, in one read transaction.
    pub fn candidates(
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
    pub fn candidates_then_vector(
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
        let lexical = self.lexical(&rtxn, &header, query, limit, filter)?;
        let vector = match query_vector()? {
            Some(v) => self.vector(&rtxn, &v, limit, filter)?,
            None => Vec::new(),
        };
        Ok(Candidates { lexical, vector })
    }

    fn lexical(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        header: &Header,
        query: &str,
        limit: usize,
        filter: &Filter,
    ) -> Result<Vec<(Item, f32)>> {
        let mut terms = self.analyzer.terms(query);
        terms.sort();
        terms.dedup();
        let avg_len = header.total_len as f32 / header.n_docs.max(1) as f32;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for term in &terms {
            let Some(bytes) = self.dbs.postings.get(rtxn, term)? else {
                continue;
            };
            let postings = decode_postings(bytes);
            let df = postings.len() as u32;
            for (key, tf, len) in postings {
                *scores.entry(key).or_insert(0.0) += bm25(tf, len, avg_len, df, header.n_docs);
            }
        }
        // Replies share their question's match, found or not on their own.
        // Most projects have none: then no key is looked up.
        let mut shares = Vec::new();
        let any_replies = !self.dbs.replies.is_empty(rtxn)?;
        for (&question, &score) in scores.iter().filter(|_| any_replies) {
            if let Some(reply) = self.dbs.replies.get(rtxn, &question)? {
                shares.push((reply, REPLY_SHARE * score));
            }
        }
        for (reply, share) in shares {
            *scores.entry(reply).or_insert(0.0) += share;
        }
        let mut ranked: Vec<(u32, f32)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out = Vec::with_capacity(limit);
        for (key, score) in ranked {
            if out.len() == limit {
                break;
            }
            if let Some(item) = self.dbs.items.get(rtxn, &key)? {
                if filter.accepts(&item) {
                    out.push((item, score));
                }
            }
        }
        Ok(out)
    }

    /// Reads every vector now, so that the next vector search scans them
    /// exactly instead of walking arroy's trees: worth it while the query
    /// vector is still being computed on another thread (a one-shot
    /// `recall`), when this thread would otherwise wait.
    pub fn read_vectors_ahead(&self) -> Result<()> {
        let rtxn = self.env.read_txn()?;
        let reader = match arroy::Reader::<Cosine>::open(&rtxn, ARROY_INDEX, self.dbs.vectors) {
            Ok(r) if r.n_items() <= EXACT_SCAN => r,
            Ok(_) | Err(arroy::Error::MissingMetadata(_)) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        drop(self.cached_vectors(&reader, &rtxn)?);
        // The next search may scan them: it would otherwise walk the trees.
        self.vector_searches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Every vector of `rtxn`'s snapshot, read now unless already read.
    fn cached_vectors(
        &self,
        reader: &arroy::Reader<Cosine>,
        rtxn: &heed::RoTxn<WithoutTls>,
    ) -> Result<std::sync::MutexGuard<'_, Option<VectorCache>>> {
        let mut cache = self.vectors.lock().unwrap_or_else(|p| p.into_inner());
        if cache.as_ref().is_none_or(|c| c.txn_id != rtxn.id()) {
            *cache = Some(VectorCache::read(reader, rtxn)?);
        }
        Ok(cache)
    }

    fn vector(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        query: &[f32],
        limit: usize,
        filter: &Filter,
    ) -> Result<Vec<(Item, f32)>> {
        let reader = match arroy::Reader::<Cosine>::open(rtxn, ARROY_INDEX, self.dbs.vectors) {
            Ok(r) => r,
            // No vector was ever stored (lexical-only, or an empty index).
            Err(arroy::Error::MissingMetadata(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        if reader.dimensions() != query.len() {
            return Ok(Vec::new());
        }
        let first_search = self
            .vector_searches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            == 0;
        if reader.n_items() <= EXACT_SCAN && !first_search {
            let allowed = match filter.is_empty() {
                true => None,
                false => Some(self.keys_matching(rtxn, filter)?),
            };
            let cache = self.cached_vectors(&reader, rtxn)?;
            let nearest =
                cache
                    .as_ref()
                    .expect("read above")
                    .nearest(query, allowed.as_ref(), limit);
            drop(cache);
            return self.items_at(rtxn, nearest);
        }
        let allowed;
        let mut q = reader.nns(limit);
        // Search many leaves: the index is small enough that near-exact
        // answers cost little, and exact answers keep rebuilds reproducible.
        let search_k = (limit * reader.n_trees().max(1) * 30).max(2000);
        q.search_k(std::num::NonZeroUsize::new(search_k).expect("non-zero"));
        if !filter.is_empty() {
            allowed = self.keys_matching(rtxn, filter)?;
            q.candidates(&allowed);
        }
        let hits = q.by_vector(rtxn, query)?;
        self.items_at(rtxn, hits)
    }

    /// The items of vector search hits, with similarity scores.
    fn items_at(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        hits: Vec<(u32, f32)>,
    ) -> Result<Vec<(Item, f32)>> {
        let mut out = Vec::with_capacity(hits.len());
        for (key, distance) in hits {
            if let Some(item) = self.dbs.items.get(rtxn, &key)? {
                // arroy's cosine distance is 1 - cos, halved into [0, 1].
                out.push((item, 1.0 - 2.0 * distance.clamp(0.0, 1.0)));
            }
        }
        Ok(out)
    }

    /// Keys of the items `filter` accepts, read from the `recent` database
    /// (type and date are in its keys), without loading any item.
    fn keys_matching(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        filter: &Filter,
    ) -> Result<RoaringBitmap> {
        let kinds: Vec<ItemKind> = if filter.kinds.is_empty() {
            ItemKind::ALL.to_vec()
        } else {
            filter.kinds.clone()
        };
        let since = filter.since.map(|t| t.as_second().max(0));
        let mut keys = RoaringBitmap::new();
        for kind in kinds {
            let prefix = format!("{kind}\0");
            let iter = self.dbs.recent.rev_prefix_iter(rtxn, &prefix)?;
            for entry in iter {
                let (k, key) = entry?;
                let seconds: i64 = k[prefix.len()..]
                    .split('\0')
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                // Newest first: the rest of this type is older still.
                if since.is_some_and(|since| seconds < since) {
                    break;
                }
                keys.insert(key);
            }
        }
        Ok(keys)
    }

    /// Keys of stored items that have no vector (added while no model was
    /// available).
    pub(super) fn keys_without_vectors(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
    ) -> Result<RoaringBitmap> {
        let mut keys = RoaringBitmap::new();
        for entry in self.dbs.ids.iter(rtxn)? {
            keys.insert(entry?.1);
        }
        match arroy::Reader::<Cosine>::open(rtxn, ARROY_INDEX, self.dbs.vectors) {
            Ok(reader) => keys -= reader.item_ids(),
            Err(arroy::Error::MissingMetadata(_)) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(keys)
    }

    /// The newest items of the given types, newest first (at most `limit`).
    pub fn recent(&self, kinds: &[ItemKind], limit: usize) -> Result<Vec<Item>> {
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

    /// Every session file's record, in path order.
    pub fn sessions(&self) -> Result<Vec<SessionRecord>> {
        let rtxn = self.env.read_txn()?;
        let prefix = crate::project::SESSIONS_PREFIX;
        let mut out = Vec::new();
        for entry in self.dbs.files.prefix_iter(&rtxn, prefix)? {
            if let Some(session) = entry?.1.session {
                out.push(session);
            }
        }
        Ok(out)
    }

    /// Every item, in key order.
    pub fn all_items(&self) -> Result<Vec<Item>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::new();
        for entry in self.dbs.items.iter(&rtxn)? {
            out.push(entry?.1);
        }
        Ok(out)
    }

    /// Items whose id starts with `prefix` (at most `limit`).
    pub fn items_by_id_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<Item>> {
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

    pub fn stats(&self) -> Result<IndexStats> {
        let rtxn = self.env.read_txn()?;
        let header = self.dbs.header.get(&rtxn, "header")?;
        let mut by_type = std::collections::BTreeMap::new();
        for entry in self.dbs.items.iter(&rtxn)? {
            *by_type.entry(entry?.1.kind.to_string()).or_insert(0) += 1;
        }
        let vectors = match arroy::Reader::<Cosine>::open(&rtxn, ARROY_INDEX, self.dbs.vectors) {
            Ok(r) => r.n_items(),
            Err(_) => 0,
        };
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

/// Up to this many vectors, a process's second and later vector searches
/// compare the query with every one ([`VectorCache`]) instead of walking
/// arroy's trees: exact, and faster once read (at 10,000 items the near-exact
/// tree walk took 13 ms of a warm recall; 384 floats by 50,000 is 77 MB at
/// most). The first search walks the trees: reading every vector would cost
/// a one-shot session start about 3 ms more.
const EXACT_SCAN: u64 = 50_000;

fn open_env(path: &Path) -> heed::Result<Env<WithoutTls>> {
    std::fs::create_dir_all(path)?;
    let mut options = EnvOpenOptions::new().read_txn_without_tls();
    options.map_size(MAP_SIZE).max_dbs(12);
    // SAFETY: the data file was checked against its meta pages above, and the
    // environment is opened once per process (shared through [`Lease`]).
    unsafe { options.open(path) }
}

/// Opens the databases with a read transaction when they exist, so that
/// opening never waits for another process's write (a long `reindex`);
/// creates them otherwise.
fn open_dbs(env: &Env<WithoutTls>) -> heed::Result<Dbs> {
    let rtxn = env.read_txn()?;
    let existing = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
            let all = (|| {
                Some((
                    dbo.open_database(rtxn, Some("header")).ok()??,
                    dbo.open_database(rtxn, Some("items")).ok()??,
                    dbo.open_database(rtxn, Some("ids")).ok()??,
                    dbo.open_database(rtxn, Some("files")).ok()??,
                    dbo.open_database(rtxn, Some("postings")).ok()??,
                    dbo.open_database(rtxn, Some("recent")).ok()??,
                    dbo.open_database(rtxn, Some("vectors")).ok()??,
                    dbo.open_database(rtxn, Some("replies")).ok()??,
                ))
            })();
            Ok(match all {
                Some(dbs) => CommitOrAbort::Commit(dbs),
                None => CommitOrAbort::Abort(()),
            })
        })?
        .commit();
    let dbs = match existing {
        Some(dbs) => dbs,
        None => {
            let wtxn = env.write_txn()?;
            env.create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit((
                    dbo.create_database(wtxn, Some("header"))?,
                    dbo.create_database(wtxn, Some("items"))?,
                    dbo.create_database(wtxn, Some("ids"))?,
                    dbo.create_database(wtxn, Some("files"))?,
                    dbo.create_database(wtxn, Some("postings"))?,
                    dbo.create_database(wtxn, Some("recent"))?,
                    dbo.create_database(wtxn, Some("vectors"))?,
                    dbo.create_database(wtxn, Some("replies"))?,
                )))
            })?
            .unwrap_commit()
        }
    };
    Ok(Dbs {
        header: dbs.0,
        items: dbs.1,
        ids: dbs.2,
        files: dbs.3,
        postings: dbs.4,
        recent: dbs.5,
        vectors: dbs.6,
        replies: dbs.7,
    })
}

/// Deletes the index folder's files (only LMDB's own two).
fn wipe(path: &Path) -> Result<()> {
    for name in ["data.mdb", "lock.mdb"] {
        let file = path.join(name);
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("cannot remove the damaged index file", file, e)),
        }
    }
    Ok(())
}

/// Postings are packed `(key, term frequency, document length)` triples of
/// little-endian u32, sorted by key.
fn decode_postings(bytes: &[u8]) -> Vec<(u32, u32, u32)> {
    bytes
        .chunks_exact(12)
        .map(|c| {
            let at = |i: usize| u32::from_le_bytes(c[i..i + 4].try_into().expect("4 bytes"));
            (at(0), at(4), at(8))
        })
        .collect()
}

fn encode_postings(postings: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 12);
    for (k, tf, len) in postings {
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&tf.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod shared_env_tests {
    use super::*;

    #[test]
    fn one_process_holds_the_same_index_twice_and_closes_it_after_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.dir()).unwrap();
        let (first, _) = Index::open(&project, "model-a").unwrap();
        // Without sharing, heed refuses this with EnvAlreadyOpened.
        let (second, rebuilt) = Index::open(&project, "model-a").unwrap();
        assert_eq!(rebuilt, None);
        drop(first);
        assert!(second.header().unwrap().is_some(), "still usable");
        drop(second);
        let key = project.index_dir().canonicalize().unwrap();
        let open = open_envs().lock().unwrap().contains_key(&key);
        assert!(!open, "closed when the last holder went");
        let (again, rebuilt) = Index::open(&project, "model-a").unwrap();
        assert_eq!(rebuilt, None);
        drop(again);
    }
}
