//! Items by type, by file and by author, and one item's page: where it
//! came from, who committed it, how often it was given and used, and
//! whether it is stale or withheld.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use super::markdown::{self, MarkdownLines};
use crate::error::Result;
use crate::given::kept;
use crate::memory::rank::tally::Tally;
use crate::memory::session::SessionRecord;
use crate::memory::Memory;
use crate::policy::stale::Staleness;
use crate::project::{Project, SESSIONS_PREFIX};
use crate::store::item::{Item, ItemKind};
use crate::text::safety::Withheld;

/// At most this many items are listed at once; the facets count them all.
pub const MOST_LISTED: usize = 200;

/// Which items to list: all of them, or those of one type, file or author.
#[derive(Debug, Clone, Default)]
pub struct ItemFilter {
    pub kind: Option<ItemKind>,
    pub file: Option<String>,
    pub author: Option<String>,
}

/// One item as listed.
#[derive(Debug, Clone, Serialize)]
pub struct ItemRow {
    #[serde(flatten)]
    pub item: Item,
    pub citation: String,
    /// Who last committed its line (a knowledge file) or its file (a session).
    pub author: Option<String>,
    /// Why it is stale, if it is.
    pub stale: Option<String>,
    /// How many captured sessions were given it, and how many used it.
    pub given: u32,
    pub used: u32,
    /// `used in 4 of 6 sessions it was given to`, when it was given.
    pub use_says: Option<String>,
    /// What the hooks multiply its score by for that ([`Tally`]).
    pub use_weight: f32,
}

/// A value of a facet and how many items have it.
#[derive(Debug, Clone, Serialize)]
pub struct Facet {
    pub name: String,
    pub count: usize,
}

/// The items a filter lets through, newest first, with every facet.
#[derive(Debug, Clone, Serialize)]
pub struct ItemsPage {
    /// Items the filter lets through (at most [`MOST_LISTED`] are listed).
    pub total: usize,
    pub items: Vec<ItemRow>,
    pub kinds: Vec<Facet>,
    pub files: Vec<Facet>,
    pub authors: Vec<Facet>,
}

/// The items of `memory` that `filter` lets through.
pub fn items(memory: &Memory, filter: &ItemFilter) -> Result<ItemsPage> {
    let project = memory.project();
    let all = memory.index().all_items()?;
    let authors = Authors::read(project, &all);
    let staleness = Staleness::load(project);
    let uses = kept::tally(kept::all(project).values());
    let (mut kinds, mut files, mut by_author) = (Counter::new(), Counter::new(), Counter::new());
    let mut rows = Vec::new();
    for item in all {
        let author = authors.of(&item);
        kinds.add(item.kind.as_str());
        files.add(&item.path);
        by_author.add(author.as_deref().unwrap_or("(not committed)"));
        let wanted = filter.kind.is_none_or(|k| k == item.kind)
            && filter.file.as_ref().is_none_or(|f| *f == item.path)
            && filter
                .author
                .as_ref()
                .is_none_or(|a| Some(a.as_str()) == author.as_deref());
        if wanted {
            rows.push(row(item, author, &staleness, &uses));
        }
    }
    rows.sort_by(|a, b| {
        (b.item.date.as_str(), &a.item.path, a.item.line_start).cmp(&(
            a.item.date.as_str(),
            &b.item.path,
            b.item.line_start,
        ))
    });
    let total = rows.len();
    rows.truncate(MOST_LISTED);
    Ok(ItemsPage {
        total,
        items: rows,
        kinds: kinds.facets(),
        files: files.facets(),
        authors: by_author.facets(),
    })
}

fn row(item: Item, author: Option<String>, staleness: &Staleness, uses: &Tally) -> ItemRow {
    let citation = item.citation();
    let count = uses.line(&citation);
    ItemRow {
        stale: staleness.reason(&item),
        author,
        given: count.given,
        used: count.used,
        use_says: count.says(),
        use_weight: count.weight(),
        citation,
        item,
    }
}

/// One item: its row, its source session, its line's commit, the lines
/// around it.
#[derive(Debug, Clone, Serialize)]
pub struct ItemPage {
    pub row: ItemRow,
    pub session: Option<SessionRecord>,
    pub blame: Option<Blame>,
    pub withheld: Option<Withheld>,
    pub context: Option<MarkdownLines>,
}

/// The commit that last changed a line.
#[derive(Debug, Clone, Serialize)]
pub struct Blame {
    pub author: String,
    /// RFC 3339.
    pub date: String,
    pub commit: String,
    pub summary: String,
}

/// The page of the item whose id is `id`.
pub fn item(memory: &Memory, id: &str) -> Result<Option<ItemPage>> {
    let project = memory.project();
    let Some(item) = memory.index().all_items()?.into_iter().find(|i| i.id == id) else {
        return Ok(None);
    };
    let session = memory
        .index()
        .sessions()?
        .into_iter()
        .find(|s| s.path == item.path);
    let blame = blame(project.root(), &item.path, item.line_start);
    let context = markdown::around(project, &item.path, item.line_start, 3).ok();
    let withheld = item.withheld.clone();
    let row = row(
        item,
        blame.as_ref().map(|b| b.author.clone()),
        &Staleness::load(project),
        &kept::tally(kept::all(project).values()),
    );
    Ok(Some(ItemPage {
        row,
        session,
        blame,
        withheld,
        context,
    }))
}

/// Who committed what: per line for knowledge files (few, each written by
/// many), per file for session files (many, each written once).
struct Authors {
    by_line: HashMap<String, HashMap<usize, String>>,
    by_file: HashMap<String, String>,
}

impl Authors {
    fn read(project: &Project, items: &[Item]) -> Authors {
        let mut by_line = HashMap::new();
        for item in items {
            if !item.path.starts_with(SESSIONS_PREFIX) && !by_line.contains_key(&item.path) {
                let authors = crate::memory::withheld::authors_by_line(project.root(), &item.path);
                by_line.insert(item.path.clone(), authors);
            }
        }
        Authors {
            by_line,
            by_file: last_authors(project.root()),
        }
    }

    fn of(&self, item: &Item) -> Option<String> {
        match self.by_line.get(&item.path) {
            Some(lines) => lines.get(&item.line_start).cloned(),
            None => self.by_file.get(&item.path).cloned(),
        }
    }
}

/// The author of the last commit of each file under `.thehook/`, from one
/// `git log`.
fn last_authors(root: &Path) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Ok(done) = crate::process::git::git(root)
        .args(["log", "--format=%x00%an", "--name-only", "--", ".thehook/"])
        .output()
    else {
        return out;
    };
    let text = String::from_utf8_lossy(&done.stdout);
    let mut author = "";
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('\0') {
            author = name;
        } else if !line.is_empty() {
            // The newest commit comes first: it is the one kept.
            out.entry(line.to_string())
                .or_insert_with(|| author.to_string());
        }
    }
    out
}

/// The commit that last changed line `line` of `path`, if git knows it.
fn blame(root: &Path, path: &str, line: usize) -> Option<Blame> {
    let range = format!("{line},{line}");
    let done = crate::process::git::git(root)
        .args(["blame", "--line-porcelain", "-L", &range, "--", path])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&done.stdout);
    let commit = text.lines().next()?.split(' ').next()?.to_string();
    if !done.status.success() || commit.bytes().all(|b| b == b'0') {
        return None;
    }
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .map(str::to_string)
    };
    let date = field("author-time")
        .and_then(|t| t.parse::<i64>().ok())
        .and_then(|t| jiff::Timestamp::from_second(t).ok())
        .map(|t| t.to_string())
        .unwrap_or_default();
    Some(Blame {
        author: field("author")?,
        date,
        summary: field("summary").unwrap_or_default(),
        commit,
    })
}

/// Counts of names, as facets: the most common first.
struct Counter(BTreeMap<String, usize>);

impl Counter {
    fn new() -> Counter {
        Counter(BTreeMap::new())
    }

    fn add(&mut self, name: &str) {
        *self.0.entry(name.to_string()).or_default() += 1;
    }

    fn facets(self) -> Vec<Facet> {
        let mut out: Vec<Facet> = self
            .0
            .into_iter()
            .map(|(name, count)| Facet { name, count })
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        out
    }
}
