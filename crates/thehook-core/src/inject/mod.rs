//! Session start: what a new session is told. [`retrieve`] is the hook's
//! policy (which payloads inject, the fast path, the background half);
//! [`context`] builds the query from the checkout and renders the memory.

pub mod background;
pub mod context;
pub mod heading;
pub mod retrieve;
