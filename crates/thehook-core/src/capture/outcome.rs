//! How one session's capture ended, as every front end reports it.

use std::borrow::Cow;

use crate::capture::extract::UnusableAnswer;
use crate::capture::llm::LlmFailure;

/// How one session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Distilled by the LLM into `file` (project-relative).
    Captured { session_id: String, file: String },
    /// Written from the heuristic extraction; the transcript is in `failed/`
    /// unless `not_kept` says why it could not be (the job then stays queued).
    Heuristic {
        session_id: String,
        file: String,
        reason: WithoutLlm,
        not_kept: Option<String>,
    },
    /// Nothing could be written (no transcript); the job is in `failed/`,
    /// unless `not_kept` says why it could not be (it then stays queued).
    Failed {
        session_id: String,
        reason: String,
        not_kept: Option<String>,
    },
    /// Nothing to capture (an empty conversation).
    Skipped { session_id: String, why: String },
}

/// Why a session was written from its transcript alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithoutLlm {
    #[error("{0}")]
    Failed(LlmFailure),
    #[error("the LLM's answer was not usable: {0}")]
    Unusable(UnusableAnswer),
}

/// One session's outcome as every front end reports it: the CLI's
/// `capture --json` and the Node addon's `capture()` map this, field for field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OutcomeReport {
    pub session_id: String,
    /// `captured`, `heuristic` (written without the LLM; kept in failed/),
    /// `failed` or `skipped`.
    pub status: &'static str,
    /// The session file written, relative to the project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why it was not distilled by the LLM, or skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Outcome {
    /// Whether the session's job must stay in the queue: `failed/` could not
    /// keep it (a full disk), so nothing else would capture it again.
    pub fn keeps_job(&self) -> bool {
        matches!(
            self,
            Outcome::Heuristic {
                not_kept: Some(_),
                ..
            } | Outcome::Failed {
                not_kept: Some(_),
                ..
            }
        )
    }

    /// What became of the transcript, after the reason: `kept` (what to say
    /// when `failed/` holds it), or why `failed/` could not.
    fn where_it_is(not_kept: &Option<String>, kept: &'static str) -> Cow<'static, str> {
        match not_kept {
            None => Cow::Borrowed(kept),
            Some(why) => Cow::Owned(format!(
                "; it could not be kept in .thehook/failed/ ({why}); the agent's own transcript \
                 is unchanged: once there is space, capture it again (a queued session stays \
                 queued for the next capture)"
            )),
        }
    }

    /// The outcome as front ends report it.
    pub fn report(&self) -> OutcomeReport {
        let (session_id, status, file, reason) = match self {
            Outcome::Captured { session_id, file } => (session_id, "captured", Some(file), None),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
                not_kept,
            } => (
                session_id,
                "heuristic",
                Some(file),
                Some(format!("{reason}{}", Outcome::where_it_is(not_kept, ""))),
            ),
            Outcome::Failed {
                session_id,
                reason,
                not_kept,
            } => (
                session_id,
                "failed",
                None,
                Some(format!("{reason}{}", Outcome::where_it_is(not_kept, ""))),
            ),
            Outcome::Skipped { session_id, why } => {
                (session_id, "skipped", None, Some(why.clone()))
            }
        };
        OutcomeReport {
            session_id: session_id.clone(),
            status,
            file: file.cloned(),
            reason,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Captured { session_id, file } => {
                write!(f, "captured {session_id} into {file}")
            }
            Outcome::Heuristic {
                session_id,
                file,
                reason,
                not_kept,
            } => write!(
                f,
                "captured {session_id} into {file} without the LLM ({reason}){}",
                Outcome::where_it_is(not_kept, "; the transcript waits in .thehook/failed/")
            ),
            Outcome::Failed {
                session_id,
                reason,
                not_kept,
            } => write!(
                f,
                "could not capture {session_id}: {reason}{}",
                Outcome::where_it_is(not_kept, "")
            ),
            Outcome::Skipped { session_id, why } => write!(f, "skipped {session_id}: {why}"),
        }
    }
}

/// `2 captured, 1 heuristic, 1 skipped`: what a run did, for logs.
pub fn summary(outcomes: &[Outcome]) -> String {
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let parts = [
        (count(|o| matches!(o, Outcome::Captured { .. })), "captured"),
        (
            count(|o| matches!(o, Outcome::Heuristic { .. })),
            "heuristic",
        ),
        (count(|o| matches!(o, Outcome::Failed { .. })), "failed"),
        (count(|o| matches!(o, Outcome::Skipped { .. })), "skipped"),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if said.is_empty() {
        "nothing".into()
    } else {
        said.join(", ")
    }
}
