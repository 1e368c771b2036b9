//! How well the index's approximate vector search finds what comparing
//! every vector finds, and at what cost, on the vectors of a real index: the
//! measurement behind `TREES`, `MIN_SEARCH_K` and `MIN_RESCORED` in
//! `memory/index/vectors.rs`. It also prints how much of the index file
//! each database takes.
//!
//! It reads the half-precision vectors of `<index folder>` (opened
//! read-only), holds out `--queries` of them (seeded) as queries, builds
//! arroy trees over one-bit codes of the rest in a scratch LMDB for each
//! `--trees` count and, for each `--search-k` (nodes searched) and
//! `--rescore` (candidates ranked by their vectors), compares the top
//! `--top` (10) with the exact top of the full-precision scan.
//!
//! ```text
//! cargo run --release -p thehook-core --example vector_recall -- \
//!     bench/out/team-work/scale/d10x365x2/.thehook/index --trees 16,32 --search-k 5000,10000 --rescore 200,400
//! ```

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::time::Instant;

use arroy::distances::BinaryQuantizedCosine;
use arroy::{Reader, Writer};
use heed::types::{Bytes, U32};
use heed::{byteorder::BigEndian, CommitOrAbort, EnvFlags, EnvOpenOptions};
use rand::seq::SliceRandom;
use rand::SeedableRng;

type Vectors<'e> = heed::Database<'e, U32<BigEndian>, Bytes>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().expect(
        "usage: vector_recall <index folder> [--trees a,b] [--search-k a,b] [--rescore a,b] [--queries n]",
    );
    let list = |flag: &str, default: &str| -> Vec<usize> {
        let at = args.iter().position(|a| a == flag);
        at.and_then(|i| args.get(i + 1))
            .map_or(default, String::as_str)
            .split(',')
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let trees = list("--trees", "16,32");
    let search_ks = list("--search-k", "5000,10000,20000");
    let rescores = list("--rescore", "100,200,400");
    let n_queries = list("--queries", "200")[0];
    // How many results are compared: 10 for `recall`, 60 for a session
    // start's pool (`CANDIDATE_POOL`).
    let wanted = list("--top", "10")[0];

    let vectors = read_vectors(std::path::Path::new(dir));
    let mut rng = rand::rngs::StdRng::seed_from_u64(36);
    let mut order: Vec<usize> = (0..vectors.len()).collect();
    order.shuffle(&mut rng);
    let (queries, stored) = order.split_at(n_queries);
    let queries: Vec<&Vec<f32>> = queries.iter().map(|&i| &vectors[i].1).collect();
    let stored: Vec<&(u32, Vec<f32>)> = stored.iter().map(|&i| &vectors[i]).collect();
    let by_key: HashMap<u32, &Vec<f32>> = stored.iter().map(|(k, v)| (*k, v)).collect();
    println!(
        "{} vectors stored, {} held out as queries",
        stored.len(),
        queries.len()
    );
    let exact: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| top(stored.iter().map(|(k, v)| (*k, cosine(q, v))), wanted))
        .collect();
    let recall = |got: &[Vec<u32>]| -> f64 {
        let found: usize = got
            .iter()
            .zip(&exact)
            .map(|(g, want)| want.iter().filter(|k| g.contains(k)).count())
            .sum();
        found as f64 / (wanted * exact.len()) as f64
    };

    for &n_trees in &trees {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let env = open_env(scratch.path(), EnvFlags::empty());
        let wtxn = env.write_txn().unwrap();
        let db: arroy::Database<BinaryQuantizedCosine> = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit(
                    dbo.create_database(wtxn, Some("trees"))?,
                ))
            })
            .unwrap()
            .unwrap_commit();
        let mut wtxn = env.write_txn().unwrap();
        let writer = Writer::<BinaryQuantizedCosine>::new(db, 0, stored[0].1.len());
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
        let reader = Reader::<BinaryQuantizedCosine>::open(&rtxn, 0, db).unwrap();
        println!(
            "\ntrees {n_trees}: build {:.1} s, trees database {:.1} MB",
            build.as_secs_f32(),
            megabytes(&db.remap_types::<Bytes, Bytes>().stat(&rtxn).unwrap())
        );
        for &search_k in &search_ks {
            for &rescore in &rescores {
                let started = Instant::now();
                let got: Vec<Vec<u32>> = queries
                    .iter()
                    .map(|q| {
                        let mut nns = reader.nns(rescore);
                        nns.search_k(NonZeroUsize::new(search_k).unwrap());
                        let candidates = nns.by_vector(&rtxn, q).unwrap();
                        top(
                            candidates.iter().map(|(k, _)| (*k, cosine(q, by_key[k]))),
                            wanted,
                        )
                    })
                    .collect();
                let per_query = started.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64;
                println!(
                    "  search_k {search_k:>6}, rescored {rescore:>4}: recall@{wanted} {:.3}, {per_query:.2} ms a query",
                    recall(&got)
                );
            }
        }
    }
}

/// Every vector of the index at `dir`, read-only, widened from half
/// precision; then how much of the file each database takes.
fn read_vectors(dir: &std::path::Path) -> Vec<(u32, Vec<f32>)> {
    let env = open_env(dir, EnvFlags::READ_ONLY);
    let rtxn = env.read_txn().unwrap();
    let names = [
        "header", "items", "ids", "files", "postings", "recent", "vectors", "replies", "paths",
        "trees",
    ];
    let dbs = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
            let dbs = names.map(|n| {
                dbo.open_database::<Bytes, Bytes>(rtxn, Some(n))
                    .ok()
                    .flatten()
            });
            Ok(CommitOrAbort::<_, ()>::Commit(dbs))
        })
        .unwrap()
        .unwrap_commit();
    let rtxn = env.read_txn().unwrap();
    let file = std::fs::metadata(dir.join("data.mdb")).map_or(0, |m| m.len());
    println!("index file {:.1} MB; in use:", file as f64 / 1048576.0);
    for (name, db) in names.iter().zip(&dbs) {
        if let Some(db) = db {
            let stat = db.stat(&rtxn).unwrap();
            println!(
                "  {name:<9} {:>6.1} MB, {} entries",
                megabytes(&stat),
                stat.entries
            );
        }
    }
    let vectors: Vectors = dbs[6].expect("a vectors database").remap_key_type();
    vectors
        .iter(&rtxn)
        .unwrap()
        .map(|entry| {
            let (key, bytes) = entry.unwrap();
            let v = bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect();
            (key, v)
        })
        .collect()
}

fn megabytes(stat: &heed::DatabaseStat) -> f64 {
    let pages = stat.branch_pages + stat.leaf_pages + stat.overflow_pages;
    (pages * stat.page_size as usize) as f64 / 1048576.0
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

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

/// The keys of the `n` most similar, most similar first (ties by key).
fn top(scored: impl Iterator<Item = (u32, f32)>, n: usize) -> Vec<u32> {
    let mut scored: Vec<(u32, f32)> = scored.collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().take(n).map(|s| s.0).collect()
}
