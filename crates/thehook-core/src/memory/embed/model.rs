//! A loaded embedding model: the model's own tokenizer, an engine that turns
//! tokens into token vectors (ONNX Runtime, or for queries the built-in
//! encoder), and mean pooling.

use std::path::Path;

use tokenizers::{Tokenizer, TruncationParams};

use super::native::Bert;
use super::onnx_runtime;
use super::{failed, failed_because, Availability, FETCH_FIX};
use crate::error::{Error, Result, Step};

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
}

enum Engine {
    /// Boxed: the encoder is over 300 bytes inline, the session far less.
    Native(Box<Bert>),
    OnnxRuntime(onnx_runtime::Session),
}

impl Embedder {
    /// Loads the model described by a [`Availability::Ready`], running on
    /// `threads` ONNX Runtime threads when ONNX Runtime is the engine.
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
                source: None,
                fix: FETCH_FIX.into(),
            });
        };
        let dir = &model_dir.path;
        // Without ONNX Runtime the built-in encoder runs items too.
        let native = runtime.is_none()
            || (workload == Workload::Query && !crate::env::queries_on_onnx_runtime());
        // The tokenizer loads on its own thread meanwhile (17-30 ms).
        let (engine, tokenizer) = std::thread::scope(|scope| {
            let tokenizer = scope.spawn(|| load_tokenizer(&dir.join("tokenizer.json")));
            let engine = match (native.then(|| Bert::load(dir)).flatten(), runtime) {
                (Some(bert), _) => Ok(Engine::Native(Box::new(bert))),
                (None, Some(runtime)) => onnx_runtime::Session::open(
                    &runtime.path,
                    dir,
                    fingerprint,
                    optimized_cache.as_deref(),
                    threads,
                    workload == Workload::Bulk,
                )
                .map(Engine::OnnxRuntime),
                (None, None) => Err(Error::Model {
                    problem: format!(
                        "the built-in encoder cannot read {}, and ONNX Runtime was not found",
                        dir.join("model.onnx").display()
                    ),
                    source: None,
                    fix: FETCH_FIX.into(),
                }),
            };
            let tokenizer = tokenizer.join().unwrap_or_else(|_| {
                Err(Error::Model {
                    problem: "loading the tokenizer crashed".into(),
                    source: None,
                    fix: Step::Doctor.into(),
                })
            });
            (engine, tokenizer)
        });
        Ok(Embedder {
            engine: engine?,
            tokenizer: tokenizer?,
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

    /// Embeds `texts`, one call per text. Batching was measured slower with
    /// ONNX Runtime here (123 items/s alone, 114 in batches of 16, with more
    /// memory for the padded activations): memory items are long enough to
    /// keep the threads busy on their own.
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }

    pub fn embed_one(&mut self, text: &str) -> Result<Vec<f32>> {
        match &mut self.engine {
            Engine::Native(bert) => embed_native(bert, &self.tokenizer, text),
            Engine::OnnxRuntime(session) => {
                let encoding = self.tokenizer.encode(text, true).map_err(failed)?;
                let (tokens, dims) = session.run(encoding.get_ids(), encoding.get_type_ids())?;
                Ok(mean_pool_normalised(&tokens, dims))
            }
        }
    }

    /// [`Self::embed`] on every core when the built-in encoder runs (its
    /// weights are read-only, so the threads share them); ONNX Runtime
    /// spreads one text over its own threads instead.
    fn embed_on_all_cores(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        use rayon::prelude::*;
        match &self.engine {
            Engine::Native(bert) => texts
                .par_iter()
                .map(|t| embed_native(bert, &self.tokenizer, t))
                .collect(),
            Engine::OnnxRuntime(_) => self.embed(texts),
        }
    }
}

fn embed_native(bert: &Bert, tokenizer: &Tokenizer, text: &str) -> Result<Vec<f32>> {
    let encoding = tokenizer.encode(text, true).map_err(failed)?;
    let ids = encoding.get_ids();
    let tokens = bert.forward(ids, encoding.get_type_ids()).ok_or_else(|| {
        failed_because(format!(
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
        source: Some(e.into()),
        fix: format!("check the file, or {FETCH_FIX}").into(),
    })
}

/// Called with each chunk of texts embedded and their vectors.
pub type Keep<'k> = &'k mut dyn FnMut(&[&str], &[Vec<f32>]);

/// Embeds many texts with one model session on every core, calling
/// `progress(done)` and `keep(texts, vectors)` after each chunk (so what
/// was embedded is kept if the process stops before the end). Output order
/// matches input.
///
/// One session with N intra-op threads, not N sessions on N rayon workers:
/// two sessions broke the 400 MB memory budget (480 MB peak for `reindex` of
/// 1,000 items, against 274 MB, at 136 vs 123 items/s).
pub fn embed_all(
    availability: &Availability,
    texts: &[&str],
    progress: &(dyn Fn(usize) + Sync),
    keep: Keep,
) -> Result<Vec<Vec<f32>>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut embedder = Embedder::load(availability, threads, Workload::Bulk)?;
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(64) {
        let vectors = embedder.embed_on_all_cores(chunk)?;
        keep(chunk, &vectors);
        out.extend(vectors);
        progress(out.len());
    }
    Ok(out)
}
