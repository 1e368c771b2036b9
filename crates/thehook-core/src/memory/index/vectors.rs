//! Vector search over the index. Every item's vector is kept in half
//! precision (the `vectors` database, 768 bytes at 384 dimensions). While
//! the index is small, a search compares them all (exact). Past
//! [`EXACT_UP_TO`] vectors, arroy's trees over one-bit codes of the same
//! vectors (the `trees` database, `BinaryQuantizedCosine`) propose
//! candidates, and the half-precision vectors of those rank them.
//!
//! Why not arroy's full-precision cosine, as before: at a team's year
//! (48,840 items) its 32-bit vectors and trees took 151 MB of the index
//! file, and one search visiting 20,000 nodes mapped some 200 MB of it:
//! `recall` in hybrid mode peaked at 232 MB against 28 MB lexical. The
//! one-bit trees take 10 MB, the half-precision vectors 38, and a search
//! reads a few hundred vectors (96 MB peak). Measured on those vectors
//! (200 held-out items as queries, `--example vector_recall`): a scan of
//! the half-precision vectors finds 1.000 of the 32-bit top 10; the trees
//! with 10,000 nodes searched and 400 candidates ranked find 0.991
//! (`bench/team.py`'s 40 text queries: 0.977).

use arroy::distances::BinaryQuantizedCosine;
use half::f16;
use heed::WithoutTls;
use roaring::RoaringBitmap;

use super::{Filter, Index, TREES_INDEX};
use crate::error::Result;
use crate::store::item::{Item, ItemKind};

/// Trees arroy builds (`sync::apply`), of one-bit codes. Over those, with
/// 10,000 nodes searched and 400 candidates ranked by their vectors, 16
/// trees found 0.987 of the exact top 10 and 32 found 0.991, in an 8 and
/// 11 MB database built in 0.9 and 1.8 s (`--example vector_recall`, a
/// team's year). arroy's 32-bit cosine trees found 0.957 with 32.
pub(super) const TREES: usize = 32;

/// Up to this many vectors (or candidates a filter allows), every one is
/// compared: a few milliseconds, and the results are exact.
const EXACT_UP_TO: u64 = 20_000;

/// At least this many tree nodes are searched (arroy triples it for
/// one-bit codes).
const MIN_SEARCH_K: usize = 10_000;

/// At least this many candidates are rescored with their vectors.
const MIN_RESCORED: usize = 400;

/// Candidates rescored per result wanted, for larger limits.
const RESCORED_PER_RESULT: usize = 10;

/// Tree nodes searched per result wanted, for larger limits. A session
/// start's pool of 60 searches the minimum: of the exact top 60, 0.962
/// found at a team's year against 0.973 with 250 a result (15,000 nodes),
/// in 0.77x the time (`--example vector_recall -- --top 60`; the start
/// block of `bench/team.py`'s context was the same).
const SEARCH_K_PER_RESULT: usize = 160;

/// A vector as the `vectors` database stores it: little-endian halves.
pub(super) fn encode(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|x| f16::from_f32(*x).to_le_bytes())
        .collect()
}

/// A stored vector into `out` (LMDB's bytes need not be aligned for
/// `f16`, so they are read as bytes, then widened as a slice: F16C
/// instructions where the CPU has them).
fn decode_into(bytes: &[u8], halves: &mut Vec<f16>, out: &mut Vec<f32>) {
    halves.clear();
    halves.extend(
        bytes
            .chunks_exact(2)
            .map(|b| f16::from_le_bytes([b[0], b[1]])),
    );
    out.resize(halves.len(), 0.0);
    half::slice::HalfFloatSliceExt::convert_to_f32_slice(&halves[..], &mut out[..]);
}

/// A stored vector, widened (the learned check of a kept item, tests).
pub(super) fn decode(bytes: &[u8]) -> Vec<f32> {
    let (mut halves, mut out) = (Vec::new(), Vec::new());
    decode_into(bytes, &mut halves, &mut out);
    out
}

/// Cosine similarity between stored vectors and one query, reusing its
/// buffers.
struct Scorer<'q> {
    query: &'q [f32],
    query_norm: f32,
    halves: Vec<f16>,
    widened: Vec<f32>,
}

impl<'q> Scorer<'q> {
    fn new(query: &'q [f32]) -> Self {
        Scorer {
            query,
            query_norm: norm(query),
            halves: Vec::with_capacity(query.len()),
            widened: Vec::with_capacity(query.len()),
        }
    }

    /// `None` for a vector of other dimensions (another model's).
    fn similarity(&mut self, bytes: &[u8]) -> Option<f32> {
        if bytes.len() != self.query.len() * 2 {
            return None;
        }
        decode_into(bytes, &mut self.halves, &mut self.widened);
        let dot: f32 = self
            .widened
            .iter()
            .zip(self.query)
            .map(|(a, b)| a * b)
            .sum();
        Some(match norm(&self.widened) * self.query_norm {
            0.0 => 0.0,
            n => (dot / n).clamp(-1.0, 1.0),
        })
    }
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

/// The `limit` best of `scored`, most similar first (ties by key).
fn best(mut scored: Vec<(u32, f32)>, limit: usize) -> Vec<(u32, f32)> {
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > limit && limit > 0 {
        scored.select_nth_unstable_by(limit - 1, order);
        scored.truncate(limit);
    }
    scored.sort_by(order);
    scored.truncate(limit);
    scored
}

/// Nodes the trees search for `limit` results.
fn search_k(limit: usize) -> usize {
    (limit * SEARCH_K_PER_RESULT).max(MIN_SEARCH_K)
}

/// Candidates rescored for `limit` results.
fn rescored(limit: usize) -> usize {
    (limit * RESCORED_PER_RESULT).max(MIN_RESCORED)
}

impl Index {
    /// The `limit` items nearest to `query` that `filter` accepts, with
    /// their cosine similarity, nearest first. `THEHOOK_VECTOR_SEARCH=exact`
    /// compares every vector at any size (the benchmarks' reference).
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
        let exact_up_to = match crate::env::exact_vector_search() {
            true => u64::MAX,
            false => EXACT_UP_TO,
        };
        let hits = self.nearest(rtxn, query, limit, allowed.as_ref(), exact_up_to)?;
        self.items_at(rtxn, hits, filter)
    }

    /// The keys of the `limit` vectors nearest to `query` among `allowed`
    /// (all without). Every one is compared when there are at most
    /// `exact_up_to`, or while arroy's trees are not built (between the
    /// transactions of a sync in batches); else the trees' candidates are.
    pub(super) fn nearest(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        query: &[f32],
        limit: usize,
        allowed: Option<&RoaringBitmap>,
        exact_up_to: u64,
    ) -> Result<Vec<(u32, f32)>> {
        let compared = match allowed {
            Some(allowed) => allowed.len(),
            None => self.dbs.vectors.len(rtxn)?,
        };
        if compared <= exact_up_to {
            return self.compare_all(rtxn, query, limit, allowed);
        }
        let reader =
            match arroy::Reader::<BinaryQuantizedCosine>::open(rtxn, TREES_INDEX, self.dbs.trees) {
                Ok(reader) if reader.dimensions() == query.len() => reader,
                Ok(_) => return Ok(Vec::new()),
                Err(arroy::Error::MissingMetadata(_) | arroy::Error::NeedBuild(_)) => {
                    return self.compare_all(rtxn, query, limit, allowed)
                }
                Err(e) => return Err(e.into()),
            };
        let mut search = reader.nns(rescored(limit));
        search.search_k(std::num::NonZeroUsize::new(search_k(limit)).expect("non-zero"));
        if let Some(allowed) = allowed {
            search.candidates(allowed);
        }
        let mut scorer = Scorer::new(query);
        let mut scored = Vec::new();
        for (key, _) in search.by_vector(rtxn, query)? {
            let Some(bytes) = self.dbs.vectors.get(rtxn, &key)? else {
                continue;
            };
            if let Some(similarity) = scorer.similarity(bytes) {
                scored.push((key, similarity));
            }
        }
        Ok(best(scored, limit))
    }

    /// Every stored vector among `allowed` compared with `query`.
    fn compare_all(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        query: &[f32],
        limit: usize,
        allowed: Option<&RoaringBitmap>,
    ) -> Result<Vec<(u32, f32)>> {
        let mut scorer = Scorer::new(query);
        let mut scored = Vec::new();
        let mut score = |key: u32, bytes: &[u8]| {
            if let Some(similarity) = scorer.similarity(bytes) {
                scored.push((key, similarity));
            }
        };
        match allowed {
            Some(allowed) => {
                for key in allowed {
                    if let Some(bytes) = self.dbs.vectors.get(rtxn, &key)? {
                        score(key, bytes);
                    }
                }
            }
            None => {
                for entry in self.dbs.vectors.iter(rtxn)? {
                    let (key, bytes) = entry?;
                    score(key, bytes);
                }
            }
        }
        Ok(best(scored, limit))
    }

    /// The items of vector search hits, with their similarity; withheld
    /// ones left out when `filter` is for agents (they are few: the pool
    /// is a little shorter, never wrong).
    pub(super) fn items_at(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        hits: Vec<(u32, f32)>,
        filter: &Filter,
    ) -> Result<Vec<(Item, f32)>> {
        let mut out = Vec::with_capacity(hits.len());
        for (key, similarity) in hits {
            if let Some(item) = self.dbs.items.get(rtxn, &key)? {
                if filter.agents_only && !item.for_agents() {
                    continue;
                }
                out.push((item, similarity));
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
        let stored = self
            .dbs
            .vectors
            .remap_data_type::<heed::types::DecodeIgnore>();
        for entry in stored.iter(rtxn)? {
            keys.remove(entry?.0);
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded vector of the model's size, normalised like its output.
    fn unit_vector(seed: u64) -> Vec<f32> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let v: Vec<f32> = (0..384).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = norm(&v);
        v.into_iter().map(|x| x / n).collect()
    }

    #[test]
    fn a_stored_vector_is_the_models_to_half_precision() {
        let v = unit_vector(1);
        let bytes = encode(&v);
        assert_eq!(bytes.len(), 768);
        let back = decode(&bytes);
        let worst = v
            .iter()
            .zip(&back)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        // Components of a unit vector are below 0.25: half precision keeps
        // them to about 1e-4.
        assert!(worst < 2e-4, "{worst}");
        assert!(Scorer::new(&v).similarity(&bytes).unwrap() > 0.99999);
        // Another model's vector (other dimensions) is never compared.
        assert_eq!(Scorer::new(&v[..100]).similarity(&bytes), None);
    }

    #[test]
    fn the_best_are_the_most_similar_first_ties_by_key() {
        let scored = vec![(5, 0.1), (2, 0.9), (9, 0.5), (1, 0.9), (3, -0.2)];
        assert_eq!(best(scored.clone(), 3), vec![(1, 0.9), (2, 0.9), (9, 0.5)]);
        assert_eq!(best(scored.clone(), 10).len(), 5);
        assert!(best(scored, 0).is_empty());
    }
}
