//! Session end to session file: the pipeline a finished session goes
//! through, one module a step.
//!
//! - [`hook`]: the session-end hook's policy (which payloads queue a job);
//! - [`queue`]: jobs waiting for the worker in `.thehook/queue/`;
//! - [`sweep`]: sessions whose end hook never fired, found in the agents' stores;
//! - [`paths`]: paths made relative, home folders never written;
//! - [`extract`]: the LLM prompt, its answer checked, or a heuristic file;
//! - [`provenance`]: each distilled line's source in the transcript, and
//!   the mark of a line only something outside the project said;
//! - [`llm`]: the user's headless LLM CLI as a child process;
//! - [`bill`] and [`budget`]: every call recorded, and a daily limit on them;
//! - [`worker`]: the queue drained, each job through [`steps`] (one file a
//!   step, top to bottom), never losing a session; [`outcome`]: how each
//!   ended; [`call`]: one LLM call within the budget; [`locked`]: the index
//!   opened before the project lock, by type;
//! - [`consolidate`]: sessions merged into `knowledge/` through the LLM, and
//!   [`ledger`], the sessions merged so far;
//! - [`run`]: the detached worker's loop, and the worker a waiting caller borrows.

pub mod bill;
pub(crate) mod budget;
pub(crate) mod call;
pub mod consolidate;
pub(crate) mod extract;
pub mod files;
pub mod hook;
pub(crate) mod ledger;
pub(crate) mod llm;
pub(crate) mod locked;
pub mod outcome;
pub(crate) mod paths;
pub(crate) mod provenance;
pub(crate) mod queue;
pub(crate) mod retry;
pub(crate) mod run;
pub(crate) mod steps;
pub(crate) mod sweep;
pub(crate) mod workbench;
pub(crate) mod worker;

pub use files::{failed_jobs, queued_jobs, worker_lock};
pub use outcome::{summary, Outcome, OutcomeReport, WithoutLlm};
pub use run::{run_worker, with_worker, WorkerRun};
pub use workbench::{Surroundings, LOG};
pub use worker::Worker;
