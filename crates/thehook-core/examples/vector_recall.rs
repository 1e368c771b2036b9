//! How well arroy's approximate search finds what the exact scan finds, and
//! at what cost, on the vectors of a real index: the measurement behind
//! `TREES` and `SEARCH_K_PER_RESULT` in `memory/index/vectors.rs`.
//!
//! It copies the vectors of `<index folder>` (opened read-only) into a
//! scratch LMDB, holds out `--queries` of them (seeded) as queries, builds
//! trees for each `--trees` count and, for each `--search-k` factor (nodes
//! visited per result wanted), compares arroy's top 10 with the exact top 10.
//!
//! ```text
//! cargo run --release -p thehook-core --example vector_recall -- \
//!     bench/out/team-work/scale/d10x365x2/.thehook/index --trees 8,16,32 --search-k 20,50,100
//! ```

use std::num::NonZeroUsize;
use std::time::Instant;

use arroy::distances::Cosine;
use arroy::{Reader, Writer};
use heed::{CommitOrAbort, EnvFlags, EnvOpenOptions};
use rand::seq::SliceRandom;
use rand::SeedableRng;

const TOP: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().expect("usage: vector_recall <index folder> [--trees a,b] [--search-k a,b] [--limit n] [--queries n]");
    let list = |flag: &str, default: &str| -> Vec<usize> {
        let at = args.iter().position(|a| a == flag);
        at.and_then(|i| args.get(i + 1))
            .map_or(default, String::as_str)
            .split(',')
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let trees = list("--trees", "8,16,32");
    let factors = list("--search-k", "15,30,60");
    let limits = list("--limit", "10,60");
    let n_queries = list("--queries", "200")[0];

    let vectors = read_vectors(std::path::Path::new(dir));
    let mut rng = rand::rngs::StdRng::seed_from_u64(36);
    let mut order: Vec<usize> = (0..vectors.len()).collect();
    order.shuffle(&mut rng);
    let (queries, stored) = order.split_at(n_queries);
    let queries: Vec<&Vec<f32>> = queries.iter().map(|&i| &vectors[i].1).collect();
    let stored: Vec<&(u32, Vec<f32>)> = stored.iter().map(|&i| &vectors[i]).collect();
    println!(
        "{} vectors stored, {} held out as queries",
        stored.len(),
        queries.len()
    );
    let exact: Vec<(Vec<u32>, f32)> = queries.iter().map(|q| exact_top(q, &stored)).collect();

    for &n_trees in &trees {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let env = open_env(scratch.path(), EnvFlags::empty());
        let wtxn = env.write_txn().unwrap();
        let db: arroy::Database<Cosine> = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit(
                    dbo.create_database(wtxn, Some("vectors"))?,
                ))
            })
            .unwrap()
            .commit()
            .unwrap();
        let mut wtxn = env.write_txn().unwrap();
        let writer = Writer::<Cosine>::new(db, 0, stored[0].1.len());
        for (key, v) in &stored {
            writer.add_item(&mut wtxn, *key, v).unwrap();
        }
        let started = Instant::now();
        let mut seeded = rand::rngs::StdRng::seed_from_u64(7);
        writer
            .builder(&mut seeded)
            .n_trees(n_trees)
            .build(&mut wtxn)
            .unwrap();
        let build = started.elapsed();
        wtxn.commit().unwrap();
        let rtxn = env.read_txn().unwrap();
        let stat = db
            .remap_types::<heed::types::Bytes, heed::types::Bytes>()
            .stat(&rtxn)
            .unwrap();
        let pages = stat.branch_pages + stat.leaf_pages + stat.overflow_pages;
        let reader = Reader::<Cosine>::open(&rtxn, 0, db).unwrap();
        println!(
            "\ntrees {n_trees}: build {:.1} s, vectors database {:.1} MB ({} entries)",
            build.as_secs_f32(),
            pages as f64 * 4096.0 / 1048576.0,
            stat.entries
        );
        for &limit in &limits {
            for &factor in &factors {
                let search_k = limit * factor;
                let started = Instant::now();
                let mut found = 0usize;
                let mut tied = 0usize;
                let mut worst = TOP;
                for (q, want) in queries.iter().zip(&exact) {
                    let mut nns = reader.nns(limit);
                    nns.search_k(NonZeroUsize::new(search_k).unwrap());
                    let hits = nns.by_vector(&rtxn, q).unwrap();
                    let got: Vec<u32> = hits.iter().take(TOP).map(|h| h.0).collect();
                    let n = want.0.iter().filter(|k| got.contains(k)).count();
                    // As good as the exact 10th (a tie in similarity is no miss).
                    tied += hits
                        .iter()
                        .take(TOP)
                        .filter(|h| 1.0 - 2.0 * h.1 >= want.1 - 1e-6)
                        .count();
                    found += n;
                    worst = worst.min(n);
                }
                let per_query = started.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64;
                println!(
                    "  limit {limit:>3}, search_k {search_k:>6}: recall@{TOP} {:.3} (worst {worst}/{TOP}), ties counted {:.3}, {per_query:.2} ms a query",
                    found as f64 / (TOP * queries.len()) as f64,
                    tied as f64 / (TOP * queries.len()) as f64
                );
            }
        }
    }
}

/// Every vector of the index at `dir`, read-only.
fn read_vectors(dir: &std::path::Path) -> Vec<(u32, Vec<f32>)> {
    let env = open_env(dir, EnvFlags::READ_ONLY);
    let rtxn = env.read_txn().unwrap();
    let db: arroy::Database<Cosine> = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
            Ok(CommitOrAbort::<_, ()>::Commit(
                dbo.open_database(rtxn, Some("vectors"))?,
            ))
        })
        .unwrap()
        .commit()
        .unwrap()
        .expect("a vectors database");
    let rtxn = env.read_txn().unwrap();
    let reader = Reader::<Cosine>::open(&rtxn, 0, db).expect("vectors");
    let mut out = Vec::new();
    for entry in reader.iter(&rtxn).unwrap() {
        let (key, v) = entry.unwrap();
        out.push((key, v.to_vec()));
    }
    out
}

/// An LMDB environment at `dir` with room for the index's databases.
fn open_env(dir: &std::path::Path, flags: EnvFlags) -> heed::Env {
    let mut options = EnvOpenOptions::new();
    options.map_size(8 << 30).max_dbs(16);
    // SAFETY: each folder is opened once, by this process alone.
    unsafe {
        options.flags(flags);
        options.open(dir)
    }
    .expect("an LMDB folder")
}

/// The exact top 10 by cosine similarity (the vectors are normalised), and
/// the 10th's similarity.
fn exact_top(query: &[f32], stored: &[&(u32, Vec<f32>)]) -> (Vec<u32>, f32) {
    let mut scored: Vec<(f32, u32)> = stored
        .iter()
        .map(|(k, v)| (v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>(), *k))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let tenth = scored[TOP - 1].0;
    (scored.into_iter().take(TOP).map(|s| s.1).collect(), tenth)
}
