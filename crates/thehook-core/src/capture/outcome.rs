//! How one session's capture ended, as every front end reports it.

use crate::capture::extract::UnusableAnswer;
use crate::capture::llm::LlmFailure;

/// How one session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Distilled by the LLM into `file` (project-relative).
    Captured { session_id: String, file: String },
    /// Written from the heuristic extraction; the transcript is in `failed/`.
    Heuristic {
        session_id: String,
        file: String,
        reason: WithoutLlm,
    },
    /// Nothing could be written (no transcript); the job is in `failed/`.
    Failed { session_id: String, reason: String },
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
    /// The outcome as front ends report it.
    pub fn report(&self) -> OutcomeReport {
        let (session_id, status, file, reason) = match self {
            Outcome::Captured { session_id, file } => (session_id, "captured", Some(file), None),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
            } => (
                session_id,
                "heuristic",
                Some(file),
                Some(reason.to_string()),
            ),
            Outcome::Failed { session_id, reason } => {
                (session_id, "failed", None, Some(reason.clone()))
            }
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
            Outcome::Captured { session_id, file } => write!(f, "captured {session_id} into {file}"),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
            } => write!(
                f,
                "captured {session_id} into {file} without the LLM ({reason}); the transcript waits in .thehook/failed/"
            ),
            Outcome::Failed { session_id, reason } => {
                write!(f, "could not capture {session_id}: {reason}")
            }
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
