//! A memory item: the unit that is indexed, searched and cited.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::text::safety::Withheld;

/// What kind of fact an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Summary,
    Convention,
    Adr,
    Gotcha,
    History,
    Note,
    Text,
}

impl ItemKind {
    pub const ALL: [ItemKind; 7] = [
        ItemKind::Summary,
        ItemKind::Convention,
        ItemKind::Adr,
        ItemKind::Gotcha,
        ItemKind::History,
        ItemKind::Note,
        ItemKind::Text,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Summary => "summary",
            ItemKind::Convention => "convention",
            ItemKind::Adr => "adr",
            ItemKind::Gotcha => "gotcha",
            ItemKind::History => "history",
            ItemKind::Note => "note",
            ItemKind::Text => "text",
        }
    }

    /// Parses a type name as users write it (`ADR`, `decision`, `conventions`).
    pub fn parse(name: &str) -> Option<ItemKind> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "summary" => ItemKind::Summary,
            "convention" | "conventions" => ItemKind::Convention,
            "adr" | "decision" | "decisions" | "architecture" => ItemKind::Adr,
            "gotcha" | "gotchas" => ItemKind::Gotcha,
            "history" => ItemKind::History,
            "note" | "notes" => ItemKind::Note,
            "text" => ItemKind::Text,
            _ => return None,
        })
    }

    /// The tag written in front of an item (`[ADR]` is the one upper-case tag,
    /// as in the session file format).
    pub fn tag(self) -> &'static str {
        match self {
            ItemKind::Adr => "ADR",
            other => other.as_str(),
        }
    }
}

impl std::fmt::Display for ItemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One item of one markdown file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id: a hash of the file path and the normalised text.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ItemKind,
    /// The item's text without list marker and type tag, nested lines kept.
    pub text: String,
    /// Path relative to the project root, `/`-separated.
    pub path: String,
    pub line_start: usize,
    pub line_end: usize,
    /// RFC 3339 timestamp: the item's own date, else the file's front matter,
    /// else the file's modification time.
    pub date: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The safety rule the text breaks: never given to an agent until a
    /// person releases it (`thehook review`). Judged when it is indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<Withheld>,
    /// Stored without the vector the learned check reads (a hook syncs
    /// without the model): no agent is given it until a sync with the
    /// model judges it, seconds later (`text::safety::learned`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaiting_check: bool,
    /// Captured from what only something outside the project said (a
    /// fetched page, a search, an MCP server, a file outside the project):
    /// which tool and what it read, from the line's mark
    /// ([`crate::store::outside`]). Such a line is read as a stranger's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<String>,
}

impl Item {
    /// Whether an agent may be given this item.
    pub fn for_agents(&self) -> bool {
        self.withheld.is_none() && !self.awaiting_check
    }

    /// `path:line` as printed in citations.
    pub fn citation(&self) -> String {
        format!("{}:{}", self.path, self.line_start)
    }
}

/// Collapses runs of whitespace so that re-wrapping or re-indenting an item
/// does not change its id.
/// The file a citation (`path:line`) is in.
pub(crate) fn file_of_citation(cited: &str) -> &str {
    cited.rsplit_once(':').map_or(cited, |(path, _)| path)
}

pub fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The id of an item: 12 hex digits of SHA-256 over path and normalised text.
/// `occurrence` separates identical items in one file.
pub fn item_id(path: &str, text: &str, occurrence: usize) -> String {
    let mut h = Sha256::new();
    h.update(path.as_bytes());
    h.update([0]);
    h.update(normalise(text).as_bytes());
    if occurrence > 0 {
        h.update([0]);
        h.update(occurrence.to_le_bytes());
    }
    let digest = h.finalize();
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}
