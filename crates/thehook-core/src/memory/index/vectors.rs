//! Vector search over the index: an exact scan of the memory-mapped vectors
//! while the index is small, arroy's trees once it is not.

use arroy::distances::Cosine;
use heed::WithoutTls;
use roaring::RoaringBitmap;

use super::{Filter, Index, ARROY_INDEX};
use crate::error::Result;
use crate::memory::item::{Item, ItemKind};

/// Trees arroy builds (`sync::apply`). Measured on the vectors of a team's
/// year (48,640 items, 200 held out as queries,
/// `cargo run --release -p thehook-core --example vector_recall`): at 9,600
/// nodes searched, 16 trees found 0.943 of the exact top 10, 32 trees
/// 0.957, 64 trees 0.963, in a vectors database of 138, 149 and 172 MB
/// (built in 1.4, 2.9 and 5.8 s). arroy's own default (trees until they
/// hold as many nodes as there are items) built about 380 trees: 274 MB.
pub(super) const TREES: usize = 32;

/// At least this many nodes are searched. At a team's year (48,840 items,
/// 32 trees) 10,000 nodes found 0.959 of the exact top 10 for 200 held-out
/// items but 0.925 for `bench/team.py`'s 40 text queries; 20,000 nodes found
/// 0.985 and 0.965, for 4 ms more a recall (72 against 68 ms).
const MIN_SEARCH_K: usize = 20_000;

/// Nodes searched per result wanted, for larger limits.
const SEARCH_K_PER_RESULT: usize = 160;

/// A stored vector as arroy reads it: its key and its values.
type StoredVector = arroy::Result<(u32, Vec<f32>)>;

/// Nodes a search of `limit` results visits.
fn search_k(limit: usize) -> usize {
    (limit * SEARCH_K_PER_RESULT).max(MIN_SEARCH_K)
}

/// The `limit` nearest of the vectors `items` iterates, among `allowed`
/// (all without), as arroy's cosine distance, nearest first: exact.
fn scan(
    items: impl Iterator<Item = StoredVector>,
    query: &[f32],
    allowed: Option<&RoaringBitmap>,
    limit: usize,
) -> arroy::Result<Vec<(u32, f32)>> {
    let query_norm = norm(query);
    let mut scored: Vec<(u32, f32)> = Vec::new();
    for entry in items {
        let (key, vector) = entry?;
        if allowed.is_some_and(|a| !a.contains(key)) {
            continue;
        }
        let dot: f32 = vector.iter().zip(query).map(|(a, b)| a * b).sum();
        let cos = match norm(&vector) * query_norm {
            0.0 => 0.0,
            n => dot / n,
        };
        scored.push((key, (1.0 - cos) / 2.0));
    }
    scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    scored.truncate(limit);
    Ok(scored)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

impl Index {
    /// The `limit` items nearest to `query` that `filter` accepts. Where the
    /// trees would visit about every item anyway, every vector is compared
    /// (exact, and no dearer); else arroy searches [`search_k`] nodes. Both
    /// read LMDB's memory map: no vector is copied for longer than a
    /// comparison. `THEHOOK_VECTOR_SEARCH=exact` scans at any size (the
    /// benchmarks' reference).
    pub(super) fn vector(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        query: &[f32],
        limit: usize,
        filter: &Filter,
    ) -> Result<Vec<(Item, f32)>> {
        let allowed = match filter.is_empty() {
            true => None,
            false => Some(self.keys_matching(rtxn, filter)?),
        };
        let reader = match arroy::Reader::<Cosine>::open(rtxn, ARROY_INDEX, self.dbs.vectors) {
            Ok(r) => r,
            // No vector was ever stored (lexical-only, or an empty index).
            Err(arroy::Error::MissingMetadata(_)) => return Ok(Vec::new()),
            // A sync in batches stored vectors whose trees its last batch
            // builds: until then every stored vector is compared.
            Err(arroy::Error::NeedBuild(_)) => {
                let Some(items) = self.vectors_before_build(rtxn, query.len())? else {
                    return Ok(Vec::new());
                };
                let hits = scan(items, query, allowed.as_ref(), limit)?;
                return self.items_at(rtxn, hits, filter);
            }
            Err(e) => return Err(e.into()),
        };
        if reader.dimensions() != query.len() {
            return Ok(Vec::new());
        }
        let search_k = search_k(limit);
        let hits = if reader.n_items() as usize <= search_k || crate::env::exact_vector_search() {
            scan(reader.iter(rtxn)?, query, allowed.as_ref(), limit)?
        } else {
            let mut q = reader.nns(limit);
            q.search_k(std::num::NonZeroUsize::new(search_k).expect("non-zero"));
            if let Some(allowed) = &allowed {
                q.candidates(allowed);
            }
            q.by_vector(rtxn, query)?
        };
        self.items_at(rtxn, hits, filter)
    }

    /// The stored vectors of an index whose trees are not built yet, when
    /// they have `dims` dimensions.
    fn vectors_before_build<'t>(
        &self,
        rtxn: &'t heed::RoTxn<WithoutTls>,
        dims: usize,
    ) -> Result<Option<impl Iterator<Item = StoredVector> + 't>> {
        let stored = self.dbs.header.get(rtxn, "header")?.and_then(|h| h.dims);
        if stored != Some(dims) {
            return Ok(None);
        }
        let writer = arroy::Writer::<Cosine>::new(self.dbs.vectors, ARROY_INDEX, dims);
        Ok(Some(writer.iter(rtxn)?))
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
            Err(arroy::Error::NeedBuild(_)) => {
                let dims = self.dbs.header.get(rtxn, "header")?.and_then(|h| h.dims);
                if let Some(items) = dims.map(|d| self.vectors_before_build(rtxn, d)) {
                    for entry in items?.into_iter().flatten() {
                        keys.remove(entry?.0);
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
        Ok(keys)
    }
}
