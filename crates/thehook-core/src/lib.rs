//! thehook's core: long-term memory for AI coding agents.
//!
//! Markdown under `.thehook/` is the truth ([`store`]); an LMDB index
//! ([`index`]) with arroy vectors ([`embed`]) and BM25 postings ([`lexical`])
//! makes it searchable ([`search`]); [`memory::Memory`] ties them into the
//! operations the CLI and the Node addon expose.

pub mod agent;
pub mod browse;
pub mod capture;
pub mod config;
pub mod consolidate;
pub mod context;
pub mod doctor;
pub mod embed;
pub mod error;
pub mod extract;
pub mod index;
pub mod init;
pub mod item;
pub mod lexical;
pub mod llm;
pub mod logs;
pub mod memory;
pub mod project;
pub mod queue;
pub mod redact;
pub mod retrieve;
pub mod search;
pub mod store;
pub mod sweep;
pub mod transcript;
pub mod when;

pub use error::{Error, Result};
pub use item::{Item, ItemKind};
pub use memory::{Memory, RecallOptions};
pub use project::Project;
