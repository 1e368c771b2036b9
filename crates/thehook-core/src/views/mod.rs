//! What the local page (`thehook ui`) shows, as the core's own types: the
//! page's JSON API serializes these and nothing else, as `--json` and MCP
//! serialize theirs. Every view reads memory; the only writes are the
//! review actions, which the page makes through [`crate::memory::Memory`]'s
//! own calls, as `thehook review` does.
//!
//! - [`sessions`]: the captured sessions, and one session with what the
//!   hooks gave it and what it used;
//! - [`items`]: items by type, file and author, and one item's page;
//! - [`markdown`]: the lines around a citation, only ever under `.thehook/`;
//! - [`review`]: what waits for a person: withheld, stale, near-duplicates;
//! - [`review_range`]: what a range of commits (a pull request) adds to
//!   memory, item by item, as text, markdown or JSON;
//! - [`cost`]: the LLM bill by day and session, and heuristic captures;
//! - [`health`]: doctor, the index, queued and failed captures.

pub mod cost;
pub mod health;
pub mod items;
pub mod markdown;
pub mod review;
pub mod review_range;
pub mod sessions;
