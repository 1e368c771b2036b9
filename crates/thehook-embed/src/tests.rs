//! The engines on the model `scripts/fetch-assets.py` puts in `.assets/`.

use std::path::Path;

use super::*;

/// The model and ONNX Runtime in `.assets/`, as thehook finds them there
/// (its default model's name, the optimised copy kept beside them).
pub(crate) fn repo_files() -> ModelFiles {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets");
    let dir = assets.join("model");
    let runtime = assets.join("onnxruntime").join(ORT_LIB);
    assert!(
        dir.join("model.onnx").is_file(),
        "run scripts/fetch-assets.py first: no {}",
        dir.display()
    );
    ModelFiles {
        fingerprint: fingerprint("all-minilm-l6-v2", &dir),
        dir,
        runtime: runtime.is_file().then_some(runtime),
        optimized_cache: Some(assets),
        queries_on_onnx_runtime: false,
    }
}

/// `scripts/test-cpus.sh` runs a test under qemu on a CPU without VNNI, and
/// says so with this variable (only x86-64 has VNNI to be without).
#[cfg(target_arch = "x86_64")]
pub(crate) fn cpu_without_vnni() -> bool {
    std::env::var_os("THEHOOK_TEST_CPU_WITHOUT_VNNI").is_some()
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_vector_does_not_depend_on_its_batch() {
    let mut e = Embedder::load(&repo_files(), 1, Workload::Query).unwrap();
    let texts = [
        "short",
        "a much longer text about database migrations, rollbacks and the staging environment",
        "JWT refresh tokens rotate on every use",
    ];
    let together = e.embed(&texts).unwrap();
    for (text, vector) in texts.iter().zip(&together) {
        assert_eq!(&e.embed_one(text).unwrap(), vector, "{text}");
    }
    assert_eq!(together[0].len(), 384);
}

/// Reindex runs the shipped model one text per run, so a text's vector
/// is its own; a float model runs in batches padded to their longest
/// text, where the padding must not leak into a shorter text's vector.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_padded_batch_gives_each_text_its_own_vector() {
    let mut e = Embedder::load(&repo_files(), 2, Workload::Bulk).unwrap();
    let long = "the deploy script retries three times before it gives up; ".repeat(12);
    let texts = [
        "x",
        "JWT refresh tokens rotate on every use",
        "a much longer text about database migrations, rollbacks and the staging environment",
        long.as_str(),
    ];
    let one_by_one = e.embed_batched(&texts).unwrap();
    assert_eq!(one_by_one.len(), texts.len());
    for (text, vector) in texts.iter().zip(&one_by_one) {
        assert_eq!(&e.embed_one(text).unwrap(), vector, "{text}");
    }
    // Batched anyway: the int8 products quantize over the whole batch,
    // so close (0.977 at worst in batches of 8, Python), not equal; a
    // padding that leaked would be far off.
    e.batch_anyway();
    let batched = e.embed_batched(&texts).unwrap();
    for (text, vector) in texts.iter().zip(&batched) {
        let alone = e.embed_one(text).unwrap();
        let cos: f32 = alone.iter().zip(vector).map(|(a, b)| a * b).sum();
        assert!(cos > 0.97, "cosine {cos} for {text:?}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn similar_meanings_are_closer_than_unrelated_ones() {
    let mut e = Embedder::load(&repo_files(), 1, Workload::Query).unwrap();
    let v = e
        .embed(&[
            "where do the unit tests live",
            "tests are colocated next to the source",
            "the office closes at six",
        ])
        .unwrap();
    let cos = |a: &[f32], b: &[f32]| {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |x: &[f32]| x.iter().map(|v| v * v).sum::<f32>().sqrt();
        dot / norm(a) / norm(b)
    };
    assert!(cos(&v[0], &v[1]) > cos(&v[0], &v[2]) + 0.2);
}

/// Queries are embedded by the built-in encoder and items by ONNX
/// Runtime: the two must agree, or queries would search a different
/// space than the items they look for.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn the_native_encoder_gives_onnx_runtimes_vectors() {
    let assets = repo_files();
    let mut native = Embedder::load(&assets, 1, Workload::Query).unwrap();
    let mut onnx = Embedder::load(&assets, 1, Workload::Bulk).unwrap();
    assert_eq!(native.engine(), "built-in encoder");
    assert_eq!(onnx.engine(), "ONNX Runtime");
    let long = "the deploy script retries three times before it gives up; ".repeat(40);
    let texts = [
        "x",
        "where do the unit tests live?",
        "- 2023-05-08 [D1:3] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
        "`cargo test --release --workspace` needs `.assets/` (run scripts/fetch-assets.py) 🚀",
        "Überprüfe die Größe: naïve café, 東京, Ελληνικά",
        long.as_str(),
    ];
    for text in texts {
        let (a, b) = (
            native.embed_one(text).unwrap(),
            onnx.embed_one(text).unwrap(),
        );
        let cos: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        // Same arithmetic, but not the same float operations around
        // the integer products (erf, softmax, layer norm): a last-digit
        // difference that moves a value across a u8 step moves the
        // vector. Over 1,000 team-year texts: median 0.99996, first
        // percentile 0.9929 (`--example embed_rate -- --agreement`).
        // The floats alone (0.99999) were the bar before int8.
        let bar = if text.len() > 200 { 0.999 } else { 0.99999 };
        assert!(cos > bar, "cosine {cos} for {text:?}");
    }
}
