//! Sentence embeddings for thehook: all-MiniLM-L6-v2 (or another BERT
//! sentence model in ONNX) turned into unit vectors by mean pooling.
//!
//! Two engines run the same int8 arithmetic:
//! - ONNX Runtime, loaded at run time (`ort` with `load-dynamic`) from the
//!   library the caller found, running an optimised ORT-format copy of the
//!   model kept in a cache folder and read through a memory map
//!   ([`onnx_runtime`], [`optimized`]); the model's int8 products are
//!   rewritten so that they are exact on every x86-64 CPU, with or without
//!   VNNI ([`int8_products`], [`onnx_graph`]);
//! - a built-in BERT encoder ([`native`]) that reads the ONNX file's
//!   weights and starts in milliseconds, for a few queries.
//!
//! Nothing is downloaded: the caller says where the model, the runtime and
//! the cache are ([`ModelFiles`]). This crate knows nothing of memory items,
//! sessions or projects.

mod error;
mod int8_products;
mod model;
mod native;
mod onnx_graph;
mod onnx_runtime;
mod optimized;
mod tokenizer_copy;

use std::path::{Path, PathBuf};

pub use error::{Error, Failure, Result};
pub use model::{embed_all, tokenizer, Embedder, Keep, Workload};

/// The ONNX Runtime library file name on this platform (the version the
/// engine is built against, which `scripts/fetch-assets.py` installs).
#[cfg(target_os = "linux")]
pub const ORT_LIB: &str = "libonnxruntime.so.1.31.1";
#[cfg(target_os = "macos")]
pub const ORT_LIB: &str = "libonnxruntime.1.31.1.dylib";
#[cfg(target_os = "windows")]
pub const ORT_LIB: &str = "onnxruntime.dll";

/// How vectors are computed from the model file, as a fingerprint suffix:
/// bumped when that changes, so stored vectors are computed again.
/// `:int8x`: int8 weight products run in integers, the sums exact on every
/// CPU ([`int8_products`]; `:int8` was before, when a CPU without VNNI
/// clipped them); none where they run in floats.
const ARITHMETIC: &str = if onnx_graph::INT8_PRODUCTS {
    ":int8x"
} else {
    ""
};

/// The model `name` in `dir` as a fingerprint: the name, the file's size,
/// a hash of its first 64 KiB and [`ARITHMETIC`]. Cheap to compute on every
/// open, and it changes when the model file is swapped or the way it runs
/// does.
pub fn fingerprint(name: &str, dir: &Path) -> String {
    let onnx = dir.join("model.onnx");
    let size = std::fs::metadata(&onnx).map(|m| m.len()).unwrap_or(0);
    let mut head = vec![0u8; 64 * 1024];
    let n = std::fs::File::open(&onnx)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let hex = sha256_hex(&head[..n]);
    format!("{name}:{size}:{}{ARITHMETIC}", &hex[..12])
}

/// Where the model is and how to run it.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The folder with `model.onnx` and the tokenizer's files.
    pub dir: PathBuf,
    /// The ONNX Runtime library; `None`: the built-in encoder runs items too.
    pub runtime: Option<PathBuf>,
    /// Names the model's optimised copy in `optimized_cache`.
    pub fingerprint: String,
    /// Where the optimised copy of the model is kept, if anywhere.
    pub optimized_cache: Option<PathBuf>,
    /// Queries run on ONNX Runtime too, not on the built-in encoder.
    pub queries_on_onnx_runtime: bool,
}

/// Whether the built-in encoder can run the model in `dir` (a BERT whose
/// graph it knows), so that no ONNX Runtime is needed.
pub fn built_in_encoder_runs(dir: &Path) -> bool {
    native::runs(dir)
}

/// SHA-256 of `bytes` as lowercase hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests;
