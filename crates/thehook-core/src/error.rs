//! One error type for the whole core. Every message says what went wrong and
//! what to do about it, because the person reading it is usually in the middle
//! of something else (a terminal, a hook log, a Node stack trace).

use std::path::PathBuf;

/// Everything the core can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `.thehook/config.yaml` has a value that cannot be used.
    #[error("{path}:{line}: `{key}`: {problem}\n  fix: {fix}")]
    Config {
        path: PathBuf,
        line: usize,
        key: String,
        problem: String,
        fix: String,
    },

    /// An environment override (`THEHOOK_*`) has a value that cannot be used.
    #[error("environment variable {var}={value:?}: {problem}\n  fix: {fix}")]
    EnvOverride {
        var: String,
        value: String,
        problem: String,
        fix: String,
    },

    /// A file or folder could not be read or written.
    #[error("{action} {path}: {source}\n  fix: {fix}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
        fix: String,
    },

    /// `.thehook` exists but is not a folder, or the project layout is unusable.
    #[error("{path}: {problem}\n  fix: {fix}")]
    Layout {
        path: PathBuf,
        problem: String,
        fix: String,
    },

    /// A markdown file could not be understood.
    #[error("{path}:{line}: {problem}\n  fix: {fix}")]
    Markdown {
        path: PathBuf,
        line: usize,
        problem: String,
        fix: String,
    },

    /// The LMDB index failed in a way a rebuild did not cure.
    #[error("index at {path}: {problem}\n  fix: delete {path} and run `thehook reindex`")]
    Index { path: PathBuf, problem: String },

    /// The embedding model or ONNX Runtime could not be loaded or run.
    #[error("embedding model: {problem}\n  fix: {fix}")]
    Model { problem: String, fix: String },

    /// The caller asked for something that does not make sense.
    #[error("{problem}\n  fix: {fix}")]
    Usage { problem: String, fix: String },

    /// The project has no memory yet (no `.thehook/`).
    #[error("no memory yet: {root} has no .thehook/ folder\n  fix: run `thehook init` there (or `thehook remember \"<fact>\"`) to start one")]
    NoMemory { root: PathBuf },

    /// An agent's settings file cannot be edited safely.
    #[error("{path}: {problem}\n  fix: {fix}")]
    Settings {
        path: PathBuf,
        problem: String,
        fix: String,
    },

    /// An agent transcript could not be read.
    #[error("transcript {path}: {problem}\n  fix: check that it is a Claude Code, Cursor, Codex or Gemini CLI transcript; thehook leaves files it cannot read alone")]
    Transcript { path: PathBuf, problem: String },

    /// The LLM CLI gave no usable answer (consolidation).
    #[error("{problem}\n  fix: {fix}")]
    Llm { problem: String, fix: String },

    /// `read` was given an id that matches no session, or several.
    #[error("{problem}\n  fix: {fix}")]
    SessionNotFound { problem: String, fix: String },

    /// `forget` was given an id that matches no item, or several.
    #[error("{problem}\n  fix: {fix}")]
    ItemNotFound { problem: String, fix: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error on `path` with a fix that fits the kind of failure.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        let fix = match source.kind() {
            std::io::ErrorKind::PermissionDenied => {
                format!("check the permissions of {}", path.display())
            }
            std::io::ErrorKind::NotFound => format!("check that {} exists", path.display()),
            std::io::ErrorKind::StorageFull => {
                "free some disk space and run the command again".to_string()
            }
            _ => "check the file and run the command again".to_string(),
        };
        Error::Io {
            action,
            path,
            source,
            fix,
        }
    }

    pub(crate) fn index(path: impl Into<PathBuf>, problem: impl std::fmt::Display) -> Self {
        Error::Index {
            path: path.into(),
            problem: problem.to_string(),
        }
    }

    /// A short, stable name for the kind of error (used for exit codes and,
    /// later, for the `code` of JS errors).
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
