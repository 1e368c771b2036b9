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

mod disk;
pub(crate) mod fix;

pub(crate) use disk::is_full;

pub(crate) use fix::fix;
pub use fix::{Fix, Step, Words};
/// What the model's libraries reported (the engine's [`thehook_embed::Failure`]).
pub use thehook_embed::Failure as ModelFailure;

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
        /// The library's error behind it, when one is.
        #[source]
        source: Option<Cause>,
        fix: Fix,
    },

    /// An environment override (`THEHOOK_*`) has a value that cannot be used.
    #[error("environment variable {var}={value:?}: {problem}\n  fix: {fix}")]
    EnvOverride {
        var: String,
        value: String,
        problem: String,
        /// The library's error behind it, when one is.
        #[source]
        source: Option<Cause>,
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

    /// A write found no room: the disk, or the user's quota, is full
    /// ([`disk`]). Nothing was written at `path`; what was there is unchanged.
    #[error("the disk holding {path} is full: {what}\n  fix: {fix}", path = .path.display())]
    DiskFull {
        what: String,
        path: PathBuf,
        #[source]
        source: Cause,
        fix: Fix,
    },

    /// `.thehook` exists but is not a folder, or the project layout is unusable.
    #[error("{path}: {problem}\n  fix: {fix}", path = .path.display())]
    Layout {
        path: PathBuf,
        problem: String,
        /// The library's error behind it, when one is.
        #[source]
        source: Option<Cause>,
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
    Model {
        problem: String,
        /// What the library that failed said, when one did.
        #[source]
        source: Option<ModelFailure>,
        fix: Fix,
    },

    /// The caller asked for something that does not make sense.
    #[error("{problem}\n  fix: {fix}")]
    Usage {
        problem: String,
        /// The library's error behind it, when one is.
        #[source]
        source: Option<Cause>,
        fix: Fix,
    },

    /// The project has no memory yet (no `.thehook/`).
    #[error("no memory yet: {root} has no .thehook/ folder\n  fix: {fix}", root = .root.display())]
    NoMemory { root: PathBuf, fix: Fix },

    /// An agent's settings file cannot be edited safely.
    #[error("{path}: {problem}\n  fix: {fix}", path = .path.display())]
    Settings {
        path: PathBuf,
        problem: String,
        /// The library's error behind it, when one is.
        #[source]
        source: Option<Cause>,
        fix: Fix,
    },

    /// An agent transcript could not be read.
    /// `formats` names the agents whose transcripts thehook reads.
    #[error("transcript {path}: {problem}\n  fix: check that it is a {formats} transcript; thehook leaves files it cannot read alone", path = .path.display())]
    Transcript {
        path: PathBuf,
        #[source]
        problem: crate::transcript::NotATranscript,
        formats: &'static str,
    },

    /// The LLM CLI gave no usable answer (consolidation).
    #[error("{problem}\n  fix: {fix}")]
    Llm {
        problem: String,
        /// Why the LLM gave no answer, when it gave none.
        #[source]
        source: Option<Cause>,
        fix: Fix,
    },

    /// `read` was given an id that matches no session, or several.
    #[error("{miss}\n  fix: {fix}")]
    SessionNotFound { miss: SessionMiss, fix: Fix },

    /// `forget`, `review` were given an id that matches no item, or several.
    #[error("{miss}\n  fix: {fix}")]
    ItemNotFound { miss: ItemMiss, fix: Fix },
}

/// Why `read` found no one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionMiss {
    /// A transcript file given by path is neither in the agents' stores for
    /// the project nor inside it.
    NotOfProject { file: String, project: PathBuf },
    /// No session id starts with `query`.
    NoMatch { query: String, searched: usize },
    /// Several do: the first ten as (id, transcript), and how many in all.
    Ambiguous {
        query: String,
        candidates: Vec<(String, PathBuf)>,
        total: usize,
    },
}

impl std::fmt::Display for SessionMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionMiss::NotOfProject { file, project } => write!(
                f,
                "{file} is not a transcript of this project (neither in the agents' stores for {} nor inside it)",
                project.display()
            ),
            SessionMiss::NoMatch { query, searched } => write!(
                f,
                "no session of this project has an id starting with {query:?} ({searched} sessions searched)"
            ),
            SessionMiss::Ambiguous {
                query,
                candidates,
                total,
            } => {
                write!(f, "{total} sessions have ids starting with {query:?}:")?;
                for (id, path) in candidates {
                    write!(f, "\n  {id} ({})", path.display())?;
                }
                Ok(())
            }
        }
    }
}

/// Why an item id named no one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemMiss {
    /// No item's id starts with `prefix`.
    NoMatch { prefix: String },
    /// Several do: (id, citation) of each.
    Ambiguous {
        prefix: String,
        candidates: Vec<(String, String)>,
    },
    /// The item is no longer in its file (edited since it was indexed).
    Gone { id: String, path: String },
    /// The rewritten item is not where it was written.
    NotAfterRewrite { citation: String },
}

impl std::fmt::Display for ItemMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ItemMiss::NoMatch { prefix } => write!(f, "no item has an id starting with `{prefix}`"),
            ItemMiss::Ambiguous { prefix, candidates } => {
                let list: Vec<String> = candidates
                    .iter()
                    .map(|(id, citation)| format!("{id} ({citation})"))
                    .collect();
                write!(f, "`{prefix}` matches several items: {}", list.join(", "))
            }
            ItemMiss::Gone { id, path } => write!(f, "item {id} is no longer in {path}"),
            ItemMiss::NotAfterRewrite { citation } => {
                write!(f, "the rewritten item is not at {citation}")
            }
        }
    }
}

/// The kind of an error, stable across versions: the `code` of JS errors
/// (`THEHOOK_USAGE`...), and what the CLI's exit code is chosen by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    Config,
    Io,
    DiskFull,
    Layout,
    Markdown,
    Index,
    Model,
    Usage,
    Transcript,
    Settings,
    Llm,
    /// Nothing matched: not a failure to fix (the CLI exits 1).
    NotFound,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Config => "THEHOOK_CONFIG",
            ErrorCode::Io => "THEHOOK_IO",
            ErrorCode::DiskFull => "THEHOOK_DISK_FULL",
            ErrorCode::Layout => "THEHOOK_LAYOUT",
            ErrorCode::Markdown => "THEHOOK_MARKDOWN",
            ErrorCode::Index => "THEHOOK_INDEX",
            ErrorCode::Model => "THEHOOK_MODEL",
            ErrorCode::Usage => "THEHOOK_USAGE",
            ErrorCode::Transcript => "THEHOOK_TRANSCRIPT",
            ErrorCode::Settings => "THEHOOK_SETTINGS",
            ErrorCode::Llm => "THEHOOK_LLM",
            ErrorCode::NotFound => "THEHOOK_NOT_FOUND",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
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

/// A library's error kept as the source of one of thehook's: one pointer,
/// so that [`Error`] stays small enough to return by value.
#[derive(Debug)]
pub struct Cause(Box<Box<dyn std::error::Error + Send + Sync>>);

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// `e` kept as a source.
pub fn cause(e: impl std::error::Error + Send + Sync + 'static) -> Option<Cause> {
    Some(Cause(Box::new(Box::new(e))))
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
        self.map_err(|source| Error::io_at(action, path.as_ref().to_path_buf(), source))
    }
}

/// The advice for an I/O failure, from its kind.
fn io_advice(path: &Path, source: &std::io::Error) -> String {
    match source.kind() {
        std::io::ErrorKind::PermissionDenied => {
            format!("check the permissions of {}", path.display())
        }
        std::io::ErrorKind::NotFound => format!("check that {} exists", path.display()),
        _ => "check the file and run the command again".to_string(),
    }
}

impl Error {
    /// An I/O error on `path` (for code that has the `io::Error` in hand;
    /// a `Result` says [`IoContext::at`]).
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::io_at(action, path.into(), source)
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
            | Error::ItemNotFound { fix, .. }
            | Error::DiskFull { fix, .. } => Some(fix),
            Error::Io { .. } | Error::Transcript { .. } => None,
        }
    }

    /// The kind of error: the `code` of JS errors, and what the CLI's exit
    /// code is chosen by.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Config { .. } | Error::EnvOverride { .. } => ErrorCode::Config,
            Error::Io { .. } => ErrorCode::Io,
            Error::DiskFull { .. } => ErrorCode::DiskFull,
            Error::Layout { .. } => ErrorCode::Layout,
            Error::Markdown { .. } => ErrorCode::Markdown,
            Error::Index { .. } => ErrorCode::Index,
            Error::Model { .. } => ErrorCode::Model,
            Error::Usage { .. } => ErrorCode::Usage,
            Error::Transcript { .. } => ErrorCode::Transcript,
            Error::Settings { .. } => ErrorCode::Settings,
            Error::Llm { .. } => ErrorCode::Llm,
            Error::ItemNotFound { .. } | Error::SessionNotFound { .. } | Error::NoMemory { .. } => {
                ErrorCode::NotFound
            }
        }
    }

    /// Whether the error only says that nothing matched (exit code 1 in
    /// the CLI, not a failure to fix).
    pub fn is_not_found(&self) -> bool {
        self.code() == ErrorCode::NotFound
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_miss_carries_its_candidates_and_says_them() {
        let e = Error::SessionNotFound {
            miss: SessionMiss::Ambiguous {
                query: "5560".into(),
                candidates: vec![
                    ("55604662-a".into(), PathBuf::from("s/a.jsonl")),
                    ("55604662-b".into(), PathBuf::from("s/b.jsonl")),
                ],
                total: 2,
            },
            fix: "give more of the id".into(),
        };
        assert_eq!(
            e.to_string(),
            "2 sessions have ids starting with \"5560\":\n  55604662-a (s/a.jsonl)\n  55604662-b (s/b.jsonl)\n  fix: give more of the id"
        );
        assert!(e.is_not_found());
        assert_eq!(e.code().as_str(), "THEHOOK_NOT_FOUND");
        let Error::SessionNotFound {
            miss: SessionMiss::Ambiguous { candidates, .. },
            ..
        } = e
        else {
            unreachable!()
        };
        assert_eq!(candidates[1].0, "55604662-b");
        let item = ItemMiss::Ambiguous {
            prefix: "ab12".into(),
            candidates: vec![
                ("ab12cd".into(), "x.md:3".into()),
                ("ab12ef".into(), "y.md:9".into()),
            ],
        };
        assert_eq!(
            item.to_string(),
            "`ab12` matches several items: ab12cd (x.md:3), ab12ef (y.md:9)"
        );
    }
}
