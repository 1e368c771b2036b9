//! What a session was doing before its context was compacted, for the
//! block the session start after the compaction gives: the branch, the
//! files it worked on, and what it was given, now summarised away. The
//! given record starts over there ([`Given::start_over`]), so the hooks
//! give the rest again as the work comes back to it.

use crate::error::Result;
use crate::given::{Given, Hook};
use crate::inject::block::{cited_line, BlockLine};
use crate::inject::git_context::GitContext;
use crate::memory::Memory;
use crate::policy::stale::Staleness;

/// The section's index among the block's: after the session start's own
/// ("Where you left off" and the five groups of [`super::session_start`]).
pub(crate) const SECTION: usize = 6;

/// The session-start sources after which what the session was given is
/// no longer in its context.
pub(crate) const LOST_CONTEXT: [&str; 2] = ["compact", "clear"];
/// The section after a compaction: what the session was working on.
pub(crate) const TITLE: &str = "This session so far (before its context was compacted)";
/// At most this many files, and this many lines of memory, in that
/// section: what the replayed histories' compactions (tuning half) could
/// be given within the 25% more characters subagents and compactions may
/// add together (3 lines and 8 files: 37%, with 2 lines per subagent).
const FILES: usize = 4;
const CITED: usize = 1;

/// The section's lines, and whether the session was given a block at its
/// start (then the section is all it is given again).
pub(crate) struct SoFar {
    pub(crate) lines: Vec<BlockLine>,
    pub(crate) had_start: bool,
}

/// What the session was working on before its context was compacted: the
/// branch, the files in play and those the file hook spoke of, then the
/// memory it was given, now summarised away (the prompt and file hooks'
/// first, what its work needed, then the session start's; newest first),
/// each line citing its item, so it is recorded as given again and the
/// hooks do not repeat it.
pub(crate) fn lines(
    memory: &Memory,
    record: &Given,
    context: &GitContext,
    max_item_chars: usize,
) -> Result<SoFar> {
    let section = SECTION;
    let mut lines = Vec::new();
    let mut line = |text: String, cited: String| {
        lines.push(BlockLine {
            section,
            text,
            cited,
        })
    };
    if let Some(branch) = &context.branch {
        line(format!("- Branch: `{branch}`"), String::new());
    }
    // The record, read once: the files the file hook spoke of and the
    // lines each hook gave, in the order given.
    let blocks = record.blocks();
    let mut files: Vec<String> = context.changed_files.clone();
    for block in &blocks {
        if let Hook::File { path } = &block.hook {
            if !files.contains(path) {
                files.push(path.clone());
            }
        }
    }
    if !files.is_empty() {
        let shown: Vec<String> = files.iter().take(FILES).map(|f| format!("`{f}`")).collect();
        let more = match files.len().saturating_sub(FILES) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        line(
            format!("- Files it worked on: {}{more}", shown.join(", ")),
            String::new(),
        );
    }
    // The prompt's and the files' first (what the work itself needed), then
    // the session start's, each newest first.
    let mut cited: Vec<String> = Vec::new();
    for start in [false, true] {
        for block in blocks.iter().rev() {
            if matches!(block.hook, Hook::Start) == start {
                for c in block.cited.iter().rev() {
                    if !cited.contains(c) {
                        cited.push(c.clone());
                    }
                }
            }
        }
    }
    cited.truncate(CITED * 2);
    let staleness = Staleness::load(memory.project());
    let items = memory.index().items_cited(&cited)?;
    for item in items
        .iter()
        .filter(|i| i.for_agents() && staleness.reason(i).is_none())
        .take(CITED)
    {
        line(cited_line(item, true, max_item_chars), item.citation());
    }
    let had_start = blocks.iter().any(|b| b.hook == Hook::Start);
    Ok(SoFar { lines, had_start })
}
