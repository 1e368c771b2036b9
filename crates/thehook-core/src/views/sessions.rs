//! The captured sessions, newest first, and one session's page.

use serde::Serialize;

use crate::error::Result;
use crate::given::kept::{self, UseCounts};
use crate::given::used::{GivenLine, UsedBlock};
use crate::given::Given;
use crate::memory::session::SessionRecord;
use crate::memory::Memory;
use crate::store::item::Item;

/// One captured session in the timeline.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRow {
    #[serde(flatten)]
    pub record: SessionRecord,
    /// The lines the hooks gave it and how many it used, when that was
    /// worked out at its capture.
    pub given: Option<UseCounts>,
}

/// A page of the captured sessions, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// Every captured session.
    pub total: usize,
    /// Those after the first `offset`, at most `limit`.
    pub sessions: Vec<SessionRow>,
}

/// The captured sessions, newest first, `limit` of them after `offset`.
pub fn timeline(memory: &Memory, offset: usize, limit: usize) -> Result<Timeline> {
    let project = memory.project();
    let mut records = memory.index().sessions()?;
    records.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.path.cmp(&b.path)));
    let total = records.len();
    let sessions = records
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|record| SessionRow {
            given: record
                .session_id
                .as_deref()
                .and_then(|id| kept::load(project, id))
                .map(|u| u.counts()),
            record,
        })
        .collect();
    Ok(Timeline { total, sessions })
}

/// One session: its file's items, and what the hooks gave it, block by
/// block, each line marked used or not.
#[derive(Debug, Clone, Serialize)]
pub struct SessionPage {
    pub session: SessionRow,
    pub items: Vec<Item>,
    pub given: Vec<UsedBlock>,
    /// Whether `given` was marked at capture; else it is the live record
    /// of a session not captured since (nothing marked used).
    pub marked: bool,
    /// Lines given beyond what is kept per session.
    pub left_out: usize,
}

/// The page of the session whose id (or session file path) is `key`.
pub fn session(memory: &Memory, key: &str) -> Result<Option<SessionPage>> {
    let Some(record) = memory
        .index()
        .sessions()?
        .into_iter()
        .find(|s| s.session_id.as_deref() == Some(key) || s.path == key)
    else {
        return Ok(None);
    };
    let mut items: Vec<Item> = memory
        .index()
        .all_items()?
        .into_iter()
        .filter(|i| i.path == record.path)
        .collect();
    items.sort_by_key(|i| i.line_start);
    let project = memory.project();
    let id = record.session_id.clone().unwrap_or_default();
    let (given, marked, left_out, counts) = match kept::load(project, &id) {
        Some(used) => {
            let counts = used.counts();
            (used.blocks, true, used.left_out, Some(counts))
        }
        None => (live(memory, &id), false, 0, None),
    };
    Ok(Some(SessionPage {
        session: SessionRow {
            record,
            given: counts,
        },
        items,
        given,
        marked,
        left_out,
    }))
}

/// What a session not marked at capture was given, from the hooks' record.
fn live(memory: &Memory, id: &str) -> Vec<UsedBlock> {
    if id.is_empty() {
        return Vec::new();
    }
    Given::of(memory.project(), id)
        .blocks_with_subagents()
        .into_iter()
        .map(|b| UsedBlock {
            hook: b.hook,
            at: b.at,
            lines: b
                .cited
                .into_iter()
                .map(|cited| GivenLine { cited, used: None })
                .collect(),
        })
        .collect()
}
