//! What reindexing pays the model per item, on the item texts of a real
//! index: the measurement behind `embed_all`'s length-sorted batches
//! (thehook-embed's `model.rs`).
//!
//! It reads `--items` texts (seeded sample) of `<index folder>` (opened
//! read-only) and embeds them three ways with the model of `<assets
//! folder>`: one text per ONNX Runtime run in the index's order (before
//! batching), in batches of similar length (`embed_all`'s way), and
//! batches in the index's order (batching without sorting). For each it
//! prints items/s and the share of the time spent inside ONNX Runtime's
//! runs: the pure forward pass.
//!
//! A model whose int8 products run in integers (the shipped one) runs one
//! text per run in every way: batches would make a text's vector depend on
//! its neighbours (thehook-embed's `int8_products.rs`).
//!
//! `--agreement` instead compares the built-in encoder's vectors (queries)
//! with ONNX Runtime's (items) over the sample, and times the former.
//!
//! ```text
//! cargo run --release -p thehook-core --example embed_rate -- \
//!     bench/out/team-work/scale/d10x365x2/.thehook/index .assets --items 2000
//! ```

use std::time::Instant;

use heed::{CommitOrAbort, EnvFlags, EnvOpenOptions};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use thehook_core::config::Config;
use thehook_core::model::{self, locate, SearchPaths, Workload};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: embed_rate <index folder> <assets folder> [--items n]";
    let index = std::path::Path::new(args.first().expect(usage));
    let assets = std::path::PathBuf::from(args.get(1).expect(usage));
    let items: usize = args
        .iter()
        .position(|a| a == "--items")
        .and_then(|i| args.get(i + 1))
        .map_or(2000, |n| n.parse().expect("a number"));

    let mut texts = read_texts(index);
    texts.shuffle(&mut rand::rngs::StdRng::seed_from_u64(36));
    texts.truncate(items);
    let bytes: usize = texts.iter().map(String::len).sum();
    println!(
        "{} item texts, {:.0} bytes on average",
        texts.len(),
        bytes as f64 / texts.len() as f64
    );
    let paths = SearchPaths {
        cache: Some(assets),
        no_embedding_cache: true,
        ..SearchPaths::default()
    };
    let availability = locate(&Config::default(), &paths);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let as_str: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut sorted = as_str.clone();
    sorted.sort_by_key(|t| t.len());

    let ways: [(&str, &[&str], bool); 3] = [
        ("one text per run", &as_str, false),
        ("batches, sorted by length", &sorted, true),
        ("batches, unsorted", &as_str, true),
    ];
    // `--way N` runs one of them alone, for its peak memory.
    let only: Option<usize> = args
        .iter()
        .position(|a| a == "--way")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse().expect("a number"));
    if args.iter().any(|a| a == "--agreement") {
        return agreement(&availability, &as_str);
    }
    for (way, (name, input, batched)) in ways.into_iter().enumerate() {
        if only.is_some_and(|o| o != way) {
            continue;
        }
        let mut embedder = model::load(&availability, threads, Workload::Bulk).expect("the model");
        let started = Instant::now();
        for chunk in input.chunks(64) {
            match batched {
                true => embedder.embed_batched(chunk),
                false => embedder.embed(chunk),
            }
            .expect("vectors");
        }
        let total = started.elapsed().as_secs_f64();
        let forward = embedder.forward_time().as_secs_f64();
        println!("  peak RSS so far {}", peak_rss());
        println!(
            "{name:>28}: {:6.1} items/s, forward pass {:5.1}% of the time ({:.2} ms an item, {:.2} ms outside it)",
            input.len() as f64 / total,
            100.0 * forward / total,
            1000.0 * forward / input.len() as f64,
            1000.0 * (total - forward) / input.len() as f64,
        );
    }
}

/// How close the built-in encoder's vectors (queries) come to ONNX
/// Runtime's (items) over the sample, and the built-in encoder's rate.
fn agreement(availability: &thehook_core::model::Availability, texts: &[&str]) {
    let mut onnx = model::load(availability, 1, Workload::Bulk).expect("the model");
    let mut native = model::load(availability, 1, Workload::Query).expect("the model");
    let started = Instant::now();
    let ours = native.embed(texts).expect("vectors");
    let rate = texts.len() as f64 / started.elapsed().as_secs_f64();
    let theirs = onnx.embed(texts).expect("vectors");
    let mut cosines: Vec<f32> = ours
        .iter()
        .zip(&theirs)
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
        .collect();
    cosines.sort_by(f32::total_cmp);
    let at = |q: f64| cosines[((cosines.len() - 1) as f64 * q) as usize];
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    let exact = cosines.iter().filter(|&&c| c > 0.99999).count();
    println!(
        "built-in encoder ({}, {rate:.1} texts/s on one thread) against {}: cosine min {:.5}, 1st percentile {:.5}, median {:.6}, mean {mean:.6}; {exact} of {} above 0.99999",
        native.engine(),
        onnx.engine(),
        at(0.0),
        at(0.01),
        at(0.5),
        cosines.len()
    );
}

/// Every item text of the index at `dir`, read-only, in key order.
fn read_texts(dir: &std::path::Path) -> Vec<String> {
    let mut options = EnvOpenOptions::new();
    options.map_size(8 << 30).max_dbs(16);
    // SAFETY: the folder is opened once, read-only, by this process alone.
    let env = unsafe {
        options.flags(EnvFlags::READ_ONLY);
        options.open(dir)
    }
    .expect("an LMDB folder");
    let rtxn = env.read_txn().unwrap();
    let db: heed::Database<heed::types::Bytes, heed::types::Bytes> = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
            Ok(CommitOrAbort::<_, ()>::Commit(
                dbo.open_database(rtxn, Some("items"))?,
            ))
        })
        .unwrap()
        .commit()
        .unwrap()
        .expect("an items database");
    let rtxn = env.read_txn().unwrap();
    db.iter(&rtxn)
        .unwrap()
        .map(|entry| {
            let item: serde_json::Value = serde_json::from_slice(entry.unwrap().1).unwrap();
            item["text"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

/// VmHWM of this process, as `/proc/self/status` says it (Linux).
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .filter(|l| {
                    l.starts_with("VmHWM") || l.starts_with("RssAnon") || l.starts_with("RssFile")
                })
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
                .reduce(|a, b| a + " / " + &b)
        })
        .unwrap_or_default()
}
