//! ONNX Runtime running the model's ORT-format copy straight from a memory
//! map ([`crate::optimized`]): the engine of bulk embedding (reindex, the
//! capture worker), and of queries when the built-in encoder
//! ([`crate::native`]) does not know the model.
//!
//! Why not fastembed: it copies the model into ONNX Runtime and has it
//! optimise and prepack the weights at every load: about 250 ms and 260 MB
//! of a one-shot `recall`. Mapping an already optimised ORT-format file and
//! skipping prepacking for queries gives the same vectors (LoCoMo's
//! vector-only results are unchanged to the third decimal) with a session in
//! about 20 ms (CHANGELOG.md's measurements of issue 15).

use std::mem::ManuallyDrop;
use std::path::Path;
use std::sync::OnceLock;

use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::session::InMemorySession;
use ort::value::Tensor;

use crate::error::{failed, Error, Failure, Result};
use crate::{int8_products, optimized};

/// A text's token ids and token type ids.
pub(crate) type TextTokens<'t> = (&'t [u32], &'t [u32]);

/// An ONNX Runtime session over the model.
pub(crate) struct Session {
    session: Loaded,
    /// Whether the graph takes `token_type_ids` (BERT exports do).
    token_type_ids: bool,
    /// Whether each text runs alone: an int8 product quantizes its input
    /// over the whole batch, so in a batch a text's vector would depend on
    /// the texts beside it.
    one_text_per_run: bool,
}

/// A session over the mapped ORT-format copy, or over the original model,
/// which ONNX Runtime copies.
enum Loaded {
    Mapped(MappedSession),
    Copied(ort::session::Session),
}

/// The ORT-format copy mapped, and the session that reads its weights in
/// place from the map. One value owns both from the statement that makes
/// the session on, and its `Drop` ends the session before the map: no
/// unwinding between the two can unmap bytes the session still reads.
struct MappedSession {
    session: ManuallyDrop<InMemorySession<'static>>,
    map: memmap2::Mmap,
}

impl MappedSession {
    fn open(
        path: &Path,
        builder: impl FnOnce() -> std::result::Result<SessionBuilder, Failure>,
    ) -> std::result::Result<MappedSession, Failure> {
        let map = map(path)?;
        let mut builder = builder()?;
        // SAFETY: `bytes` points into `map`, which moves (its address does
        // not: the mapping stays where it is) into the value built right
        // after the session is made, with nothing between that can unwind,
        // and lives until `drop` below has ended the session. The `'static`
        // never leaves this type: callers borrow the session from it.
        let bytes: &'static [u8] = unsafe { &*std::ptr::from_ref::<[u8]>(&map[..]) };
        let session = builder.commit_from_memory_directly(bytes)?;
        Ok(MappedSession {
            session: ManuallyDrop::new(session),
            map,
        })
    }
}

impl Drop for MappedSession {
    fn drop(&mut self) {
        // SAFETY: dropped once, here, before `map` (dropped after this).
        unsafe { ManuallyDrop::drop(&mut self.session) }
    }
}

impl Loaded {
    fn session(&self) -> &ort::session::Session {
        match self {
            Loaded::Mapped(mapped) => &mapped.session,
            Loaded::Copied(session) => session,
        }
    }

    fn run<'s, 'i, 'v: 'i, const N: usize>(
        &'s mut self,
        inputs: impl Into<ort::session::SessionInputs<'i, 'v, N>>,
    ) -> ort::Result<ort::session::SessionOutputs<'s>> {
        match self {
            Loaded::Mapped(mapped) => mapped.session.run(inputs),
            Loaded::Copied(session) => session.run(inputs),
        }
    }
}

impl Session {
    /// A session on `threads` threads, over the ORT-format copy of the model
    /// made on first use; else, or when the copy does not load, over the
    /// original model, the slow way. `prepack` the weights for bulk work
    /// (about 60 ms at load, faster per item after).
    pub(crate) fn open(
        runtime: &Path,
        dir: &Path,
        fingerprint: &str,
        cache: Option<&Path>,
        threads: usize,
        prepack: bool,
    ) -> Result<Session> {
        let env = runtime_environment(runtime)?;
        let onnx = dir.join("model.onnx");
        let copy = optimized::ort_format(&env, dir, fingerprint, runtime, cache);
        let from_copy = copy.as_ref().and_then(|path| {
            let opened = MappedSession::open(path, || {
                builder(&env, GraphOptimizationLevel::Disable, threads, prepack)
            });
            if opened.is_err() {
                optimized::discard(path);
            }
            opened.ok()
        });
        // Whether the graph's products run in int8: the copy was made from
        // the rewritten model whenever the original has such products; the
        // original, loaded here, says which bytes ONNX Runtime took.
        let (session, one_text_per_run) = match from_copy {
            Some(mapped) => {
                if prepack {
                    // Prepacking copied the weights the runs read.
                    let_go_of_read_pages(&mapped.map);
                }
                let int8 = map(&onnx).is_ok_and(|original| {
                    int8_products::applies(bytes::Bytes::from_owner(original))
                });
                (Loaded::Mapped(mapped), int8)
            }
            None => optimized::ModelFile::read(&onnx)
                .and_then(|model| {
                    model.load(|bytes| {
                        builder(&env, GraphOptimizationLevel::Level3, threads, prepack)
                            .and_then(|mut b| Ok(b.commit_from_memory(bytes)?))
                    })
                })
                .map(|(session, int8)| (Loaded::Copied(session), int8))
                .map_err(|source| Error::Model {
                    dir: dir.to_path_buf(),
                    source,
                })?,
        };
        let token_type_ids = session
            .session()
            .inputs()
            .iter()
            .any(|i| i.name() == "token_type_ids");
        Ok(Session {
            session,
            token_type_ids,
            one_text_per_run,
        })
    }

    /// Runs batches whatever the model (tests of the padding).
    #[cfg(test)]
    pub(crate) fn batch_anyway(&mut self) {
        self.one_text_per_run = false;
    }

    /// Whether [`Session::run_batch`] must be given one text at a time.
    pub(crate) fn one_text_per_run(&self) -> bool {
        self.one_text_per_run
    }

    /// The token vectors, `[tokens, dimensions]` row-major, and `dimensions`.
    pub(crate) fn run(&mut self, ids: &[u32], type_ids: &[u32]) -> Result<(Vec<f32>, usize)> {
        let (values, dims) = self.run_batch(&[(ids, type_ids)])?;
        Ok((values, dims))
    }

    /// The token vectors of several texts in one run, each padded to the
    /// longest: `[texts, longest, dimensions]` row-major, and `dimensions`.
    /// The attention mask keeps the padding out of every real token's
    /// vector; callers pool only a text's own rows.
    pub(crate) fn run_batch(&mut self, texts: &[TextTokens]) -> Result<(Vec<f32>, usize)> {
        let longest = texts.iter().map(|(ids, _)| ids.len()).max().unwrap_or(0);
        let shape = [texts.len(), longest];
        let padded = |pick: &dyn Fn(&TextTokens) -> Vec<i64>| {
            let mut all = Vec::with_capacity(texts.len() * longest);
            for text in texts {
                let mut row = pick(text);
                row.resize(longest, 0);
                all.extend(row);
            }
            Tensor::from_array((shape, all)).map_err(failed)
        };
        let as_i64 = |v: &[u32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let mut inputs = vec![
            ("input_ids", padded(&|(ids, _)| as_i64(ids))?.into_dyn()),
            (
                "attention_mask",
                padded(&|(ids, _)| vec![1; ids.len()])?.into_dyn(),
            ),
        ];
        if self.token_type_ids {
            inputs.push((
                "token_type_ids",
                padded(&|(_, types)| as_i64(types))?.into_dyn(),
            ));
        }
        let outputs = self.session.run(inputs).map_err(failed)?;
        // The token embeddings, [texts, tokens, dimensions]: the first
        // output (`last_hidden_state` in sentence-transformers exports).
        let (shape, values) = outputs[0].try_extract_tensor::<f32>().map_err(failed)?;
        let dims = shape.last().copied().unwrap_or(0) as usize;
        if dims == 0 || values.len() != texts.len() * longest * dims {
            return Err(Error::Invalid(format!(
                "the model returned a tensor of shape {shape:?} for {} texts of up to {longest} tokens",
                texts.len()
            )));
        }
        Ok((values.to_vec(), dims))
    }
}

/// Lets go of the mapped model file's pages read so far (counted in RSS
/// once read); a page read again is mapped again.
#[cfg(unix)]
fn let_go_of_read_pages(bytes: &memmap2::Mmap) {
    // SAFETY: the mapping is shared, read-only and never written, and the
    // file is replaced by a rename, never changed in place, so a page read
    // again holds what it held.
    unsafe { bytes.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) }.ok();
}

/// Windows has no `madvise`: the pages stay until the session closes.
#[cfg(not(unix))]
fn let_go_of_read_pages(_bytes: &memmap2::Mmap) {}

/// A file mapped read-only.
fn map(file: &Path) -> std::result::Result<memmap2::Mmap, Failure> {
    let unreadable = |e: std::io::Error| Failure::Read {
        path: file.to_path_buf(),
        source: std::sync::Arc::new(e),
    };
    let opened = std::fs::File::open(file).map_err(unreadable)?;
    // SAFETY: model files are replaced by a rename, never changed in place,
    // so the mapped bytes stay what they were.
    unsafe { memmap2::Mmap::map(&opened) }.map_err(unreadable)
}

/// A session builder with thehook's settings.
fn builder(
    env: &ort::environment::Environment,
    level: GraphOptimizationLevel,
    threads: usize,
    prepack: bool,
) -> std::result::Result<SessionBuilder, Failure> {
    Ok(ort::session::Session::builder(env)
        .and_then(|b| Ok(b.with_optimization_level(level)?))
        .and_then(|b| Ok(b.with_disabled_optimizers(optimized::UNFUSED)?))
        .and_then(|b| Ok(b.with_prepacking(prepack)?))
        .and_then(|b| Ok(b.with_intra_threads(threads.max(1))?))?)
}

/// ONNX Runtime can be loaded once per process; later calls share the result.
pub(crate) fn runtime_environment(lib: &Path) -> Result<ort::environment::Environment> {
    static ENV: OnceLock<Result<ort::environment::Environment>> = OnceLock::new();
    ENV.get_or_init(|| {
        // ORT_DISABLE_TELEMETRY is set by the front end before any thread
        // starts: the binary in `main`, the Node package in `main.js`.
        let builder = ort::init_from(lib).map_err(|e| Error::LoadRuntime {
            lib: lib.to_path_buf(),
            source: Failure::Runtime(std::sync::Arc::new(e)),
        })?;
        builder
            .with_name("thehook")
            // A local memory tool reports nothing anywhere.
            .with_telemetry(false)
            .build()
            .map_err(|e| Error::StartRuntime {
                lib: lib.to_path_buf(),
                source: e.into(),
            })
    })
    .clone()
}
