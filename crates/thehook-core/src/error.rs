//! One error type for the whole core. Every message says what went wrong and
//! what to do about it, because the person reading it is usually in the middle
//! of something else (a terminal, a hook log, a Node stack trace).
//!
//! The advice names the things a user can do ([`Step`]) in the words of the
//! front end they use: `thehook reindex` on the command line, `reindex()` in
//! Node. [`Error::in_words_of`] picks them; `Display` uses the CLI's, which
//! is also what hook logs show.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

pub(crate) mod fix;

pub(crate) use fix::fix;
pub use fix::{Fix, Step, Words};

/// Everything the core can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `.thehook/config.yaml` has a value that cannot be used.
    #[error("{path}:{line}: `{key}`: {problem}\n  fix: {fix}", path = .path.display())]
    Config {
        path: PathBuf,
        line: usize,
        key: String,
        problem: String,
        fix: Fix,
    },

    /// An environment override (`THEHOOK_*`) has a value that cannot be used.
    #[error("environment variable {var}={value:?}: {problem}\n  fix: {fix}")]
    EnvOverride {
        var: String,
        value: String,
        problem: String,
        fix: Fix,
    },

    /// A file or folder could not be read or written. The advice follows
    /// from the kind of failure (permissions, a missing file, a full disk).
    #[error("{action} {path}: {source}\n  fix: {advice}", path = .path.display(), advice = io_advice(.path, .source))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// `.thehook` exists but is not a folder, or the project layout is unusable.
    #[error("{path}: {problem}\n  fix: {fix}", path = .path.display())]
    Layout {
        path: PathBuf,
        problem: String,
        fix: Fix,
    },

    /// A markdown file could not be understood.
    #[error("{path}:{line}: {problem}\n  fix: {fix}", path = .path.display())]
    Markdown {
        path: PathBuf,
        line: usize,
        problem: String,
        fix: Fix,
    },

    /// The LMDB index failed in a way a rebuild did not cure. It is a cache
    /// of the markdown, so deleting it loses nothing.
    #[error("the index (.thehook/index/) failed: {source}\n  fix: {fix}")]
    Index {
        #[source]
        source: IndexFailure,
        fix: Fix,
    },

    /// The embedding model or ONNX Runtime could not be loaded or run.
    #[error("embedding model: {problem}\n  fix: {fix}")]
    Model { problem: String, fix: Fix },

    /// The caller asked for something that does not make sense.
    #[error("{problem}\n  fix: {fix}")]
    Usage { problem: String, fix: Fix },

    /// The project has no memory yet (no `.thehook/`).
    #[error("no memory yet: {root} has no .thehook/ folder\n  fix: {fix}", root = .root.display())]
    NoMemory { root: PathBuf, fix: Fix },

    /// An agent's settings file cannot be edited safely.
    #[error("{path}: {problem}\n  fix: {fix}", path = .path.display())]
    Settings {
        path: PathBuf,
        problem: String,
        fix: Fix,
    },

    /// An agent transcript could not be read.
    #[error("transcript {path}: {problem}\n  fix: check that it is a Claude Code, Cursor, Codex or Gemini CLI transcript; thehook leaves files it cannot read alone", path = .path.display())]
    Transcript { path: PathBuf, problem: String },

    /// The LLM CLI gave no usable answer (consolidation).
    #[error("{problem}\n  fix: {fix}")]
    Llm { problem: String, fix: Fix },

    /// `read` was given an id that matches no session, or several.
    #[error("{problem}\n  fix: {fix}")]
    SessionNotFound { problem: String, fix: Fix },

    /// `forget` was given an id that matches no item, or several.
    #[error("{problem}\n  fix: {fix}")]
    ItemNotFound { problem: String, fix: Fix },
}

/// What the storage under the index reported.
#[derive(Debug, thiserror::Error)]
pub enum IndexFailure {
    #[error("LMDB: {0}")]
    Lmdb(#[from] heed::Error),
    #[error("vectors: {0}")]
    Vectors(#[from] arroy::Error),
    /// A record that does not have the shape this version writes.
    #[error("{0}")]
    Damaged(Cow<'static, str>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<IndexFailure> for Error {
    fn from(source: IndexFailure) -> Error {
        Error::Index {
            source,
            fix: fix!(
                "delete .thehook/index/ and ",
                Step::Reindex,
                " (it is rebuilt from the markdown)"
            ),
        }
    }
}

impl From<heed::Error> for Error {
    fn from(e: heed::Error) -> Error {
        IndexFailure::from(e).into()
    }
}

impl From<arroy::Error> for Error {
    fn from(e: arroy::Error) -> Error {
        IndexFailure::from(e).into()
    }
}

/// Says which file an I/O failure was about, and what was being done.
pub(crate) trait IoContext<T> {
    fn at(self, action: &'static str, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, action: &'static str, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|source| Error::Io {
            action,
            path: path.as_ref().to_path_buf(),
            source,
        })
    }
}

/// The advice for an I/O failure, from its kind.
fn io_advice(path: &Path, source: &std::io::Error) -> String {
    match source.kind() {
        std::io::ErrorKind::PermissionDenied => {
            format!("check the permissions of {}", path.display())
        }
        std::io::ErrorKind::NotFound => format!("check that {} exists", path.display()),
        std::io::ErrorKind::StorageFull => {
            "free some disk space and run the command again".to_string()
        }
        _ => "check the file and run the command again".to_string(),
    }
}

impl Error {
    /// An I/O error on `path` (for code that has the `io::Error` in hand;
    /// a `Result` says [`IoContext::at`]).
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// A record in the index that is not what this version wrote.
    pub(crate) fn damaged_index(problem: impl Into<Cow<'static, str>>) -> Self {
        IndexFailure::Damaged(problem.into()).into()
    }

    /// The project at `root` has no `.thehook/` yet.
    pub fn no_memory(root: impl Into<PathBuf>) -> Self {
        Error::NoMemory {
            root: root.into(),
            fix: fix!(Step::Init, " there, or ", Step::Remember, ", to start one"),
        }
    }

    /// The same error, its advice naming steps as `words` name them.
    pub fn in_words_of(mut self, words: Words) -> Self {
        if let Some(fix) = self.fix_mut() {
            fix.words = words;
        }
        self
    }

    fn fix_mut(&mut self) -> Option<&mut Fix> {
        match self {
            Error::Config { fix, .. }
            | Error::EnvOverride { fix, .. }
            | Error::Layout { fix, .. }
            | Error::Markdown { fix, .. }
            | Error::Index { fix, .. }
            | Error::Model { fix, .. }
            | Error::Usage { fix, .. }
            | Error::NoMemory { fix, .. }
            | Error::Settings { fix, .. }
            | Error::Llm { fix, .. }
            | Error::SessionNotFound { fix, .. }
            | Error::ItemNotFound { fix, .. } => Some(fix),
            Error::Io { .. } | Error::Transcript { .. } => None,
        }
    }

    /// A short, stable name for the kind of error: the `code` of JS errors,
    /// and what the CLI's exit code is chosen by.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Config { .. } | Error::EnvOverride { .. } => "THEHOOK_CONFIG",
            Error::Io { .. } => "THEHOOK_IO",
            Error::Layout { .. } => "THEHOOK_LAYOUT",
            Error::Markdown { .. } => "THEHOOK_MARKDOWN",
            Error::Index { .. } => "THEHOOK_INDEX",
            Error::Model { .. } => "THEHOOK_MODEL",
            Error::Usage { .. } => "THEHOOK_USAGE",
            Error::Transcript { .. } => "THEHOOK_TRANSCRIPT",
            Error::Settings { .. } => "THEHOOK_SETTINGS",
            Error::Llm { .. } => "THEHOOK_LLM",
            Error::ItemNotFound { .. } | Error::SessionNotFound { .. } | Error::NoMemory { .. } => {
                "THEHOOK_NOT_FOUND"
            }
        }
    }

    /// Whether the error only says that nothing matched (exit code 1 in
    /// the CLI, not a failure to fix).
    pub fn is_not_found(&self) -> bool {
        self.code() == "THEHOOK_NOT_FOUND"
    }
}

/// The message of a caught panic (`&str` or `String` payloads), for logs
/// and for the Node addon's `THEHOOK_PANIC` errors.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
