//! The first line of the block session start injects. Transcripts are
//! checked for it too (`capture::transcript`), so that what thehook injected
//! is never distilled into memory again.

pub const MEMORY_HEADING: &str = "# Project memory (thehook)";
