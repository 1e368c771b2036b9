//! What the index keeps of each session file besides its items: the facts
//! the front matter records (branch, start, files changed) and the line
//! that says what the session did. Session start ranks earlier sessions by
//! them ("where you left off") without opening a single markdown file.

use serde::{Deserialize, Serialize};

use crate::store::item::{Item, ItemKind};
use crate::store::ParsedFile;
use crate::text::safety::Withheld;

/// One captured session, as its file says. Every field is written, even
/// empty (no `skip_serializing_if`): the index keeps the list in postcard,
/// which reads fields by position (`memory/index/sessions.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The file, project-relative.
    pub path: String,
    #[serde(default)]
    pub session_id: Option<String>,
    /// When it started (RFC 3339), else the file's date.
    pub date: String,
    #[serde(default)]
    pub branch: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// Files it changed, relative to the repository root.
    #[serde(default)]
    pub files: Vec<String>,
    /// What it did or where it ended, without its label.
    #[serde(default)]
    pub gist: Option<String>,
    /// The line cited for the session: its gist's, else its first item's.
    pub line: usize,
    /// A title that breaks a safety rule, its line and the rule: kept for
    /// review, never in `title`, so no agent is shown it.
    #[serde(default)]
    pub withheld_title: Option<WithheldTitle>,
    /// The agent that ran it (`claude-code`), as its front matter says.
    #[serde(default)]
    pub agent: Option<String>,
    /// The title's line in the file, where a verdict on it points.
    #[serde(default)]
    pub title_line: usize,
    /// A title the learned check has not read yet (a hook's sync, which
    /// does not start the model): never in `title` until a sync with the
    /// check judges it (`memory/index/sync/titles.rs`).
    #[serde(default)]
    pub title_awaiting_check: Option<String>,
    /// Written while some of it waits for the learned check (its title or
    /// items a hook's sync indexed without a vector): the sync that judges
    /// them sets the title and the gist again.
    #[serde(default)]
    pub awaiting_check: bool,
}

/// A session's title withheld from agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithheldTitle {
    pub title: String,
    pub line: usize,
    pub withheld: Withheld,
}

/// Labels of summary items that say what a session did, best first: the
/// LLM's, then the heuristic file's.
const GIST_LABELS: [&str; 3] = ["What was done", "Where it ended", "What was asked"];

impl SessionRecord {
    /// The record of a session file (`None` for a file without items).
    pub(crate) fn of(path: &str, parsed: &ParsedFile) -> Option<SessionRecord> {
        let first = parsed.items.first()?;
        let gist = gist_of(&parsed.items.iter().collect::<Vec<_>>());
        let fm = &parsed.front_matter;
        let withheld_title = parsed
            .withheld_title
            .as_ref()
            .map(|(line, withheld)| WithheldTitle {
                title: fm.title.clone().unwrap_or_default(),
                line: *line,
                withheld: withheld.clone(),
            });
        Some(SessionRecord {
            path: path.to_string(),
            session_id: fm.session_id.clone(),
            date: first.date.clone(),
            branch: fm.branch.clone().filter(|b| !b.trim().is_empty()),
            title: fm
                .title
                .clone()
                .filter(|t| !t.trim().is_empty() && withheld_title.is_none()),
            files: fm.files.clone(),
            line: gist
                .as_ref()
                .map_or(first.line_start, |(i, _)| i.line_start),
            gist: gist.map(|(_, text)| text),
            withheld_title,
            agent: fm.agent.clone().filter(|a| !a.trim().is_empty()),
            title_line: parsed.title_line,
            title_awaiting_check: None,
            awaiting_check: false,
        })
    }

    /// Sets the gist again from the file's `items` as judged now (the
    /// learned check judges them after the parse), and whether any of
    /// them, or the title, still waits for it.
    pub(crate) fn judged(&mut self, items: &[&Item]) {
        let Some(first) = items.first() else {
            return;
        };
        let gist = gist_of(items);
        self.line = gist
            .as_ref()
            .map_or(first.line_start, |(i, _)| i.line_start);
        self.gist = gist.map(|(_, text)| text);
        self.awaiting_check =
            self.title_awaiting_check.is_some() || items.iter().any(|i| i.awaiting_check);
    }

    /// `path:line` as printed in citations.
    pub(crate) fn citation(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// The summary item that says what the session did, and its text without
/// the label: of those agents may be given, the first by [`GIST_LABELS`].
fn gist_of<'i>(items: &[&'i Item]) -> Option<(&'i Item, String)> {
    let summaries = || {
        items
            .iter()
            .copied()
            .filter(|i| i.kind == ItemKind::Summary && i.for_agents())
    };
    GIST_LABELS
        .iter()
        .find_map(|label| summaries().find_map(|i| Some((i, unlabel(&i.text, label)?))))
}

/// `**Label**: text` → `text`, for this label.
fn unlabel(text: &str, label: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("**")?.strip_prefix(label)?;
    let rest = rest
        .strip_prefix("**:")
        .or_else(|| rest.strip_prefix(":**"))?;
    let rest = crate::store::item::normalise(rest);
    (!rest.is_empty() && rest != "none").then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::parse_markdown;

    #[test]
    fn a_session_file_gives_its_facts_and_what_it_did() {
        let text = "---\nsession_id: s1\nagent: claude-code\ndate: 2026-02-19T14:10:00Z\nbranch: feat/auth\ntitle: Refresh rotation\nfiles:\n- src/auth.rs\n- tests/auth.rs\n---\n## Session Summary\n- **What was asked**: rotate tokens\n- **What was done**: refresh rotation done, integration test failing\n";
        let parsed = parse_markdown(".thehook/sessions/a.md", text, "2026-01-01T00:00:00Z");
        let r = SessionRecord::of(".thehook/sessions/a.md", &parsed).unwrap();
        assert_eq!(r.session_id.as_deref(), Some("s1"));
        assert_eq!(r.branch.as_deref(), Some("feat/auth"));
        assert_eq!(r.files, ["src/auth.rs", "tests/auth.rs"]);
        assert_eq!(
            r.gist.as_deref(),
            Some("refresh rotation done, integration test failing")
        );
        assert_eq!(r.citation(), ".thehook/sessions/a.md:13");
        assert!(r.date.starts_with("2026-02-19T14:10"), "{}", r.date);
    }

    #[test]
    fn a_hand_written_file_without_front_matter_still_has_a_record() {
        let parsed = parse_markdown(
            ".thehook/sessions/b.md",
            "- did a thing\n",
            "2026-01-01T00:00:00Z",
        );
        let r = SessionRecord::of(".thehook/sessions/b.md", &parsed).unwrap();
        assert_eq!((r.gist, r.line, r.files.len()), (None, 1, 0));
        assert_eq!(
            SessionRecord::of("x", &parse_markdown("x", "", "2026")),
            None
        );
    }
}
