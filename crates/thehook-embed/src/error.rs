//! What went wrong loading or running the model: each failure with the data
//! that says which file or which library, for the caller to advise on.

use std::path::PathBuf;
use std::sync::Arc;

/// A failure of the model, its runtime or its tokenizer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Neither engine can run the model: the built-in encoder does not know
    /// its graph, and there is no ONNX Runtime.
    #[error("the built-in encoder cannot read {}, and ONNX Runtime was not found", .0.display())]
    NoEngine(PathBuf),
    /// The tokenizer file could not be read.
    #[error("cannot read the tokenizer {}: {source}", path.display())]
    Tokenizer { path: PathBuf, source: Failure },
    /// The thread loading the tokenizer panicked.
    #[error("loading the tokenizer crashed")]
    TokenizerCrashed,
    /// ONNX Runtime could not load the model in `dir`.
    #[error("cannot load the model in {}: {source}", dir.display())]
    Model { dir: PathBuf, source: Failure },
    /// The ONNX Runtime library could not be loaded.
    #[error("cannot load {}: {source}", lib.display())]
    LoadRuntime { lib: PathBuf, source: Failure },
    /// The ONNX Runtime library loaded but did not start.
    #[error("cannot start ONNX Runtime from {}: {source}", lib.display())]
    StartRuntime { lib: PathBuf, source: Failure },
    /// Embedding a text failed in a library.
    #[error("embedding failed: {0}")]
    Embedding(Failure),
    /// Embedding a text failed for a reason of this crate's own.
    #[error("embedding failed: {0}")]
    Invalid(String),
}

impl Error {
    /// The library's failure behind this one, when a library failed.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Error::Tokenizer { source, .. }
            | Error::Model { source, .. }
            | Error::LoadRuntime { source, .. }
            | Error::StartRuntime { source, .. }
            | Error::Embedding(source) => Some(source),
            Error::NoEngine(_) | Error::TokenizerCrashed | Error::Invalid(_) => None,
        }
    }

    /// Embedding gave `got` vectors for `expected` texts.
    pub fn vector_count(expected: usize, got: usize) -> Error {
        Error::Embedding(Failure::VectorCount { expected, got })
    }
}

/// What the model's libraries reported: ONNX Runtime, the tokenizer, the
/// file system. Shared (`Arc`): a runtime that failed to load is remembered
/// for the process, with its error.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Failure {
    /// ONNX Runtime's errors: loading the library, running a session.
    #[error(transparent)]
    Runtime(Arc<dyn std::error::Error + Send + Sync>),
    #[error(transparent)]
    Tokenizer(Arc<dyn std::error::Error + Send + Sync>),
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    #[error("ONNX Runtime wrote no {}", .0.display())]
    NotWritten(PathBuf),
    /// The model gave another number of vectors than it was given texts.
    #[error("the model gave {got} vectors for {expected} texts")]
    VectorCount { expected: usize, got: usize },
}

impl From<ort::Error> for Failure {
    fn from(e: ort::Error) -> Failure {
        Failure::Runtime(Arc::new(e))
    }
}

impl From<tokenizers::Error> for Failure {
    fn from(e: tokenizers::Error) -> Failure {
        Failure::Tokenizer(Arc::from(e))
    }
}

/// A library's error while embedding.
pub(crate) fn failed<E: Into<Failure>>(e: E) -> Error {
    Error::Embedding(e.into())
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
