//! The model in ONNX Runtime's own format (ORT), optimised once per machine
//! and kept in the user cache, so that every later process maps it and starts
//! at once instead of optimising the original ONNX file again.
//!
//! The file is keyed by the model's fingerprint and the runtime library's
//! name (the ORT format is tied to the runtime version), so a new model or a
//! new runtime gets a new file. It is written under a temporary name of its
//! own and renamed into place, so concurrent makers never see, or write
//! into, each other's half-made file.

use std::path::{Path, PathBuf};

use ort::environment::Environment;

use ort::session::builder::GraphOptimizationLevel;

use crate::error::Failure;
use crate::int8_products;

/// The ORT-format copy of the model in `model_dir`, made now if it does not
/// exist yet; `None` when there is no cache folder or it cannot be written
/// (the caller then loads the original model, more slowly).
pub(crate) fn ort_format(
    env: &Environment,
    model_dir: &Path,
    fingerprint: &str,
    runtime: &Path,
    cache: Option<&Path>,
) -> Option<PathBuf> {
    let path = path_for(cache?, fingerprint, runtime);
    if path.is_file() {
        return Some(path);
    }
    // One maker per process: a recall's query thread and its index sync
    // load the model at the same time, and would both make the copy.
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _making = MAKING.lock().unwrap_or_else(|p| p.into_inner());
    if path.is_file() {
        return Some(path);
    }
    let dir = path.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    // A name no other process or thread writes to; deleted if anything fails.
    let partial = tempfile::Builder::new()
        .prefix(".making-")
        .suffix(".ort")
        .tempfile_in(dir)
        .ok()?;
    write(env, &model_dir.join("model.onnx"), partial.path()).ok()?;
    partial.persist(&path).ok()?;
    Some(path)
}

/// Forgets a copy that failed to load (damaged, or from another runtime
/// build), so the next load makes it again.
pub(crate) fn discard(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// `<cache>/optimized/<model name>-<hash>.ort`.
fn path_for(cache: &Path, fingerprint: &str, runtime: &Path) -> PathBuf {
    let runtime_name = runtime.file_name().unwrap_or_default().to_string_lossy();
    // The fusions left out change the saved graph too, and so does the
    // form the weights take on this CPU.
    let sign = int8_products::WeightSign::here().name();
    let key = format!("{fingerprint}\n{runtime_name}\n{UNFUSED}\n{sign}");
    let key = crate::hash::sha256_hex(key.as_bytes());
    let model = fingerprint.split(':').next().unwrap_or("model");
    let model: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache
        .join("optimized")
        .join(format!("{model}-{}.ort", &key[..16]))
}

/// Lets ONNX Runtime optimise `onnx`, its int8 products rewritten to run in
/// integers ([`ModelFile`]), and save the result in ORT format.
/// Extended optimisations (level 2), not layout ones: the saved graph then
/// holds only operators every CPU build of the runtime has.
fn write(env: &Environment, onnx: &Path, out: &Path) -> Result<(), Failure> {
    let model = ModelFile::read(onnx)?;
    let ((), _) = model.load(|bytes| {
        let session = ort::session::Session::builder(env)
            .and_then(|b| Ok(b.with_optimization_level(GraphOptimizationLevel::Level2)?))
            .and_then(|b| Ok(b.with_disabled_optimizers(UNFUSED)?))
            .and_then(|b| Ok(b.with_optimized_model_path(out)?))
            .and_then(|b| Ok(b.with_config_entry("session.save_model_format", "ORT")?))
            .and_then(|mut b| b.commit_from_memory(bytes))?;
        drop(session);
        Ok(())
    })?;
    match out.is_file() {
        true => Ok(()),
        false => Err(Failure::NotWritten(out.to_path_buf())),
    }
}

/// ONNX Runtime's fusions left out of the optimised graph.
/// `SkipLayerNormFusion` adds the residual, the bias and normalises in one
/// operator, in another order than the graph's own nodes; the next int8
/// product rounds its input to `u8` steps, which turns that last-digit
/// difference into a vector 0.997 similar (cosine) to the unfused graph's,
/// which the built-in encoder computes, for a short query. Without it the
/// optimised graph gives the unoptimised graph's vectors to the last digit
/// (Python's `onnxruntime`), at the same speed within the noise (600
/// team-year texts, three rounds); the two engines still differ in the
/// floats around the products (docs/search.md, "Model and ONNX Runtime").
pub(crate) const UNFUSED: &str = "SkipLayerNormFusion";

/// The model file as read, and as ONNX Runtime is to run it: with its int8
/// weight products rewritten ([`int8_products::rewrite`]) when it has any.
pub(crate) struct ModelFile {
    original: bytes::Bytes,
    rewritten: Option<Vec<u8>>,
}

impl ModelFile {
    pub(crate) fn read(onnx: &Path) -> Result<ModelFile, Failure> {
        let original = std::fs::read(onnx).map_err(|e| Failure::Read {
            path: onnx.to_path_buf(),
            source: std::sync::Arc::new(e),
        })?;
        let original = bytes::Bytes::from(original);
        let rewritten = int8_products::rewrite_here(&original);
        Ok(ModelFile {
            original,
            rewritten,
        })
    }

    /// `load`'s result on the rewritten model; on the original when there
    /// is no rewrite, or ONNX Runtime refuses it (a graph this crate reads
    /// wrongly must not cost the model). Says which: `true` for the
    /// rewritten one.
    pub(crate) fn load<T>(
        &self,
        mut load: impl FnMut(&[u8]) -> Result<T, Failure>,
    ) -> Result<(T, bool), Failure> {
        if let Some(rewritten) = &self.rewritten {
            if let Ok(loaded) = load(rewritten) {
                return Ok((loaded, true));
            }
        }
        Ok((load(&self.original)?, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_named_by_model_and_runtime() {
        let cache = Path::new("/c");
        let a = path_for(
            cache,
            "all-MiniLM-L6-v2:22:abc",
            Path::new("/x/libonnxruntime.so.1.31.1"),
        );
        let b = path_for(
            cache,
            "all-MiniLM-L6-v2:22:abd",
            Path::new("/x/libonnxruntime.so.1.31.1"),
        );
        let c = path_for(
            cache,
            "all-MiniLM-L6-v2:22:abc",
            Path::new("/y/libonnxruntime.so.1.32.0"),
        );
        assert!(a.starts_with("/c/optimized"));
        assert!(a
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("all-MiniLM-L6-v2-"));
        assert_ne!(a, b, "another model file needs another copy");
        assert_ne!(a, c, "another runtime version needs another copy");
        let odd = path_for(cache, "a/b c:1:2", Path::new("x"));
        assert!(odd
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("a_b_c-"));
    }
}
