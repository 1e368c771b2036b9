//! thehook's core: long-term memory for AI coding agents.
//!
//! The folders follow the pipeline (CONTRIBUTING.md has the map):
//! [`capture`] turns a finished session into a session file, [`store`]
//! reads and writes the markdown, [`policy`] says what the repository says
//! about its items, [`memory`] indexes and searches it ([`model`] finds the
//! embedding model and keeps its vectors), [`inject`] picks what a new
//! session is told, [`setup`] wires the agents, [`browse`] reads past
//! transcripts, and [`agents`] holds what each agent sends and expects.
//! [`front_door`] is the front door: every input the CLI, the MCP server and
//! the Node addon accept is parsed and checked there, once.
//!
//! # What the core never does
//!
//! - It never prints, reads its own arguments or ends the process: it
//!   returns values and errors, and the front ends render them and exit.
//! - It depends on no front end (no clap, no napi): the front door's
//!   messages name the field (`k`, `since`), not a flag or a JS option. A
//!   fix that names a command (`thehook capture --retry`) is built in one
//!   place, [`error::fix`].
//! - It opens no network connection. The model and ONNX Runtime are files
//!   the caller found ([`model::SearchPaths`]); the LLM is the user's own
//!   CLI, run as a child process ([`capture`]).
//! - A hook never fails: [`hook::answer`] catches every error and panic,
//!   logs it, and answers with nothing.
//! - Memory is untrusted input: no line of it reaches an agent without the
//!   safety check ([`text::safety`]). A session file, which is committed,
//!   names the session's working folder only relatively and any home
//!   folder as `~` (`capture/paths.rs`).
//! - No module imports its parent folder's siblings in a loop, and none
//!   imports this file: `scripts/check-cycles.py` checks both.

pub mod agents;
mod append;
pub mod browse;
pub mod capture;
pub mod config;
pub mod env;
pub mod error;
pub mod front_door;
pub mod given;
mod hash;
pub mod help;
pub mod hook;
pub mod inject;
pub mod logs;
mod mapped_pages;
pub mod memory;
pub mod model;
pub mod policy;
pub mod process;
pub mod project;
pub mod setup;
pub mod status;
pub mod store;
#[cfg(test)]
mod test_git;
pub mod text;
pub mod transcript;
pub mod views;

pub use error::{Error, Result};
pub use memory::{ItemRef, Memory, RecallOptions, RecallRequest, RememberRequest, RewriteRequest};
pub use project::Project;
pub use store::item::{Item, ItemKind};
