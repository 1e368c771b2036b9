//! Experiment: binary-quantized arroy trees + half-precision rescoring, and
//! flat half / int8 scans, against the exact f32 top 10.
use std::num::NonZeroUsize;
use std::time::Instant;

use arroy::distances::{BinaryQuantizedCosine, Cosine};
use arroy::{Reader, Writer};
use heed::{CommitOrAbort, EnvFlags, EnvOpenOptions};
use rand::seq::SliceRandom;
use rand::SeedableRng;

const TOP: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = &args[0];
    let list = |flag: &str, default: &str| -> Vec<usize> {
        let at = args.iter().position(|a| a == flag);
        at.and_then(|i| args.get(i + 1))
            .map_or(default, String::as_str)
            .split(',')
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let trees = list("--trees", "8,16,32");
    let search_ks = list("--search-k", "2000,5000,10000");
    let rescores = list("--rescore", "100,200,400");
    let n_queries = list("--queries", "200")[0];
    let vectors = read_vectors(std::path::Path::new(dir));
    let mut rng = rand::rngs::StdRng::seed_from_u64(36);
    let mut order: Vec<usize> = (0..vectors.len()).collect();
    order.shuffle(&mut rng);
    let (queries, stored) = order.split_at(n_queries);
    let queries: Vec<&Vec<f32>> = queries.iter().map(|&i| &vectors[i].1).collect();
    let stored: Vec<&(u32, Vec<f32>)> = stored.iter().map(|&i| &vectors[i]).collect();
    let exact: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| top(q, stored.iter().map(|(k, v)| (*k, dot(q, v)))))
        .collect();
    let halves: Vec<(u32, Vec<half::f16>)> = stored
        .iter()
        .map(|(k, v)| (*k, v.iter().map(|x| half::f16::from_f32(*x)).collect()))
        .collect();
    let halfmap: std::collections::HashMap<u32, &Vec<half::f16>> =
        halves.iter().map(|(k, v)| (*k, v)).collect();
    let int8: Vec<(u32, f32, Vec<i8>)> = stored
        .iter()
        .map(|(k, v)| {
            let m = v.iter().fold(0f32, |a, x| a.max(x.abs())) / 127.0;
            (*k, m, v.iter().map(|x| (x / m).round() as i8).collect())
        })
        .collect();
    let recall = |got: &[Vec<u32>]| -> f64 {
        got.iter()
            .zip(&exact)
            .map(|(g, w)| w.iter().filter(|k| g.contains(k)).count())
            .sum::<usize>() as f64
            / (TOP * exact.len()) as f64
    };
    let t = Instant::now();
    use half::slice::HalfFloatSliceExt;
    let mut buf = vec![0f32; 384];
    let got: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| {
            let mut s = Vec::with_capacity(halves.len());
            for (k, v) in &halves {
                v.convert_to_f32_slice(&mut buf);
                s.push((*k, dot(&buf, q)));
            }
            top(q, s.into_iter())
        })
        .collect();
    println!(
        "flat f16: recall {:.3}, {:.2} ms/q",
        recall(&got),
        t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
    );
    let t = Instant::now();
    let got: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| {
            let qm = q.iter().fold(0f32, |a, x| a.max(x.abs())) / 127.0;
            let qi: Vec<i8> = q.iter().map(|x| (x / qm).round() as i8).collect();
            top(
                q,
                int8.iter().map(|(k, m, v)| {
                    (
                        *k,
                        v.iter()
                            .zip(&qi)
                            .map(|(a, b)| *a as i32 * *b as i32)
                            .sum::<i32>() as f32
                            * m
                            * qm,
                    )
                }),
            )
        })
        .collect();
    println!(
        "flat int8: recall {:.3}, {:.2} ms/q",
        recall(&got),
        t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
    );

    for &n_trees in &trees {
        let scratch = tempfile::tempdir().unwrap();
        let env = open_env(scratch.path(), EnvFlags::empty());
        let wtxn = env.write_txn().unwrap();
        let db: arroy::Database<BinaryQuantizedCosine> = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit(
                    dbo.create_database(wtxn, Some("vectors"))?,
                ))
            })
            .unwrap()
            .commit()
            .unwrap();
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
        let stat = db
            .remap_types::<heed::types::Bytes, heed::types::Bytes>()
            .stat(&rtxn)
            .unwrap();
        let pages = stat.branch_pages + stat.leaf_pages + stat.overflow_pages;
        let reader = Reader::<BinaryQuantizedCosine>::open(&rtxn, 0, db).unwrap();
        println!(
            "\nBQ trees {n_trees}: build {:.1} s, db {:.1} MB",
            build.as_secs_f32(),
            pages as f64 * 4096.0 / 1048576.0
        );
        for &sk in &search_ks {
            for &rs in &rescores {
                let started = Instant::now();
                let got: Vec<Vec<u32>> = queries
                    .iter()
                    .map(|q| {
                        let mut nns = reader.nns(rs);
                        nns.search_k(NonZeroUsize::new(sk).unwrap());
                        let hits = nns.by_vector(&rtxn, q).unwrap();
                        top(
                            q,
                            hits.iter().map(|(k, _)| {
                                (
                                    *k,
                                    halfmap[k]
                                        .iter()
                                        .zip(q.iter())
                                        .map(|(a, b)| a.to_f32() * b)
                                        .sum(),
                                )
                            }),
                        )
                    })
                    .collect();
                println!(
                    "  search_k {sk:>6} rescore {rs:>4}: recall {:.3}, {:.2} ms/q",
                    recall(&got),
                    started.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
                );
            }
        }
    }
    // flat binary + rescoring
    let bits: Vec<(u32, [u64; 6])> = stored.iter().map(|(k, v)| (*k, pack(v))).collect();
    for &rs in &rescores {
        let t = Instant::now();
        let got: Vec<Vec<u32>> = queries
            .iter()
            .map(|q| {
                let qb = pack(q);
                let mut sc: Vec<(u32, u32)> = bits
                    .iter()
                    .map(|(k, b)| {
                        (
                            b.iter().zip(&qb).map(|(x, y)| (x ^ y).count_ones()).sum(),
                            *k,
                        )
                    })
                    .collect();
                sc.select_nth_unstable(rs);
                sc.truncate(rs);
                top(
                    q,
                    sc.iter().map(|(_, k)| {
                        (
                            *k,
                            halfmap[k]
                                .iter()
                                .zip(q.iter())
                                .map(|(a, b)| a.to_f32() * b)
                                .sum(),
                        )
                    }),
                )
            })
            .collect();
        println!(
            "flat bits rescore {rs}: recall {:.3}, {:.2} ms/q",
            recall(&got),
            t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
        );
    }
}

fn pack(v: &[f32]) -> [u64; 6] {
    let mut out = [0u64; 6];
    for (i, x) in v.iter().enumerate() {
        if *x > 0.0 {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn top(_q: &[f32], scored: impl Iterator<Item = (u32, f32)>) -> Vec<u32> {
    let mut s: Vec<(u32, f32)> = scored.collect();
    s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    s.into_iter().take(TOP).map(|x| x.0).collect()
}

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
    reader
        .iter(&rtxn)
        .unwrap()
        .map(|e| {
            let (k, v) = e.unwrap();
            (k, v.to_vec())
        })
        .collect()
}

fn open_env(dir: &std::path::Path, flags: EnvFlags) -> heed::Env {
    let mut options = EnvOpenOptions::new();
    options.map_size(8 << 30).max_dbs(16);
    unsafe {
        options.flags(flags);
        options.open(dir)
    }
    .expect("an LMDB folder")
}
