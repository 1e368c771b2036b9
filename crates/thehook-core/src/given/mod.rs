//! What each session was given by the hooks, and whether it used it.
//!
//! - [`record`]: what a live session was given so far, written by each hook
//!   (kept a week), so nothing is given twice;
//! - [`handed`]: the tasks a live session hands its subagents, for the
//!   subagent hook;
//! - [`used`]: at capture, each line given marked used or not by the tool
//!   calls that came after it in the session's own transcript;
//! - [`kept`]: that marked record, kept beside the index for as long as
//!   memory keeps the session (never committed), the share used, and the
//!   tally the hooks rank by (`memory::rank::tally`).
//!
//! It reads memory and transcripts; the hooks (`inject`) and the capture
//! write through it.

pub(crate) mod handed;
pub mod kept;
pub(crate) mod record;
pub mod used;

pub(crate) use record::{Given, FILE_MARK};
pub use record::{GivenBlock, Hook};
