//! Session end to session file: the pipeline a finished session goes
//! through, one module a step.
//!
//! - [`hook`]: the session-end hook's policy (which payloads queue a job);
//! - [`queue`]: jobs waiting for the worker in `.thehook/queue/`;
//! - [`sweep`]: sessions whose end hook never fired, found in the agents' stores;
//! - [`paths`]: paths made relative, home folders never written;
//! - [`extract`]: the LLM prompt, its answer checked, or a heuristic file;
//! - [`llm`]: the user's headless LLM CLI as a child process;
//! - [`bill`] and [`budget`]: every call recorded, and a daily limit on them;
//! - [`worker`]: one job through all of the above, never losing a session;
//! - [`consolidate`]: sessions merged into `knowledge/` through the LLM, and
//!   [`ledger`], the sessions merged so far;
//! - [`run`]: the detached worker's loop, and the worker a waiting caller borrows.

pub mod bill;
pub(crate) mod budget;
pub mod consolidate;
pub(crate) mod extract;
pub mod hook;
pub(crate) mod ledger;
pub(crate) mod llm;
pub(crate) mod paths;
pub(crate) mod queue;
pub(crate) mod run;
pub(crate) mod sweep;
pub(crate) mod worker;

pub use run::{run_worker, with_worker, WorkerRun};
pub use worker::{
    failed_jobs, queued_jobs, summary, worker_lock, Outcome, OutcomeReport, Surroundings,
    WithoutLlm, Worker, LOG,
};
