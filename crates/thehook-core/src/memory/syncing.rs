//! The one way memory is brought up to date with the markdown: a
//! [`SyncPolicy`] says how far a sync looks ([`Refresh`]), how many changed
//! files it takes and what becomes of its findings (its scope), and how many
//! new items it embeds before it returns ([`Embedding`]).

use crate::error::{Error, Fix, Result};
use crate::memory::index::{Embedding, SyncPlan, SyncStats};
use crate::memory::{Memory, Progress};
use crate::model::Availability;

/// Items a one-shot command (`recall`, `status`) embeds before it answers:
/// about 1.3 s at 100 items/s, a dozen captured sessions. More, as after a
/// pull of a teammate's week, are left to a detached sync.
pub const EMBED_NOW_LIMIT: usize = 128;

/// Changed files the session-start hook indexes itself, lexically (a hand
/// edit, a session the worker has not indexed). More, as after a pull, are
/// left to its detached half: 20 pulled session files added about 38 ms to
/// a session start (one run of bench/team.py, on a busy machine).
pub const SESSION_START_FILES: usize = 8;

/// How much of the markdown a sync checks for changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// Every file's size and modification time: any edit is seen. For the
    /// commands that write memory or report on it.
    EveryFile,
    /// The folders' stamp and each knowledge file's, as the hooks check
    /// (`store::Stamp`): a new, removed or renamed file and any edit of a
    /// knowledge file are seen. An edit in place of an existing session
    /// file (by hand: capture, git and thehook's own commands write whole
    /// files, which moves the folder's stamp) waits for the next
    /// [`Refresh::EveryFile`]: every session start's detached half,
    /// `status`, `reindex`. For recall, which answers while an agent
    /// waits: listing a team's year of files cost it 35 of its 40 ms.
    Stamped,
}

/// What a sync covers: one of four.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// A hook's, while an agent waits: more than [`SESSION_START_FILES`]
    /// changed files (a pull) are left to a later sync.
    Hook(Refresh),
    /// Before an answer: what the sync finds about the markdown (and the
    /// items it left unembedded) becomes the memory's notices, for the
    /// answer to carry.
    Answer(Refresh),
    /// Every file, the findings returned to the caller.
    Full,
    /// The index built again from the markdown.
    Rebuild,
}

/// How a sync runs: its scope and its [`Embedding`], chosen by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncPolicy {
    scope: Scope,
    embedding: Embedding,
}

impl SyncPolicy {
    /// A hook's: the folders' stamp trusted, at most
    /// [`SESSION_START_FILES`] changed files, nothing embedded.
    pub const HOOK: SyncPolicy = SyncPolicy {
        scope: Scope::Hook(Refresh::Stamped),
        embedding: Embedding::Later,
    };
    /// [`SyncPolicy::HOOK`] with every file listed (`doctor`, where an edit
    /// in place is looked for).
    pub const HOOK_EVERY_FILE: SyncPolicy = SyncPolicy {
        scope: Scope::Hook(Refresh::EveryFile),
        embedding: Embedding::Later,
    };
    /// Every file, every new item embedded (the worker, `reindex
    /// --pending`, the detached half of a session start).
    pub const FULL: SyncPolicy = SyncPolicy {
        scope: Scope::Full,
        embedding: Embedding::All,
    };
    /// The index built again, every item embedded. Other processes read the
    /// old index while the items are embedded, then, for the seconds the
    /// writing takes, the files written so far.
    pub const REBUILD: SyncPolicy = SyncPolicy {
        scope: Scope::Rebuild,
        embedding: Embedding::All,
    };

    /// Before an answer, looking as far as `refresh`: its findings become
    /// notices ([`Memory::take_notices`]).
    pub const fn answer(refresh: Refresh, embedding: Embedding) -> SyncPolicy {
        SyncPolicy {
            scope: Scope::Answer(refresh),
            embedding,
        }
    }

    /// A one-shot command's answer: at most [`EMBED_NOW_LIMIT`] items
    /// embedded first, the rest left to a detached sync.
    pub const fn answer_now(refresh: Refresh) -> SyncPolicy {
        SyncPolicy::answer(refresh, Embedding::AtMost(EMBED_NOW_LIMIT))
    }

    fn refresh(self) -> Refresh {
        match self.scope {
            Scope::Hook(refresh) | Scope::Answer(refresh) => refresh,
            Scope::Full | Scope::Rebuild => Refresh::EveryFile,
        }
    }

    fn plan<'a>(self, availability: &'a Availability, progress: Progress<'a>) -> SyncPlan<'a> {
        SyncPlan {
            rebuild: self.scope == Scope::Rebuild,
            quick: self.refresh() == Refresh::Stamped,
            max_files: matches!(self.scope, Scope::Hook(_)).then_some(SESSION_START_FILES),
            ..SyncPlan::new(availability, self.embedding, progress)
        }
    }
}

/// Reports no progress.
pub const NO_PROGRESS: Progress<'static> = &|_, _| {};

impl Memory {
    /// Brings the index up to date with the markdown, as `policy` says.
    ///
    /// A model that is present but cannot be used (a broken ONNX Runtime
    /// library, a damaged model file) does not stop memory from working: the
    /// sync runs again without vectors and a notice says why.
    pub fn sync(&mut self, policy: SyncPolicy, progress: Progress) -> Result<SyncStats> {
        // A command that answered under a budget writes under it too: its
        // own writes (`remember`, `forget`) after a large pull must not
        // embed the pull either.
        let policy = match (policy.scope, policy.embedding) {
            (Scope::Answer(_), embedding @ Embedding::AtMost(_)) => {
                self.own_embedding = embedding;
                policy
            }
            (Scope::Full, Embedding::All) => SyncPolicy {
                embedding: self.own_embedding,
                ..policy
            },
            _ => policy,
        };
        let stats = match self
            .index
            .sync(&self.project, &policy.plan(&self.availability, progress))
        {
            Err(Error::Model { problem, fix, .. }) => {
                // The failed sync changed nothing; redo it without vectors
                // (the index keeps the ones it has for when the model works).
                self.fall_back_to_lexical(problem, fix);
                let plan = policy.plan(&self.availability, progress);
                self.index.sync(&self.project, &plan)
            }
            other => other,
        }?;
        if let Scope::Answer(_) = policy.scope {
            if stats.embeddings_deferred > 0 {
                self.notices.push(format!(
                    "{} new items are being embedded in the background; until then they are found by their words",
                    stats.embeddings_deferred
                ));
            }
            self.notices.extend(stats.warnings.iter().cloned());
        }
        Ok(stats)
    }

    /// Stops using the model for the rest of this process.
    pub(super) fn fall_back_to_lexical(&mut self, problem: String, fix: Fix) {
        self.notices.push(format!(
            "the embedding model cannot be used, searching lexical-only: {problem} (fix: {fix})"
        ));
        self.availability = Availability::Missing {
            reason: problem,
            fix,
        };
        self.query_model.unload();
    }
}
