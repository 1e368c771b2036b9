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
//!
//! This file is the crate's face: it declares the modules and re-exports
//! what other crates use, and defines nothing its modules import
//! (`scripts/check-cycles.py` checks it).

mod error;
mod hash;
mod int8_products;
mod model;
mod model_files;
mod native;
mod onnx_graph;
mod onnx_runtime;
mod optimized;
mod tokenizer_copy;

pub use error::{Error, Failure, Result};
pub use model::{embed_all, tokenizer, Embedder, Keep, Workload};
pub use model_files::{built_in_encoder_runs, fingerprint, ModelFiles, ORT_LIB};

#[cfg(test)]
mod tests;
