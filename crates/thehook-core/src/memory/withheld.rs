//! What the safety rules withhold from agents, as a person reviews it:
//! each item or session title with its rule, what matched, its citation and
//! who committed its line (`git blame`, when git knows).

use std::path::Path;

use serde::Serialize;

use crate::error::{fix, Error, ItemMiss, Result, Step};
use crate::memory::index::Index;
use crate::memory::requests::ItemRef;
use crate::memory::session::SessionRecord;
use crate::memory::syncing::{SyncPolicy, NO_PROGRESS};
use crate::memory::Memory;
use crate::policy::confirmed;
use crate::policy::released::Released;
use crate::process::blame::blame_at;
use crate::store::item::{Item, ItemKind};
use crate::store::{self, title_id};
use crate::text::safety::{Rule, Withheld};

/// The `type` of a withheld session title.
const TITLE: &str = "title";

/// One withheld item or title.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WithheldEntry {
    /// The id a release or a forget names.
    pub id: String,
    /// The item's type, or `title` for a session's title.
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
    pub path: String,
    pub line: usize,
    pub citation: String,
    pub withheld: Withheld,
    /// The author of the commit that last changed the line, when git knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_by: Option<String>,
}

impl WithheldEntry {
    /// Whether this is a session's title rather than an item.
    pub fn is_title(&self) -> bool {
        self.kind == TITLE
    }
}

impl Memory {
    /// Every item and session title a safety rule withholds from agents,
    /// with who committed its line when git knows (`thehook review`).
    pub fn withheld(&self) -> Result<Vec<WithheldEntry>> {
        let mut entries = entries(&self.index)?;
        blame(self.project.root(), &mut entries);
        Ok(entries)
    }

    /// Releases a withheld item or title: agents are given it after all.
    /// Recorded in this clone's own state ([`Released`]), never in a
    /// committed file; an edit of its text withholds it again. An
    /// unverified action line is also confirmed, in `.thehook/confirmed.txt`,
    /// to be committed: a person's word on the text, for the whole team
    /// ([`confirmed`]).
    pub fn release(&mut self, item: &ItemRef) -> Result<WithheldEntry> {
        self.sync(SyncPolicy::FULL, NO_PROGRESS)?;
        let entry = self.find_withheld(item)?;
        let _lock = self.project.lock()?;
        // An action line: the team shares a person's word on it, in git.
        if entry.withheld.rule == Rule::Unverified {
            confirmed::add(&self.project, &entry.text)?;
        }
        Released::add(&self.project, &entry.id)?;
        // Its bytes did not change, its verdict did: read the file again.
        self.index.reread(&entry.path)?;
        self.sync(SyncPolicy::FULL, NO_PROGRESS)?;
        Ok(entry)
    }

    /// The withheld title `item` names, if it names exactly one.
    pub(in crate::memory) fn withheld_title(
        &self,
        item: &ItemRef,
    ) -> Result<Option<WithheldEntry>> {
        match self.find_withheld(item) {
            Ok(entry) => Ok(entry.is_title().then_some(entry)),
            Err(Error::ItemNotFound { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// Removes a withheld session title from its file's front matter; the
    /// session's items stay. Reported like an item's forget, as text.
    pub(in crate::memory) fn forget_title(&mut self, entry: WithheldEntry) -> Result<Item> {
        let _lock = self.project.lock()?;
        store::remove_front_matter_line(&self.project, &entry.path, entry.line, "title:")?;
        self.sync(SyncPolicy::FULL, NO_PROGRESS)?;
        Ok(Item {
            id: entry.id,
            kind: ItemKind::Text,
            text: entry.text,
            path: entry.path,
            line_start: entry.line,
            line_end: entry.line,
            date: String::new(),
            session_id: None,
            withheld: Some(entry.withheld),
            awaiting_check: false,
            outside: None,
        })
    }

    /// The one withheld entry whose id starts with `item`'s prefix.
    fn find_withheld(&self, item: &ItemRef) -> Result<WithheldEntry> {
        let prefix = item.as_str();
        let mut found: Vec<WithheldEntry> = entries(&self.index)?
            .into_iter()
            .filter(|e| e.id.starts_with(prefix))
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Error::ItemNotFound {
                miss: ItemMiss::NoMatch {
                    prefix: prefix.to_string(),
                },
                fix: fix!(Step::Review, " to see the ids of what is withheld"),
            }),
            _ => Err(Error::ItemNotFound {
                miss: ItemMiss::Ambiguous {
                    prefix: prefix.to_string(),
                    candidates: found.into_iter().map(|e| (e.id, e.citation)).collect(),
                },
                fix: "give more characters of the id".into(),
            }),
        }
    }
}

/// How many of `items` and of the `sessions`' titles are withheld, for
/// the counts of `status` (which reads every item once for all its counts).
pub(crate) fn count(items: &[Item], sessions: &[SessionRecord]) -> usize {
    items.iter().filter(|i| !i.for_agents()).count()
        + sessions
            .iter()
            .filter(|s| s.withheld_title.is_some())
            .count()
}

/// Every withheld item and title in the index, in path and line order,
/// without who committed them (see [`blame`]).
pub(crate) fn entries(index: &Index) -> Result<Vec<WithheldEntry>> {
    let items = index.all_items()?.into_iter().filter_map(|item| {
        let withheld = item.withheld.clone()?;
        Some(WithheldEntry {
            citation: item.citation(),
            kind: item.kind.to_string(),
            line: item.line_start,
            id: item.id,
            text: item.text,
            path: item.path,
            withheld,
            committed_by: None,
        })
    });
    let titles = index.sessions()?.into_iter().filter_map(|session| {
        let t = session.withheld_title?;
        Some(WithheldEntry {
            id: title_id(&session.path, &t.title),
            kind: TITLE.into(),
            citation: format!("{}:{}", session.path, t.line),
            text: t.title,
            line: t.line,
            path: session.path,
            withheld: t.withheld,
            committed_by: None,
        })
    });
    let mut all: Vec<WithheldEntry> = items.chain(titles).collect();
    all.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(all)
}

/// Fills in who committed each entry's line: one `git blame` a file.
/// Lines git does not know (uncommitted, outside git) stay `None`.
pub(crate) fn blame(root: &Path, entries: &mut [WithheldEntry]) {
    let mut i = 0;
    while i < entries.len() {
        let path = entries[i].path.clone();
        let end = entries[i..]
            .iter()
            .position(|e| e.path != path)
            .map_or(entries.len(), |n| i + n);
        let authors = authors_by_line(root, &path);
        for entry in &mut entries[i..end] {
            entry.committed_by = authors.get(&entry.line).cloned();
        }
        i = end;
    }
}

/// `line -> author` of one file as checked out.
pub(crate) fn authors_by_line(root: &Path, path: &str) -> std::collections::HashMap<usize, String> {
    blame_at(root, None, path)
        .into_iter()
        .map(|(line, b)| (line, b.author))
        .collect()
}
