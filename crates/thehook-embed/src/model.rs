//! A loaded embedding model: the model's own tokenizer, an engine that turns
//! tokens into token vectors (ONNX Runtime, or for queries the built-in
//! encoder), and mean pooling.

use std::path::Path;
use std::time::{Duration, Instant};

use tokenizers::{Tokenizer, TruncationParams};

use crate::error::{failed, Error, Result};
use crate::model_files::ModelFiles;
use crate::native::Bert;
use crate::onnx_runtime;

/// Items longer than this many tokens are embedded by their beginning
/// (all-MiniLM-L6-v2 was trained on 256-token inputs).
const MAX_TOKENS: usize = 256;

/// What a model is loaded for; it decides the engine and whether ONNX
/// Runtime prepacks the weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// A few short queries: the built-in encoder when it knows the model
    /// (no ONNX Runtime start-up at all), else ONNX Runtime without
    /// prepacking, which costs about 60 ms at load, more than it saves a
    /// one-shot recall (the research's C-API measurements).
    Query,
    /// Many items: ONNX Runtime with prepacked weights, the fastest per item.
    Bulk,
}

/// A loaded model (see [`embed_all`] for bulk work).
pub struct Embedder {
    engine: Engine,
    tokenizer: Tokenizer,
    forward: Duration,
}

enum Engine {
    /// Boxed: the encoder is over 300 bytes inline, the session far less.
    Native(Box<Bert>),
    OnnxRuntime(onnx_runtime::Session),
}

impl Embedder {
    /// Loads the model in `files`, running on `threads` ONNX Runtime
    /// threads when ONNX Runtime is the engine.
    pub fn load(files: &ModelFiles, threads: usize, workload: Workload) -> Result<Embedder> {
        let ModelFiles {
            dir,
            runtime,
            fingerprint,
            optimized_cache,
            queries_on_onnx_runtime,
        } = files;
        // Without ONNX Runtime the built-in encoder runs items too.
        let native = runtime.is_none() || (workload == Workload::Query && !queries_on_onnx_runtime);
        // The tokenizer loads on its own thread meanwhile (17-30 ms).
        let (engine, tokenizer) = std::thread::scope(|scope| {
            let tokenizer = scope
                .spawn(|| load_tokenizer(&dir.join("tokenizer.json"), optimized_cache.as_deref()));
            let engine = match (native.then(|| Bert::load(dir)).flatten(), runtime) {
                (Some(bert), _) => Ok(Engine::Native(Box::new(bert))),
                (None, Some(runtime)) => onnx_runtime::Session::open(
                    runtime,
                    dir,
                    fingerprint,
                    optimized_cache.as_deref(),
                    threads,
                    workload == Workload::Bulk,
                )
                .map(Engine::OnnxRuntime),
                (None, None) => Err(Error::NoEngine(dir.join("model.onnx"))),
            };
            let tokenizer = tokenizer.join().unwrap_or(Err(Error::TokenizerCrashed));
            (engine, tokenizer)
        });
        Ok(Embedder {
            engine: engine?,
            tokenizer: tokenizer?,
            forward: Duration::ZERO,
        })
    }

    /// Which engine embeds: `built-in encoder` or `ONNX Runtime` (for
    /// `doctor`).
    pub fn engine(&self) -> &'static str {
        match self.engine {
            Engine::Native(_) => "built-in encoder",
            Engine::OnnxRuntime(_) => "ONNX Runtime",
        }
    }

    /// Embeds `texts`, one call per text.
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }

    pub fn embed_one(&mut self, text: &str) -> Result<Vec<f32>> {
        match &mut self.engine {
            Engine::Native(bert) => embed_native(bert, &self.tokenizer, text),
            Engine::OnnxRuntime(session) => {
                let encoding = self.tokenizer.encode(text, true).map_err(failed)?;
                let started = Instant::now();
                let (tokens, dims) = session.run(encoding.get_ids(), encoding.get_type_ids())?;
                self.forward += started.elapsed();
                Ok(mean_pool_normalised(&tokens, dims))
            }
        }
    }

    /// Time spent inside ONNX Runtime's runs so far: the model's forward
    /// pass alone, without tokenizing, padding or pooling.
    pub fn forward_time(&self) -> Duration {
        self.forward
    }

    /// Runs ONNX Runtime in batches whatever the model (tests of the
    /// padding).
    #[cfg(test)]
    pub(crate) fn batch_anyway(&mut self) {
        if let Engine::OnnxRuntime(session) = &mut self.engine {
            session.batch_anyway();
        }
    }

    /// Embeds `texts`, best given in order of length: ONNX Runtime runs
    /// them one text per run when the model's products run in int8
    /// ([`crate::int8_products`]), else in batches of similar length
    /// ([`BATCH_TEXTS`], [`BATCH_TOKENS`]); the built-in encoder one per
    /// core (its weights are read-only, so the threads share them). Output
    /// order matches input.
    pub fn embed_batched(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        use rayon::prelude::*;
        let session = match &mut self.engine {
            Engine::Native(bert) => {
                let bert = &**bert;
                return texts
                    .par_iter()
                    .map(|t| embed_native(bert, &self.tokenizer, t))
                    .collect();
            }
            Engine::OnnxRuntime(session) => session,
        };
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(failed)?;
        let mut out = Vec::with_capacity(texts.len());
        let mut rest = &encodings[..];
        while !rest.is_empty() {
            let size = match session.one_text_per_run() {
                true => 1,
                false => batch_size(rest.iter().map(|e| e.get_ids().len())),
            };
            let (batch, after) = rest.split_at(size);
            rest = after;
            let inputs: Vec<(&[u32], &[u32])> = batch
                .iter()
                .map(|e| (e.get_ids(), e.get_type_ids()))
                .collect();
            let started = Instant::now();
            let (tokens, dims) = session.run_batch(&inputs)?;
            self.forward += started.elapsed();
            let longest = tokens.len() / dims / batch.len();
            for (rows, (ids, _)) in tokens.chunks_exact(longest * dims).zip(&inputs) {
                out.push(mean_pool_normalised(&rows[..ids.len() * dims], dims));
            }
        }
        Ok(out)
    }
}

/// At most this many texts in one ONNX Runtime run.
const BATCH_TEXTS: usize = 32;
/// At most this many tokens, padding included, in one ONNX Runtime run: the
/// attention scores grow with texts x longest x longest.
const BATCH_TOKENS: usize = 512;

/// How many of the next texts (by token count) go in one run: as many as
/// fit both limits, at least one.
fn batch_size(lengths: impl Iterator<Item = usize>) -> usize {
    let mut longest = 0;
    let mut n = 0;
    for len in lengths.take(BATCH_TEXTS) {
        longest = longest.max(len);
        if n > 0 && (n + 1) * longest > BATCH_TOKENS {
            break;
        }
        n += 1;
    }
    n.max(1)
}

fn embed_native(bert: &Bert, tokenizer: &Tokenizer, text: &str) -> Result<Vec<f32>> {
    let encoding = tokenizer.encode(text, true).map_err(failed)?;
    let ids = encoding.get_ids();
    let tokens = bert.forward(ids, encoding.get_type_ids()).ok_or_else(|| {
        Error::Invalid(format!(
            "the built-in encoder cannot read {} tokens",
            ids.len()
        ))
    })?;
    Ok(mean_pool_normalised(&tokens, bert.width()))
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

/// The model's tokenizer without padding, cutting texts at `truncate_at`
/// tokens (`None`: never, for counting tokens as they are). With a `cache`
/// folder, loaded from its quick-loading copy there, made on the first load
/// ([`crate::tokenizer_copy`]).
pub fn tokenizer(
    path: &Path,
    truncate_at: Option<usize>,
    cache: Option<&Path>,
) -> tokenizers::Result<Tokenizer> {
    let copy = cache.and_then(|cache| crate::tokenizer_copy::path_for(path, cache));
    let mut tokenizer = match copy.as_deref().and_then(crate::tokenizer_copy::load) {
        Some(tokenizer) => tokenizer,
        None => {
            let tokenizer = Tokenizer::from_file(path)?;
            if let Some(copy) = &copy {
                crate::tokenizer_copy::keep(&tokenizer, copy);
            }
            tokenizer
        }
    };
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
fn load_tokenizer(path: &Path, cache: Option<&Path>) -> Result<Tokenizer> {
    tokenizer(path, Some(MAX_TOKENS), cache).map_err(|e| Error::Tokenizer {
        path: path.to_path_buf(),
        source: e.into(),
    })
}

/// Called with each chunk embedded: the positions of its texts (in the
/// slice given to [`embed_all`]) and their vectors, in that order.
pub type Keep<'k> = &'k mut dyn FnMut(&[usize], Vec<Vec<f32>>);

/// Embeds many texts with one model session on every core, handing each
/// chunk to `keep` (which stores it, so what was embedded is kept if the
/// process stops before the end) and calling `progress(done)` after it.
/// Nothing is held here: a rebuild's vectors need not fit in memory.
///
/// Texts run shortest first, so each batch pads little. One session with N
/// intra-op threads, not N sessions on N rayon workers: two sessions broke
/// the 400 MB memory budget (480 MB peak for `reindex` of 1,000 items,
/// against 274 MB, at 136 vs 123 items/s).
pub fn embed_all(
    files: &ModelFiles,
    texts: &[&str],
    progress: &(dyn Fn(usize) + Sync),
    keep: Keep,
) -> Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut embedder = Embedder::load(files, threads, Workload::Bulk)?;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let mut done = 0;
    for chunk in order.chunks(KEEP_EVERY) {
        let chunk_texts: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
        let vectors = embedder.embed_batched(&chunk_texts)?;
        if vectors.len() != chunk.len() {
            return Err(Error::vector_count(chunk.len(), vectors.len()));
        }
        keep(chunk, vectors);
        done += chunk.len();
        progress(done);
    }
    Ok(())
}

/// Texts embedded between two calls of `keep` and `progress`.
const KEEP_EVERY: usize = 64;
