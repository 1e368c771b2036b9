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
pub mod budget;
pub mod consolidate;
pub mod extract;
pub mod hook;
pub mod ledger;
pub mod llm;
pub mod paths;
pub mod queue;
pub mod run;
pub mod sweep;
pub mod worker;

pub use run::{run_worker, with_worker, WorkerRun};
pub use worker::{
    failed_jobs, queued_jobs, summary, worker_lock, Outcome, OutcomeReport, Surroundings, Worker,
    LOG,
};
