//! How memory is brought up to date with the markdown by `Memory::sync`,
//! the one way: a [`SyncPolicy`] says how far a sync looks ([`Refresh`]),
//! how many changed files it takes and what becomes of its findings (its
//! scope), and how many new items it embeds before it returns
//! ([`Embedding`]).

use crate::memory::index::{Embedding, Focus, SyncPlan};
use crate::model::Availability;

/// Items a one-shot command (`recall`, `status`) embeds before it answers:
/// about 1.3 s at 100 items/s, a dozen captured sessions. More, as after a
/// pull of a teammate's week, are left to a detached sync.
pub const EMBED_NOW_LIMIT: usize = 128;

/// New session files a hook's sync indexes itself, lexically, beside every
/// knowledge file and every file indexed before that changed or went (so
/// that no removed text is given). More, as after a pull, are left to the
/// session start's detached half, those the answer needs first taken now
/// ([`Focus`]): 20 pulled session files added about 38 ms to a session
/// start (one run of bench/team.py, on a busy machine).
pub const HOOK_NEW_SESSION_FILES: usize = 8;

/// New item texts and session titles a hook's sync judges with the learned
/// check before it answers, embedded by the built-in encoder (about 20 ms
/// to load its tokenizer, then some 50 texts a second a core) and not
/// stored: the detached half embeds them on ONNX Runtime. Without this an
/// item written since the last sync would reach agents one session late,
/// since no item the check has not read is given. Beyond it they wait, and
/// the hook log says how many: a hand edit is a few texts, a pulled
/// session four or five, so this is a hand edit and the first sessions of
/// a pull, at about a quarter of a second once.
pub const HOOK_JUDGE_TEXTS: usize = 16;

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
    /// files, which moves the folder's stamp) is seen when an answer cites
    /// the file (`Memory::recheck`), else by the next
    /// [`Refresh::EveryFile`]: every session start's detached half,
    /// `status`, `reindex`. For recall, which answers while an agent
    /// waits: listing a team's year of files cost it 35 of its 40 ms.
    Stamped,
}

/// What a sync covers: one of four.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// A hook's, while an agent waits: new session files beyond
    /// [`HOOK_NEW_SESSION_FILES`] (a pull) are left to a later sync.
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

/// How a sync runs: its scope and its [`Embedding`], chosen by the caller,
/// and for a hook what its answer is about ([`SyncPolicy::focused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncPolicy<'f> {
    scope: Scope,
    embedding: Embedding,
    focus: Option<&'f Focus>,
    only: Option<&'f [String]>,
}

impl SyncPolicy<'static> {
    /// A hook's: the folders' stamp trusted, at most
    /// [`HOOK_NEW_SESSION_FILES`] new session files, nothing stored as a
    /// vector, the first [`HOOK_JUDGE_TEXTS`] new texts judged.
    pub const HOOK: SyncPolicy<'static> = SyncPolicy {
        scope: Scope::Hook(Refresh::Stamped),
        embedding: Embedding::Later,
        focus: None,
        only: None,
    };
    /// [`SyncPolicy::HOOK`] with every file listed (`doctor`, where an edit
    /// in place is looked for).
    pub const HOOK_EVERY_FILE: SyncPolicy<'static> = SyncPolicy {
        scope: Scope::Hook(Refresh::EveryFile),
        embedding: Embedding::Later,
        focus: None,
        only: None,
    };
    /// Every file, every new item embedded (the worker, `reindex
    /// --pending`, the detached half of a session start).
    pub const FULL: SyncPolicy<'static> = SyncPolicy {
        scope: Scope::Full,
        embedding: Embedding::All,
        focus: None,
        only: None,
    };
    /// The index built again, every item embedded. Other processes read the
    /// old index while the items are embedded, then, for the seconds the
    /// writing takes, the files written so far.
    pub const REBUILD: SyncPolicy<'static> = SyncPolicy {
        scope: Scope::Rebuild,
        embedding: Embedding::All,
        focus: None,
        only: None,
    };

    /// Before an answer, looking as far as `refresh`: its findings become
    /// notices (`Memory::take_notices`).
    pub const fn answer(refresh: Refresh, embedding: Embedding) -> SyncPolicy<'static> {
        SyncPolicy {
            scope: Scope::Answer(refresh),
            embedding,
            focus: None,
            only: None,
        }
    }

    /// A one-shot command's answer: at most [`EMBED_NOW_LIMIT`] items
    /// embedded first, the rest left to a detached sync.
    pub const fn answer_now(refresh: Refresh) -> SyncPolicy<'static> {
        SyncPolicy::answer(refresh, Embedding::AtMost(EMBED_NOW_LIMIT))
    }
}

impl<'f> SyncPolicy<'f> {
    /// This policy with the answer's [`Focus`]: a hook's sync that cannot
    /// take every changed file takes its sessions first.
    pub const fn focused<'g>(self, focus: &'g Focus) -> SyncPolicy<'g>
    where
        'f: 'g,
    {
        SyncPolicy {
            scope: self.scope,
            embedding: self.embedding,
            focus: Some(focus),
            only: self.only,
        }
    }

    /// This policy for the files `rels` alone, whatever the stamp says:
    /// those an answer cites, checked before it is given.
    pub const fn only<'g>(self, rels: &'g [String]) -> SyncPolicy<'g>
    where
        'f: 'g,
    {
        SyncPolicy {
            scope: self.scope,
            embedding: self.embedding,
            focus: self.focus,
            only: Some(rels),
        }
    }

    fn refresh(self) -> Refresh {
        match self.scope {
            Scope::Hook(refresh) | Scope::Answer(refresh) => refresh,
            Scope::Full | Scope::Rebuild => Refresh::EveryFile,
        }
    }

    /// Whether what the sync finds about the markdown becomes notices.
    pub(super) fn reports_findings(self) -> bool {
        matches!(self.scope, Scope::Answer(_))
    }

    /// This policy as a process that may have answered under a budget
    /// runs it: an answer's budget is kept (`own`), and a full sync of the
    /// process's own writes embeds within it, so `remember` or `forget`
    /// after a large pull does not embed the pull either.
    pub(super) fn within(self, own: &mut Embedding) -> SyncPolicy<'f> {
        match (self.scope, self.embedding) {
            (Scope::Answer(_), embedding @ Embedding::AtMost(_)) => {
                *own = embedding;
                self
            }
            (Scope::Full, Embedding::All) => SyncPolicy {
                embedding: *own,
                ..self
            },
            _ => self,
        }
    }

    pub(super) fn plan<'a>(
        self,
        availability: &'a Availability,
        progress: Progress<'a>,
        trusted_authors: &'a [String],
    ) -> SyncPlan<'a>
    where
        'f: 'a,
    {
        let hook = matches!(self.scope, Scope::Hook(_));
        SyncPlan {
            rebuild: self.scope == Scope::Rebuild,
            quick: self.refresh() == Refresh::Stamped,
            max_files: hook.then_some(HOOK_NEW_SESSION_FILES),
            judge_now: if hook { HOOK_JUDGE_TEXTS } else { 0 },
            focus: self.focus,
            only: self.only,
            trusted_authors,
            ..SyncPlan::new(availability, self.embedding, progress)
        }
    }
}

/// A progress callback: (done, total).
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Reports no progress.
pub const NO_PROGRESS: Progress<'static> = &|_, _| {};

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(policy: SyncPolicy) -> (bool, bool, Option<usize>, Embedding) {
        let lexical = Availability::Missing {
            reason: "no model in this test".into(),
            fix: "".into(),
        };
        let plan = policy.plan(&lexical, NO_PROGRESS, &[]);
        (plan.rebuild, plan.quick, plan.max_files, plan.embedding)
    }

    /// Each policy as the index runs it: (rebuild, quick, max files, embedding).
    #[test]
    fn each_policy_is_one_plan_for_the_index() {
        let hook = (false, true, Some(HOOK_NEW_SESSION_FILES), Embedding::Later);
        assert_eq!(planned(SyncPolicy::HOOK), hook);
        let doctor = (false, false, Some(HOOK_NEW_SESSION_FILES), Embedding::Later);
        assert_eq!(planned(SyncPolicy::HOOK_EVERY_FILE), doctor);
        let recall = (false, true, None, Embedding::AtMost(EMBED_NOW_LIMIT));
        assert_eq!(planned(SyncPolicy::answer_now(Refresh::Stamped)), recall);
        assert_eq!(
            planned(SyncPolicy::FULL),
            (false, false, None, Embedding::All)
        );
        assert_eq!(
            planned(SyncPolicy::REBUILD),
            (true, false, None, Embedding::All)
        );
        assert!(SyncPolicy::answer_now(Refresh::EveryFile).reports_findings());
        assert!(!SyncPolicy::FULL.reports_findings());
    }

    /// After an answer under a budget, the process's own full syncs (after
    /// `remember`, `forget`) keep to it; a rebuild and a hook do not change.
    #[test]
    fn an_answers_budget_holds_for_the_writes_after_it() {
        let mut own = Embedding::All;
        assert_eq!(SyncPolicy::FULL.within(&mut own), SyncPolicy::FULL);
        let answer = SyncPolicy::answer_now(Refresh::Stamped);
        assert_eq!(answer.within(&mut own), answer);
        assert_eq!(own, Embedding::AtMost(EMBED_NOW_LIMIT));
        let full = SyncPolicy::FULL.within(&mut own);
        assert_eq!(planned(full).3, Embedding::AtMost(EMBED_NOW_LIMIT));
        assert_eq!(SyncPolicy::REBUILD.within(&mut own), SyncPolicy::REBUILD);
        assert_eq!(SyncPolicy::HOOK.within(&mut own), SyncPolicy::HOOK);
        // A long-lived process answers with everything embedded.
        let mut own = Embedding::All;
        let answer = SyncPolicy::answer(Refresh::Stamped, Embedding::All);
        answer.within(&mut own);
        assert_eq!(SyncPolicy::FULL.within(&mut own), SyncPolicy::FULL);
    }
}
