//! A loaded embedding model: ONNX Runtime running the model's ORT-format copy
//! straight from a memory map ([`super::optimized`]), the model's own
//! tokenizer, and mean pooling.
//!
//! Why not fastembed: it copies the model into ONNX Runtime and has it
//! optimise and prepack the weights at every load: about 250 ms and 260 MB
//! of a one-shot `recall`. Mapping an already optimised ORT-format file and
//! skipping prepacking for queries gives the same vectors (LoCoMo's
//! vector-only results are unchanged to the third decimal) with a session in
//! about 20 ms (the README's measurements).

use std::path::Path;
use std::sync::OnceLock;

use ort::session::builder::GraphOptimizationLevel;
use ort::session::InMemorySession;
use ort::value::Tensor;
use tokenizers::{Tokenizer, TruncationParams};

use super::{optimized, Availability, FETCH_FIX};
use crate::error::{Error, Result, Step};

/// Items longer than this many tokens are embedded by their beginning
/// (all-MiniLM-L6-v2 was trained on 256-token inputs).
const MAX_TOKENS: usize = 256;

/// What a session is loaded for; it decides whether ONNX Runtime prepacks
/// the weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// A few short queries: prepacking costs about 60 ms at load, more than
    /// it saves a one-shot recall (first query 16 ms without it, 7 with it;
    /// the research's C-API measurements).
    Query,
    /// Many items: prepacked weights make every call faster.
    Bulk,
}

/// A loaded model (one ONNX Runtime session; see [`embed_all`] for bulk work).
pub struct Embedder {
    // Declared before `_model_bytes`, so it is dropped first: it reads the
    // weights in place from that memory map.
    session: InMemorySession<'static>,
    _model_bytes: memmap2::Mmap,
    tokenizer: Tokenizer,
    /// Whether the graph takes `token_type_ids` (BERT exports do).
    token_type_ids: bool,
}

impl Embedder {
    /// Loads the model described by a [`Availability::Ready`], running on
    /// `threads` ONNX Runtime threads.
    pub fn load(
        availability: &Availability,
        threads: usize,
        workload: Workload,
    ) -> Result<Embedder> {
        let Availability::Ready {
            model_dir,
            runtime,
            fingerprint,
            optimized_cache,
            ..
        } = availability
        else {
            return Err(Error::Model {
                problem: "no model is available".into(),
                fix: FETCH_FIX.into(),
            });
        };
        let dir = &model_dir.path;
        // The tokenizer loads on its own thread meanwhile (17-30 ms).
        let (session, tokenizer) = std::thread::scope(|scope| {
            let tokenizer = scope.spawn(|| load_tokenizer(&dir.join("tokenizer.json")));
            let session = open_model(
                &runtime.path,
                dir,
                fingerprint,
                optimized_cache.as_deref(),
                threads,
                workload,
            );
            let tokenizer = tokenizer.join().unwrap_or_else(|_| {
                Err(Error::Model {
                    problem: "loading the tokenizer crashed".into(),
                    fix: Step::Doctor.into(),
                })
            });
            (session, tokenizer)
        });
        let (session, bytes) = session?;
        let tokenizer = tokenizer?;
        let token_type_ids = session
            .inputs()
            .iter()
            .any(|i| i.name() == "token_type_ids");
        Ok(Embedder {
            session,
            _model_bytes: bytes,
            tokenizer,
            token_type_ids,
        })
    }

    /// Embeds `texts`, one ONNX Runtime call per text. Batching was
    /// measured slower here (123 items/s alone, 114 in batches of 16, with
    /// more memory for the padded activations): memory items are long enough
    /// to keep the threads busy on their own.
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }

    pub fn embed_one(&mut self, text: &str) -> Result<Vec<f32>> {
        let failed = |e: &dyn std::fmt::Display| Error::Model {
            problem: format!("embedding failed: {e}"),
            fix: Step::Doctor.into(),
        };
        let encoding = self.tokenizer.encode(text, true).map_err(|e| failed(&e))?;
        let n = encoding.get_ids().len();
        let as_i64 = |v: &[u32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let tensor = |v: Vec<i64>| Tensor::from_array(([1usize, n], v)).map_err(|e| failed(&e));
        let mut inputs = vec![
            ("input_ids", tensor(as_i64(encoding.get_ids()))?.into_dyn()),
            ("attention_mask", tensor(vec![1; n])?.into_dyn()),
        ];
        if self.token_type_ids {
            inputs.push((
                "token_type_ids",
                tensor(as_i64(encoding.get_type_ids()))?.into_dyn(),
            ));
        }
        let outputs = self.session.run(inputs).map_err(|e| failed(&e))?;
        // The token embeddings, [1, tokens, dimensions]: the first output
        // (`last_hidden_state` in sentence-transformers exports).
        let (shape, values) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| failed(&e))?;
        let dims = shape.last().copied().unwrap_or(0) as usize;
        if dims == 0 || values.len() != n * dims {
            return Err(failed(&format!(
                "the model returned a tensor of shape {shape:?} for {n} tokens"
            )));
        }
        Ok(mean_pool_normalised(values, dims))
    }
}

/// The mean of the token vectors, scaled to length 1 (as sentence-transformers
/// and fastembed do, epsilon included, so stored vectors stay comparable).
fn mean_pool_normalised(tokens: &[f32], dims: usize) -> Vec<f32> {
    let n = (tokens.len() / dims) as f32;
    let mut mean = vec![0f32; dims];
    for row in tokens.chunks_exact(dims) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
    mean.iter().map(|v| v / (norm + 1e-12)).collect()
}

/// A session over the ORT-format copy of the model, made on first use; else,
/// or when the copy does not load, over the original model, the slow way.
fn open_model(
    runtime: &Path,
    dir: &Path,
    fingerprint: &str,
    cache: Option<&Path>,
    threads: usize,
    workload: Workload,
) -> Result<(InMemorySession<'static>, memmap2::Mmap)> {
    let env = runtime_environment(runtime)?;
    let prepack = workload == Workload::Bulk;
    let copy = optimized::ort_format(&env, dir, fingerprint, runtime, cache);
    let from_copy = copy.as_ref().and_then(|path| {
        let loaded = open_session(
            &env,
            path,
            GraphOptimizationLevel::Disable,
            threads,
            prepack,
        );
        loaded.inspect_err(|_| optimized::discard(path)).ok()
    });
    match from_copy {
        Some(loaded) => Ok(loaded),
        None => open_session(
            &env,
            &dir.join("model.onnx"),
            GraphOptimizationLevel::Level3,
            threads,
            prepack,
        )
        .map_err(|e| Error::Model {
            problem: format!("cannot load the model in {}: {e}", dir.display()),
            fix: format!("check the files, or {FETCH_FIX}").into(),
        }),
    }
}

/// A session reading the model file in place from a memory map.
fn open_session(
    env: &ort::environment::Environment,
    file: &Path,
    level: GraphOptimizationLevel,
    threads: usize,
    prepack: bool,
) -> std::result::Result<(InMemorySession<'static>, memmap2::Mmap), String> {
    let opened = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    // SAFETY: model files are replaced by a rename, never changed in place,
    // so the mapped bytes stay what they were.
    let bytes =
        unsafe { memmap2::Mmap::map(&opened) }.map_err(|e| format!("{}: {e}", file.display()))?;
    // SAFETY: the session borrows the mapped bytes for as long as it lives.
    // Both go into one Embedder, which drops the session first (field
    // order), and the mapping's address does not move when the Mmap does.
    let static_bytes: &'static [u8] =
        unsafe { std::mem::transmute::<&[u8], &'static [u8]>(&bytes[..]) };
    let session = ort::session::Session::builder(env)
        .and_then(|b| Ok(b.with_optimization_level(level)?))
        .and_then(|b| Ok(b.with_prepacking(prepack)?))
        .and_then(|b| Ok(b.with_intra_threads(threads.max(1))?))
        .and_then(|mut b| b.commit_from_memory_directly(static_bytes))
        .map_err(|e| e.to_string())?;
    Ok((session, bytes))
}

/// The model's tokenizer without padding, cutting texts at `truncate_at`
/// tokens (`None`: never, for counting tokens as they are).
pub(crate) fn tokenizer(path: &Path, truncate_at: Option<usize>) -> tokenizers::Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_file(path)?;
    tokenizer.with_padding(None);
    let truncation = truncate_at.map(|max_length| TruncationParams {
        max_length,
        ..Default::default()
    });
    tokenizer.with_truncation(truncation)?;
    Ok(tokenizer)
}

/// The tokenizer as the model was trained: special tokens added, long texts
/// cut at [`MAX_TOKENS`], no padding (one text per call).
fn load_tokenizer(path: &Path) -> Result<Tokenizer> {
    tokenizer(path, Some(MAX_TOKENS)).map_err(|e| Error::Model {
        problem: format!("cannot read the tokenizer {}: {e}", path.display()),
        fix: format!("check the file, or {FETCH_FIX}").into(),
    })
}

/// ONNX Runtime can be loaded once per process; later calls share the result.
pub(super) fn runtime_environment(lib: &Path) -> Result<ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    ENV.get_or_init(|| {
        // ORT_DISABLE_TELEMETRY is set by the front end before any thread
        // starts (crate::env::quiet_onnx_runtime_before_threads).
        let builder =
            ort::init_from(lib).map_err(|e| format!("cannot load {}: {e}", lib.display()))?;
        builder
            .with_name("thehook")
            // A local memory tool reports nothing anywhere.
            .with_telemetry(false)
            .build()
            .map_err(|e| format!("cannot start ONNX Runtime from {}: {e}", lib.display()))
    })
    .clone()
    .map_err(|problem| Error::Model {
        problem,
        fix: format!("check that the file is ONNX Runtime 1.31 for this platform, or {FETCH_FIX}")
            .into(),
    })
}

/// Embeds many texts with one model session on every core, calling
/// `progress(done)` after each chunk. Output order matches input.
///
/// One session with N intra-op threads, not N sessions on N rayon workers:
/// two sessions broke the 400 MB memory budget (480 MB peak for `reindex` of
/// 1,000 items, against 274 MB, at 136 vs 123 items/s).
pub fn embed_all(
    availability: &Availability,
    texts: &[&str],
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Vec<f32>>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut embedder = Embedder::load(availability, threads, Workload::Bulk)?;
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(64) {
        out.extend(embedder.embed(chunk)?);
        progress(out.len());
    }
    Ok(out)
}
