//! Vector search over the index: arroy's trees, or an exact scan of every
//! vector once a process has read them ([`VectorCache`]).

use arroy::distances::Cosine;
use heed::WithoutTls;
use roaring::RoaringBitmap;

use super::{Filter, Index, ARROY_INDEX};
use crate::error::Result;
use crate::memory::item::{Item, ItemKind};

/// Up to this many vectors, a process's second and later vector searches
/// compare the query with every one ([`VectorCache`]) instead of walking
/// arroy's trees: exact, and faster once read (at 10,000 items the near-exact
/// tree walk took 13 ms of a warm recall; 384 floats by 50,000 is 77 MB at
/// most). The first search walks the trees: reading every vector would cost
/// a one-shot session start about 3 ms more.
const EXACT_SCAN: u64 = 50_000;

/// The vectors of one LMDB snapshot, flat, with their norms.
pub(super) struct VectorCache {
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

impl Index {
    /// Reads every vector now, so that the next vector search scans them
    /// exactly instead of walking arroy's trees: worth it while the query
    /// vector is still being computed on another thread (a one-shot
    /// `recall`), when this thread would otherwise wait.
    pub(crate) fn read_vectors_ahead(&self) -> Result<()> {
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
    pub(super) fn cached_vectors(
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

    pub(super) fn vector(
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
            return self.items_at(rtxn, nearest, filter);
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
        self.items_at(rtxn, hits, filter)
    }

    /// The items of vector search hits, with similarity scores; withheld
    /// ones left out when `filter` is for agents (they are few: the pool
    /// is a little shorter, never wrong).
    pub(super) fn items_at(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        hits: Vec<(u32, f32)>,
        filter: &Filter,
    ) -> Result<Vec<(Item, f32)>> {
        let mut out = Vec::with_capacity(hits.len());
        for (key, distance) in hits {
            if let Some(item) = self.dbs.items.get(rtxn, &key)? {
                if filter.agents_only && !item.for_agents() {
                    continue;
                }
                // arroy's cosine distance is 1 - cos, halved into [0, 1].
                out.push((item, 1.0 - 2.0 * distance.clamp(0.0, 1.0)));
            }
        }
        Ok(out)
    }

    /// Keys of the items `filter` accepts, read from the `recent` database
    /// (type and date are in its keys), without loading any item.
    pub(super) fn keys_matching(
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
}
