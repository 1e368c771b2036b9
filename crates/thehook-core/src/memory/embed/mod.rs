//! Embeddings: finding the model and ONNX Runtime on disk ([`locate`]),
//! loading them (`ort` with `load-dynamic`, [`model`]) from an optimised copy
//! kept in the cache ([`optimized`]), and embedding text.
//!
//! Nothing is downloaded at run time. When the model or the runtime is
//! missing, callers get [`Availability::Missing`] with the reason and work
//! lexical-only.

mod cache;
mod int8_products;
mod model;
mod native;
mod onnx_graph;
mod onnx_runtime;
mod optimized;

use std::path::{Path, PathBuf};

pub use cache::{CacheSize, EmbeddingCache, CACHE_FOLDER, MAX_VECTORS};
pub(crate) use model::tokenizer;
pub use model::{embed_all, Embedder, Keep, Workload};

use crate::config::Config;
use crate::error::{Error, ModelFailure, Step};

/// The fingerprint of an index that holds no vectors.
pub const LEXICAL_ONLY: &str = "lexical-only";
/// The files a model folder must hold.
pub const MODEL_FILES: [&str; 5] = [
    "model.onnx",
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];

/// The ONNX Runtime library file name on this platform (the version the
/// fetch script installs).
#[cfg(target_os = "linux")]
pub const ORT_LIB: &str = "libonnxruntime.so.1.31.1";
#[cfg(target_os = "macos")]
pub const ORT_LIB: &str = "libonnxruntime.1.31.1.dylib";
#[cfg(target_os = "windows")]
pub const ORT_LIB: &str = "onnxruntime.dll";

/// Where a file was found, for `status` and `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Located {
    pub path: PathBuf,
    /// `config`, `THEHOOK_MODEL_DIR`, `ORT_DYLIB_PATH`, `beside the binary`, `cache`.
    pub source: String,
}

/// The model and runtime this process would use.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Availability {
    Ready {
        model: String,
        model_dir: Located,
        /// `None`: no ONNX Runtime, and the built-in encoder runs the model
        /// for items too (Intel macOS, where PyPI has no runtime).
        runtime: Option<Located>,
        /// Changes when the model changes: the index rebuilds on a mismatch.
        fingerprint: String,
        /// Where the optimised copy of the model is kept (the user cache).
        #[serde(skip)]
        optimized_cache: Option<PathBuf>,
        /// The embedding cache's folder ([`EmbeddingCache`]), if one is used.
        #[serde(skip)]
        embedding_cache: Option<PathBuf>,
    },
    Missing {
        /// What is missing, as a sentence.
        reason: String,
        /// What to do about it.
        fix: crate::error::Fix,
    },
}

impl Availability {
    /// The fingerprint stored in the index header; lexical-only indexes have
    /// their own, so adding the model later rebuilds with vectors.
    pub fn fingerprint(&self) -> String {
        match self {
            Availability::Ready { fingerprint, .. } => fingerprint.clone(),
            Availability::Missing { .. } => LEXICAL_ONLY.to_string(),
        }
    }

    /// The folder of the embedding cache ([`EmbeddingCache`]) this model
    /// reads and fills, if any.
    pub fn embedding_cache(&self) -> Option<&Path> {
        match self {
            Availability::Ready {
                embedding_cache, ..
            } => embedding_cache.as_deref(),
            Availability::Missing { .. } => None,
        }
    }
}

/// Places to look, in order. `beside` are the folders of the running binary
/// (or of the Node addon).
#[derive(Debug, Clone, Default)]
pub struct SearchPaths {
    pub beside: Vec<PathBuf>,
    pub cache: Option<PathBuf>,
    /// `ORT_DYLIB_PATH`, read by the caller so tests can set it per call.
    pub ort_dylib_path: Option<PathBuf>,
    /// Set by `THEHOOK_EMBEDDINGS=off`: lexical-only on purpose.
    pub disabled: bool,
    /// Set by `THEHOOK_EMBEDDING_CACHE=off`: no vector is read from or kept
    /// in `cache`'s embedding cache.
    pub no_embedding_cache: bool,
}

impl SearchPaths {
    /// The standard places: beside the current executable, and the user cache
    /// (`$THEHOOK_CACHE_DIR`, else `$XDG_CACHE_HOME/thehook`, else `~/.cache/thehook`).
    pub fn from_env() -> Self {
        // Under Node the executable is `node`: the addon names its own
        // package's native binary in THEHOOK_NPM_BIN, whose folder holds
        // ONNX Runtime.
        let npm_package = crate::env::npm_bin().and_then(|p| p.parent().map(Path::to_path_buf));
        let beside = npm_package
            .into_iter()
            .chain(
                std::env::current_exe()
                    .ok()
                    .and_then(|p| std::fs::canonicalize(p).ok())
                    .and_then(|p| p.parent().map(Path::to_path_buf)),
            )
            .collect();
        SearchPaths {
            beside,
            cache: crate::env::cache_dir(),
            ort_dylib_path: crate::env::ort_dylib_path(),
            disabled: crate::env::embeddings_disabled(),
            no_embedding_cache: crate::env::embedding_cache_off(),
        }
    }
}

const FETCH_FIX: &str = "run `scripts/fetch-assets.py ~/.cache/thehook` from the thehook repository (it fetches both from PyPI and checks their hashes), or set THEHOOK_MODEL_DIR and ORT_DYLIB_PATH";

/// Finds the model folder and ONNX Runtime (resolution order in docs/search.md).
pub fn locate(config: &Config, paths: &SearchPaths) -> Availability {
    if paths.disabled {
        return Availability::Missing {
            reason: "embeddings are switched off (THEHOOK_EMBEDDINGS=off)".into(),
            fix: "unset THEHOOK_EMBEDDINGS to use the model".into(),
        };
    }
    let model_dir = match locate_model(config, paths) {
        Ok(found) => found,
        Err((reason, fix)) => {
            return Availability::Missing {
                reason,
                fix: fix.into(),
            }
        }
    };
    let runtime = locate_runtime(paths);
    if runtime.is_none() && !native::runs(&model_dir.path) {
        return Availability::Missing {
            reason: format!("ONNX Runtime ({ORT_LIB}) was not found"),
            fix: FETCH_FIX.into(),
        };
    }
    let fingerprint = fingerprint(&config.embedding.model, &model_dir.path);
    Availability::Ready {
        model: config.embedding.model.clone(),
        model_dir,
        runtime,
        fingerprint,
        optimized_cache: paths.cache.clone(),
        embedding_cache: paths
            .cache
            .as_ref()
            .filter(|_| !paths.no_embedding_cache)
            .map(|c| c.join(CACHE_FOLDER)),
    }
}

fn locate_model(config: &Config, paths: &SearchPaths) -> Result<Located, (String, String)> {
    // An explicit folder is used or reported, never silently skipped.
    if let Some(dir) = &config.embedding.model_dir {
        let source = if crate::env::model_dir_is_set() {
            crate::env::MODEL_DIR
        } else {
            "config"
        };
        return match missing_model_files(dir) {
            None => Ok(Located {
                path: dir.clone(),
                source: source.into(),
            }),
            Some(missing) => Err((
                format!(
                    "the model folder {} (from {source}) lacks {missing}",
                    dir.display()
                ),
                format!(
                    "point {source} at a folder holding {}",
                    MODEL_FILES.join(", ")
                ),
            )),
        };
    }
    let candidates = paths
        .beside
        .iter()
        .map(|d| (d.join("model"), "beside the binary"))
        .chain(npm_model_dirs(&paths.beside).map(|d| (d, "npm package thehook-model")))
        .chain(paths.cache.iter().map(|d| (d.join("model"), "cache")));
    for (dir, source) in candidates {
        if missing_model_files(&dir).is_none() {
            return Ok(Located {
                path: dir,
                source: source.into(),
            });
        }
    }
    Err((
        "the embedding model (all-MiniLM-L6-v2 int8) was not found".into(),
        FETCH_FIX.into(),
    ))
}

/// Where npm puts the model package for a binary or addon installed from
/// npm (`node_modules/thehook-<platform>/`): `node_modules/thehook-model/model`
/// in each folder above it, as Node's own module resolution looks.
fn npm_model_dirs(beside: &[PathBuf]) -> impl Iterator<Item = PathBuf> + '_ {
    beside
        .iter()
        .flat_map(|d| d.ancestors())
        .map(|a| a.join("node_modules").join("thehook-model").join("model"))
}

fn locate_runtime(paths: &SearchPaths) -> Option<Located> {
    if let Some(p) = &paths.ort_dylib_path {
        // Reported as found even if it is wrong: loading it gives the real error.
        return Some(Located {
            path: p.clone(),
            source: "ORT_DYLIB_PATH".into(),
        });
    }
    let candidates = paths
        .beside
        .iter()
        .map(|d| (d.join(ORT_LIB), "beside the binary"))
        .chain(
            paths
                .cache
                .iter()
                .map(|d| (d.join("onnxruntime").join(ORT_LIB), "cache")),
        );
    for (path, source) in candidates {
        if path.is_file() {
            return Some(Located {
                path,
                source: source.into(),
            });
        }
    }
    None
}

fn missing_model_files(dir: &Path) -> Option<String> {
    let missing: Vec<_> = MODEL_FILES
        .iter()
        .filter(|f| !dir.join(f).is_file())
        .copied()
        .collect();
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// How vectors are computed from the model file, as a fingerprint suffix:
/// bumped when that changes, so indexes and the embedding cache embed
/// again. `:int8x`: int8 weight products run in integers, the sums exact
/// on every CPU ([`int8_products::WeightSign`]; `:int8` was before, when a
/// CPU without VNNI clipped them); none where they run in floats.
const ARITHMETIC: &str = if onnx_graph::INT8_PRODUCTS {
    ":int8x"
} else {
    ""
};

/// Model name, file size, a hash of the first 64 KiB and [`ARITHMETIC`]:
/// cheap to compute on every open, and it changes when the model file is
/// swapped or the way it runs does.
fn fingerprint(model: &str, dir: &Path) -> String {
    let onnx = dir.join("model.onnx");
    let size = std::fs::metadata(&onnx).map(|m| m.len()).unwrap_or(0);
    let mut head = vec![0u8; 64 * 1024];
    let n = std::fs::File::open(&onnx)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let hex = crate::hash::sha256_hex(&head[..n]);
    format!("{model}:{size}:{}{ARITHMETIC}", &hex[..12])
}

/// Embedding failed: `e` says why, and is the library's own error when
/// it comes from one.
fn failed<E: std::fmt::Display + Into<ModelFailure>>(e: E) -> Error {
    Error::Model {
        problem: format!("embedding failed: {e}"),
        source: Some(e.into()),
        fix: Step::Doctor.into(),
    }
}

/// Embedding failed for a reason of thehook's own (no library's error).
fn failed_because(why: String) -> Error {
    Error::Model {
        problem: format!("embedding failed: {why}"),
        source: None,
        fix: Step::Doctor.into(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The model fetched into `.assets/` by `scripts/fetch-assets.py`.
    pub(crate) fn repo_assets() -> Availability {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets");
        let paths = SearchPaths {
            beside: Vec::new(),
            cache: Some(assets.clone()),
            ort_dylib_path: None,
            disabled: false,
            // Each test embeds what it indexes: the assets folder holds no
            // embedding cache a test could read vectors from.
            no_embedding_cache: true,
        };
        let found = locate(&Config::default(), &paths);
        assert!(
            matches!(found, Availability::Ready { .. }),
            "run scripts/fetch-assets.py first: {found:?}"
        );
        found
    }

    #[test]
    #[cfg_attr(
        not(feature = "model"),
        ignore = "needs the embedding model: scripts/test.sh"
    )]
    fn a_vector_does_not_depend_on_its_batch() {
        let mut e = Embedder::load(&repo_assets(), 1, Workload::Query).unwrap();
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
        let mut e = Embedder::load(&repo_assets(), 2, Workload::Bulk).unwrap();
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
        let mut e = Embedder::load(&repo_assets(), 1, Workload::Query).unwrap();
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
        let assets = repo_assets();
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

    #[test]
    #[cfg_attr(
        not(feature = "model"),
        ignore = "needs the embedding model: scripts/test.sh"
    )]
    fn resolution_prefers_explicit_settings_and_reports_missing_ones() {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets");
        let mut config = Config::default();
        config.embedding.model_dir = Some(PathBuf::from("/nonexistent/model"));
        let paths = SearchPaths {
            beside: vec![],
            cache: Some(assets.clone()),
            ort_dylib_path: None,
            disabled: false,
            no_embedding_cache: true,
        };
        match locate(&config, &paths) {
            Availability::Missing { reason, .. } => {
                assert!(reason.contains("/nonexistent/model"), "{reason}")
            }
            other => panic!("an explicit folder must not fall back to the cache: {other:?}"),
        }
        let beside = SearchPaths {
            beside: vec![assets.join("model").parent().unwrap().to_path_buf()],
            cache: None,
            ort_dylib_path: Some(PathBuf::from("/x/libonnxruntime.so")),
            disabled: false,
            no_embedding_cache: true,
        };
        match locate(&Config::default(), &beside) {
            Availability::Ready {
                runtime, model_dir, ..
            } => {
                assert_eq!(runtime.unwrap().source, "ORT_DYLIB_PATH");
                assert_eq!(model_dir.source, "beside the binary");
            }
            other => panic!("{other:?}"),
        }
        let off = SearchPaths {
            disabled: true,
            ..paths
        };
        assert!(matches!(
            locate(&Config::default(), &off),
            Availability::Missing { .. }
        ));
    }
}
