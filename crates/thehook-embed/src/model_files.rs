//! Where the model is and how to run it ([`ModelFiles`]), the model's
//! fingerprint, and the ONNX Runtime library's file name.

use std::path::{Path, PathBuf};

use crate::hash::sha256_hex;
use crate::{native, onnx_graph};

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
/// CPU ([`crate::int8_products`]; `:int8` was before, when a CPU without VNNI
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
