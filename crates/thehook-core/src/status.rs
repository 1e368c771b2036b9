//! `thehook status`: what a project's memory holds and what waits, in one
//! report every front end prints. It reads memory and the capture pipeline
//! both, so it sits above them.

use std::path::Path;

use serde::Serialize;

use crate::capture;
use crate::error::Result;
use crate::given::kept::{recent_counts, UseCounts};
use crate::memory::index::IndexStats;
use crate::memory::Memory;
use crate::model::Availability;
use crate::policy::stale::Staleness;
use crate::policy::trust::{git_cannot_tell, TrustedAuthors};
use crate::text::safety::Rule;

/// `thehook status`, also its `--json` form.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub project: String,
    pub sessions: usize,
    pub knowledge_files: usize,
    /// Items that cite a path or symbol gone from the checkout, or that are
    /// superseded (the symbols as last checked): `thehook review` lists them.
    pub stale_items: usize,
    /// Items and session titles a safety rule withholds from agents:
    /// `thehook review` lists them, to release or forget.
    pub withheld_items: usize,
    /// How memory is judged before an agent is given it.
    pub safety_check: SafetyCheck,
    /// Whose word action lines are taken on (`policy::verify`).
    pub trust: TrustSummary,
    pub failed_captures: usize,
    pub queued_captures: usize,
    pub index_path: String,
    pub index_rebuilt: Option<String>,
    pub index: IndexStats,
    pub embeddings: Availability,
    /// Agent settings files that run thehook.
    pub hooks: Vec<String>,
    pub config_warnings: Vec<String>,
    /// What the LLM calls of captures and consolidations cost.
    pub llm: capture::bill::LlmUsage,
    /// Lines the hooks gave the sessions captured in the last 30 days, and
    /// how many of them those sessions used (docs/ui.md says how that is told).
    pub given_last_30_days: UseCounts,
}

/// Whose word an action line of memory is taken on.
#[derive(Debug, Clone, Serialize)]
pub struct TrustSummary {
    /// Authors trusted: listed in `trust.authors`, or found in the history.
    pub authors: usize,
    /// Whether `trust.authors` lists them.
    pub configured: bool,
    /// Action lines withheld as unverified.
    pub unverified: usize,
    /// Why git cannot tell who wrote some lines, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_authors: Option<String>,
}

impl TrustSummary {
    fn of(memory: &Memory, items: &[crate::store::item::Item]) -> TrustSummary {
        let root = memory.project().root();
        let trusted = TrustedAuthors::of(root, &memory.config().trust.authors);
        TrustSummary {
            authors: trusted.len(),
            configured: trusted.configured,
            unverified: items
                .iter()
                .filter(|i| {
                    i.withheld
                        .as_ref()
                        .is_some_and(|w| w.rule == Rule::Unverified)
                })
                .count(),
            unknown_authors: git_cannot_tell(root),
        }
    }
}

/// The checks memory passes before an agent is given it
/// (`crate::text::safety`).
#[derive(Debug, Clone, Serialize)]
pub struct SafetyCheck {
    /// Whether the learned check runs beside the rules: it reads the
    /// vectors of its embedding model, so not lexical-only.
    pub learned: bool,
    /// The checks in a sentence, and why the learned one is off.
    pub summary: String,
    /// Items stored without their vector yet, kept from agents until the
    /// learned check has read them (seconds, after a pull).
    pub awaiting_check: usize,
}

impl SafetyCheck {
    fn of(availability: &Availability, awaiting_check: usize) -> SafetyCheck {
        let learned = crate::memory::index::learned_check(availability).is_some();
        let model = crate::text::safety::learned::embedding_model();
        let summary = match availability {
            Availability::Ready { .. } if learned => {
                format!("the rules and the learned check (on {model}'s vectors)")
            }
            Availability::Ready { model: other, .. } => format!(
                "the rules only: the learned check reads {model}'s vectors, and this project embeds with {other}"
            ),
            Availability::Missing { .. } => format!(
                "the rules only: the learned check reads {model}'s vectors, and search is lexical-only"
            ),
        };
        SafetyCheck {
            learned,
            summary,
            awaiting_check,
        }
    }
}

impl Status {
    /// The embedding model in use; `None` when search is lexical-only.
    pub fn model(&self) -> Option<&str> {
        match &self.embeddings {
            Availability::Ready { model, .. } => Some(model),
            Availability::Missing { .. } => None,
        }
    }

    /// Why there is no model, and the fix; `None` when there is one.
    pub fn model_missing(&self) -> Option<String> {
        match &self.embeddings {
            Availability::Ready { .. } => None,
            Availability::Missing { reason, fix } => Some(format!("{reason}; {fix}")),
        }
    }

    /// Everything `thehook status` reports of `memory`'s project.
    pub fn of(memory: &Memory) -> Result<Status> {
        let index = memory.index().stats()?;
        let (failed_captures, queued_captures) = capture::queue::counts(memory.project());
        let mut llm = capture::bill::usage(memory.project(), &jiff::Zoned::now());
        llm.budget_spent = capture::budget::spent(&memory.config().llm.daily_budget, &llm.today);
        let staleness = Staleness::load(memory.project());
        let items = memory.index().all_items()?;
        let stale_items = items
            .iter()
            .filter(|i| staleness.reason(i).is_some())
            .count();
        let withheld_items = crate::memory::withheld::count(&items, &memory.index().sessions()?);
        let awaiting = items.iter().filter(|i| i.awaiting_check).count();
        Ok(Status {
            project: memory.project().root().display().to_string(),
            stale_items,
            withheld_items,
            safety_check: SafetyCheck::of(memory.availability(), awaiting),
            trust: TrustSummary::of(memory, &items),
            sessions: count_files(&memory.project().sessions_dir(), "md"),
            knowledge_files: count_files(&memory.project().knowledge_dir(), "md"),
            failed_captures,
            queued_captures,
            index_path: memory.project().relative(memory.index().path()),
            index_rebuilt: memory.rebuilt().map(str::to_string),
            index,
            embeddings: memory.availability().clone(),
            hooks: crate::agents::hooks_wired(memory.project().root()),
            config_warnings: memory.config_warnings().to_vec(),
            llm,
            given_last_30_days: recent_counts(memory.project(), USE_DAYS),
        })
    }
}

/// The days over which the share of given lines used is counted.
const USE_DAYS: i64 = 30;

fn count_files(dir: &Path, ext: &str) -> usize {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == ext))
        .count()
}
