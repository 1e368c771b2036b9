//! A captured session's lasting record of what it was given and used:
//! `.thehook/index/used/<session>.json`, written at capture and rewritten
//! when the session is captured again. Like the rest of `index/` it is
//! this machine's own, never committed. A record whose session file is gone
//! from memory is removed at the next capture.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::record::{Given, Hook};
use super::used::{self, Related, UsedBlock};
use crate::error::{IoContext, Result};
use crate::memory::files;
use crate::memory::rank::tally::Tally;
use crate::memory::Memory;
use crate::project::{file_stem, Project};
use crate::store::write_atomic;
use crate::transcript::Transcript;

/// What one captured session was given and used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionUse {
    pub session_id: String,
    /// When it was worked out (RFC 3339).
    pub captured_at: String,
    pub blocks: Vec<UsedBlock>,
    /// Lines given beyond [`used::MOST_LINES_KEPT`], not kept.
    #[serde(default)]
    pub left_out: usize,
}

/// How many lines were given and how many used, in all and per hook.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UseCounts {
    pub given: usize,
    pub used: usize,
    pub start: Share,
    pub prompt: Share,
    pub file: Share,
    /// Given to subagents when they started.
    #[serde(default)]
    pub subagent: Share,
}

/// Lines given by one hook, and how many of them were used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    pub given: usize,
    pub used: usize,
}

impl UseCounts {
    /// Adds the lines of `blocks`.
    pub fn add(&mut self, blocks: &[UsedBlock]) {
        for block in blocks {
            let given = block.lines.len();
            let used = block.lines.iter().filter(|l| l.used.is_some()).count();
            self.given += given;
            self.used += used;
            let share = match block.hook {
                Hook::Start => &mut self.start,
                Hook::Prompt => &mut self.prompt,
                Hook::File { .. } => &mut self.file,
                Hook::Subagent { .. } => &mut self.subagent,
                Hook::Unknown => continue,
            };
            share.given += given;
            share.used += used;
        }
    }
}

impl SessionUse {
    pub fn counts(&self) -> UseCounts {
        let mut counts = UseCounts::default();
        counts.add(&self.blocks);
        counts
    }
}

/// Works out what the session `session_id` was given and used, from its
/// record and `transcript`, and keeps it. `None` when it was given nothing.
pub(crate) fn keep(
    memory: &Memory,
    session_id: &str,
    transcript: &Transcript,
) -> Result<Option<SessionUse>> {
    let project = memory.project();
    let blocks = Given::of(project, session_id).blocks_with_subagents();
    if blocks.is_empty() {
        return Ok(None);
    }
    let cited: HashSet<&str> = blocks
        .iter()
        .flat_map(|b| b.cited.iter().map(String::as_str))
        .collect();
    let related = related(memory, &cited)?;
    let (blocks, left_out) = used::mark(&blocks, transcript, project.root(), &related);
    let record = SessionUse {
        session_id: session_id.to_string(),
        captured_at: jiff::Timestamp::now().to_string(),
        blocks,
        left_out,
    };
    let json = serde_json::to_vec(&record).expect("a record serializes");
    write_atomic(&path(project, session_id), &json)?;
    prune(memory, session_id)?;
    // The hooks rank by what every session kept here used.
    tally(all(project).values()).store(project)?;
    Ok(Some(record))
}

/// The kept record of `session_id`, if it was captured with one.
pub fn load(project: &Project, session_id: &str) -> Option<SessionUse> {
    let bytes = std::fs::read(path(project, session_id)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Every kept record, by session id.
pub fn all(project: &Project) -> HashMap<String, SessionUse> {
    std::fs::read_dir(folder(project))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|bytes| serde_json::from_slice::<SessionUse>(&bytes).ok())
        .map(|u| (u.session_id.clone(), u))
        .collect()
}

/// In how many of `records` each line was given and used.
pub fn tally<'a>(records: impl IntoIterator<Item = &'a SessionUse>) -> Tally {
    let mut tally = Tally::default();
    for record in records {
        let lines = record.blocks.iter().flat_map(|b| &b.lines);
        tally.add_session(lines.map(|l| (l.cited.as_str(), l.used.is_some())));
    }
    tally
}

/// The lines given and used by the sessions captured in the last `days`.
pub fn recent_counts(project: &Project, days: i64) -> UseCounts {
    let since = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * days);
    let mut counts = UseCounts::default();
    for record in all(project).values() {
        let recent = record
            .captured_at
            .parse::<jiff::Timestamp>()
            .is_ok_and(|t| t >= since);
        if recent {
            counts.add(&record.blocks);
        }
    }
    counts
}

/// What each citation's line is about: the files its text names and, for
/// a session's line, the files that session changed.
fn related(memory: &Memory, cited: &HashSet<&str>) -> Result<HashMap<String, Related>> {
    let mut out: HashMap<String, Related> = HashMap::new();
    for item in memory.index().all_items()? {
        let citation = item.citation();
        if cited.contains(citation.as_str()) {
            out.entry(citation)
                .or_default()
                .files
                .extend(files::named(&item.text));
        }
    }
    for session in memory.index().sessions()? {
        let citation = session.citation();
        if cited.contains(citation.as_str()) {
            out.entry(citation)
                .or_default()
                .files
                .extend(session.files.iter().cloned());
        }
    }
    Ok(out)
}

/// Removes the records of sessions memory no longer keeps (`current`'s
/// stays, even before its file is indexed).
fn prune(memory: &Memory, current: &str) -> Result<()> {
    let kept: HashSet<String> = memory
        .index()
        .sessions()?
        .into_iter()
        .filter_map(|s| s.session_id)
        .chain([current.to_string()])
        .map(|id| format!("{}.json", file_stem(&id)))
        .collect();
    let dir = folder(memory.project());
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !kept.contains(&name) {
            std::fs::remove_file(entry.path()).at("cannot remove", entry.path())?;
        }
    }
    Ok(())
}

fn folder(project: &Project) -> PathBuf {
    project.index_dir().join("used")
}

fn path(project: &Project, session_id: &str) -> PathBuf {
    folder(project).join(format!("{}.json", file_stem(session_id)))
}
