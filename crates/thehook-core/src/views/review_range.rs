//! What a range of commits adds to memory, reviewed where it arrives: the
//! pull request (`thehook review --since REV`, the GitHub Action). Item by
//! item: new and changed items with their commit and author, what a safety
//! rule withholds, secrets the redactor finds, what is stale at the range's
//! end, near-duplicates of memory already on the base, and session titles
//! withheld.
//!
//! Memory is read as checked out, so the range must end at `HEAD` with
//! `.thehook/` committed; it starts where `HEAD` left the base (their merge
//! base), as a pull request's diff does. The verdicts are the index's own,
//! so a reviewer sees exactly what agents would be given.

mod diff;
mod report;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

pub use report::{to_markdown, to_text};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::memory::withheld::entries;
use crate::memory::Memory;
use crate::policy::confirmed::FILE as CONFIRMED_FILE;
use crate::process::blame::{blame_at, Blamed};
use crate::process::git::git;
use crate::project::CONFIG_FILE;
use crate::store::item::Item;
use crate::text::redact::{redact_counting, Findings};
use crate::text::safety::{strip_hidden, Withheld};
use diff::{added_lines, Hunk};

/// What a range adds or changes under `.thehook/`.
#[derive(Debug, Clone, Serialize)]
pub struct RangeReview {
    /// The range as asked: `REV` or `BASE..HEAD`.
    pub range: String,
    /// Where `HEAD` left the base: the commit the range starts after.
    pub base: String,
    pub head: String,
    /// The files under `.thehook/` the range adds or changes.
    pub files: Vec<String>,
    /// The items the range adds or changes, in file and line order.
    pub items: Vec<RangeItem>,
    /// Session titles the range adds that a rule withholds.
    pub titles: Vec<RangeTitle>,
    /// Changes to whose word memory is taken on: `trust.authors` in the
    /// configuration, confirmations of action lines. Each a sentence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust: Vec<String>,
}

/// One item the range adds or changes, and what a reviewer should know.
#[derive(Debug, Clone, Serialize)]
pub struct RangeItem {
    pub item: Item,
    pub change: Change,
    pub citation: String,
    /// The commit that last changed its first line, and its author
    /// (`commit` and `author` in JSON), when git knows.
    #[serde(flatten)]
    pub blamed: Option<Blamed>,
    /// Whether its lines hold text a reviewer cannot see (tag characters,
    /// zero-width or bidi characters, HTML comments, terminal escapes):
    /// agents are given it without.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden_text: bool,
    /// Secrets the redactor finds in its text: `(kind, count)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<(String, usize)>,
    /// Why it is stale at the range's end: a cited path or symbol gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// An item already on the base that says nearly the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<Item>,
}

/// Whether the item's lines are new, or replace lines of the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Changed,
}

impl Change {
    /// As JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Changed => "changed",
        }
    }
}

/// A session title the range adds that a rule withholds.
#[derive(Debug, Clone, Serialize)]
pub struct RangeTitle {
    pub title: String,
    pub path: String,
    pub line: usize,
    pub citation: String,
    pub withheld: Withheld,
    #[serde(flatten)]
    pub blamed: Option<Blamed>,
}

impl RangeItem {
    /// Whether a reviewer should look at it: withheld, not judged, secret,
    /// hidden text, stale or a near-duplicate (each a group of the report).
    pub fn flagged(&self) -> bool {
        self.item.withheld.is_some()
            || self.item.awaiting_check
            || !self.secrets.is_empty()
            || self.hidden_text
            || self.stale.is_some()
            || self.duplicate_of.is_some()
    }
}

impl RangeReview {
    /// Whether the range touches `.thehook/` at all.
    pub fn touched(&self) -> bool {
        !self.files.is_empty()
    }

    pub fn withheld(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| i.item.withheld.is_some())
    }

    pub fn with_secrets(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| !i.secrets.is_empty())
    }

    pub fn with_hidden_text(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| i.hidden_text)
    }

    pub fn stale(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| i.stale.is_some())
    }

    pub fn duplicates(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| i.duplicate_of.is_some())
    }

    /// Items the learned check has not judged (the model did not run):
    /// no agent is given them yet, and no review can vouch for them.
    pub fn unjudged(&self) -> impl Iterator<Item = &RangeItem> {
        self.items.iter().filter(|i| i.item.awaiting_check)
    }

    /// What `review --check` fails on: anything withheld from agents or
    /// not yet judged, a secret in the text a teammate would commit, or a
    /// change to whose word memory is taken on.
    pub fn fails_check(&self) -> bool {
        !self.trust.is_empty()
            || self.withheld().next().is_some()
            || self.unjudged().next().is_some()
            || self.with_secrets().next().is_some()
            || !self.titles.is_empty()
    }
}

/// Reviews what `range` adds to memory: `REV` (what `HEAD` adds since it
/// left `REV`) or `BASE..HEAD`. `memory` is synced and reads `HEAD`.
pub fn review_range(memory: &Memory, range: &str) -> Result<RangeReview> {
    let root = memory.project().root();
    let (from, to) = split_range(range)?;
    let head = commit_of(root, "HEAD")?;
    let to = commit_of(root, to)?;
    if to != head {
        return Err(usage(
            format!(
                "review --since reads memory as checked out, and `{range}` does not end at HEAD"
            ),
            "check out the range's end first (in a pull request, its head)",
        ));
    }
    let from = commit_of(root, from)?;
    let base = merge_base(root, &from, &head)?;
    ensure_committed(root)?;
    let hunks = added_lines(root, &base, &head)?;
    let stale: HashMap<String, String> = memory
        .stale_items()?
        .into_iter()
        .map(|(item, why)| (item.id, why))
        .collect();
    let in_range = |path: &str, start: usize, end: usize| {
        hunks
            .get(path)
            .and_then(|hs| hs.iter().find(|h| h.overlaps(start, end)))
    };
    let mut files: HashMap<String, String> = HashMap::new();
    let mut items: Vec<RangeItem> = Vec::new();
    for item in memory.index().all_items()? {
        let Some(hunk) = in_range(&item.path, item.line_start, item.line_end) else {
            continue;
        };
        let file = files
            .entry(item.path.clone())
            .or_insert_with(|| std::fs::read_to_string(root.join(&item.path)).unwrap_or_default());
        items.push(RangeItem {
            change: change_of(hunk),
            hidden_text: hides_text(file, item.line_start, item.line_end),
            citation: item.citation(),
            secrets: secrets_in(&item.text),
            stale: stale.get(&item.id).cloned(),
            blamed: None,
            duplicate_of: None,
            item,
        });
    }
    mark_duplicates(memory, &mut items)?;
    let mut titles: Vec<RangeTitle> = entries(memory.index())?
        .into_iter()
        .filter(|e| e.is_title() && in_range(&e.path, e.line, e.line).is_some())
        .map(|e| RangeTitle {
            title: e.text,
            citation: e.citation,
            path: e.path,
            line: e.line,
            withheld: e.withheld,
            blamed: None,
        })
        .collect();
    blame(root, &head, &mut items, &mut titles);
    let trust = trust_changes(root, &base, &hunks);
    items.sort_by(|a, b| (&a.item.path, a.item.line_start).cmp(&(&b.item.path, b.item.line_start)));
    Ok(RangeReview {
        range: range.to_string(),
        base,
        head,
        files: hunks.into_keys().collect(),
        items,
        titles,
        trust,
    })
}

/// What the range changes in whose word memory is taken on: authors added
/// to or removed from `trust.authors`, confirmations added. A pull request
/// that trusts its own author, or confirms its own line, is for a person to
/// look at before it counts.
fn trust_changes(root: &Path, base: &str, hunks: &BTreeMap<String, Vec<Hunk>>) -> Vec<String> {
    let mut out = Vec::new();
    let authors = |text: Option<String>| -> Vec<String> {
        let text = text.unwrap_or_default();
        Config::parse(Path::new(CONFIG_FILE), &text)
            .map(|c| c.config.trust.authors)
            .unwrap_or_default()
    };
    if hunks.contains_key(CONFIG_FILE) {
        let before = authors(show(root, base, CONFIG_FILE));
        let after = authors(std::fs::read_to_string(root.join(CONFIG_FILE)).ok());
        let added: Vec<&String> = after.iter().filter(|a| !before.contains(a)).collect();
        let removed: Vec<&String> = before.iter().filter(|a| !after.contains(a)).collect();
        if !added.is_empty() || !removed.is_empty() {
            out.push(format!(
                "trust.authors changes: {} added, {} removed ({})",
                added.len(),
                removed.len(),
                added
                    .iter()
                    .map(|a| format!("+{a}"))
                    .chain(removed.iter().map(|a| format!("-{a}")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if let Some(added) = hunks.get(CONFIRMED_FILE) {
        let lines: usize = added.iter().map(|h| h.last + 1 - h.first).sum();
        out.push(format!(
            "{CONFIRMED_FILE}: {lines} line(s) added: confirmations count only where a trusted author committed them"
        ));
    }
    out
}

/// The text of `rel` (project-relative) at `rev`, if it has one.
fn show(root: &Path, rev: &str, rel: &str) -> Option<String> {
    let done = git(root)
        .args(["show", &format!("{rev}:./{rel}")])
        .output()
        .ok()?;
    done.status
        .success()
        .then(|| String::from_utf8_lossy(&done.stdout).into_owned())
}

/// `BASE..HEAD` (or `...`) into its ends; a single `REV` ends at `HEAD`.
fn split_range(range: &str) -> Result<(&str, &str)> {
    let (from, to) = range
        .split_once("...")
        .or_else(|| range.split_once(".."))
        .unwrap_or((range, "HEAD"));
    let to = if to.is_empty() { "HEAD" } else { to };
    if from.is_empty() {
        return Err(usage(
            format!("`{range}` names no base"),
            "give a base: `--since main` or `--since main..HEAD`",
        ));
    }
    Ok((from, to))
}

/// The commit `rev` names.
fn commit_of(root: &Path, rev: &str) -> Result<String> {
    let spec = format!("{rev}^{{commit}}");
    let args = [
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        &spec,
    ];
    sha_from(root, &args)?.ok_or_else(|| {
        usage(
            format!("`{rev}` is not a commit of this repository"),
            "fetch it first (a shallow clone lacks the base: `git fetch origin <base>`, or \
             `fetch-depth: 0` in actions/checkout)",
        )
    })
}

/// Where `head` left `from`.
fn merge_base(root: &Path, from: &str, head: &str) -> Result<String> {
    sha_from(root, &["merge-base", from, head])?.ok_or_else(|| {
        usage(
            format!("{from} and HEAD have no commit in common here"),
            "fetch more history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)",
        )
    })
}

/// The commit a git command prints, or `None` when it finds none.
fn sha_from(root: &Path, args: &[&str]) -> Result<Option<String>> {
    let done = git(root)
        .args(args)
        .output()
        .map_err(|e| git_failed(root, e))?;
    let sha = String::from_utf8_lossy(&done.stdout).trim().to_string();
    Ok((done.status.success() && !sha.is_empty()).then_some(sha))
}

/// The review reads `.thehook/` as checked out: its tracked files must be
/// `HEAD`'s (untracked ones, such as the index, are in no range).
fn ensure_committed(root: &Path) -> Result<()> {
    let done = git(root)
        .args(["status", "--porcelain", "--untracked-files=no", "--"])
        .arg(crate::project::THEHOOK_DIR)
        .output()
        .map_err(|e| git_failed(root, e))?;
    match done.stdout.is_empty() {
        true => Ok(()),
        false => Err(usage(
            "`.thehook/` has uncommitted changes, which no range holds".into(),
            "commit or stash them, then review the range again",
        )),
    }
}

fn change_of(hunk: &Hunk) -> Change {
    match hunk.replaces {
        true => Change::Changed,
        false => Change::Added,
    }
}

/// Whether lines `start..=end` of `file` hold what [`strip_hidden`] removes.
fn hides_text(file: &str, start: usize, end: usize) -> bool {
    let lines: Vec<&str> = file
        .lines()
        .skip(start.saturating_sub(1))
        .take(end + 1 - start.max(1))
        .collect();
    let raw = lines.join("\n");
    strip_hidden(&raw) != raw
}

fn secrets_in(text: &str) -> Vec<(String, usize)> {
    let mut found = Findings::default();
    redact_counting(text, &mut found);
    found
        .kinds
        .into_iter()
        .map(|(kind, n)| (kind.to_string(), n))
        .collect()
}

/// Each item of the range that says nearly what an item the range did not
/// touch says (memory already on the base) names that item.
fn mark_duplicates(memory: &Memory, items: &mut [RangeItem]) -> Result<()> {
    let ours: HashSet<String> = items.iter().map(|i| i.item.id.clone()).collect();
    let mut of: HashMap<String, Item> = HashMap::new();
    for (a, b) in memory.near_duplicates()? {
        match (ours.contains(&a.id), ours.contains(&b.id)) {
            (true, false) => {
                of.entry(a.id.clone()).or_insert(b);
            }
            (false, true) => {
                of.entry(b.id.clone()).or_insert(a);
            }
            _ => {}
        }
    }
    for item in items {
        item.duplicate_of = of.remove(&item.item.id);
    }
    Ok(())
}

/// Who committed each item's first line and each title, at `head`: one
/// `git blame` a file.
fn blame(root: &Path, head: &str, items: &mut [RangeItem], titles: &mut [RangeTitle]) {
    let mut by_file: BTreeMap<String, HashMap<usize, Blamed>> = BTreeMap::new();
    let paths = items
        .iter()
        .map(|i| i.item.path.clone())
        .chain(titles.iter().map(|t| t.path.clone()));
    for path in paths {
        if let std::collections::btree_map::Entry::Vacant(at) = by_file.entry(path) {
            let lines = blame_at(root, Some(head), at.key());
            at.insert(lines);
        }
    }
    for item in items {
        item.blamed = by_file[&item.item.path].get(&item.item.line_start).cloned();
    }
    for title in titles {
        title.blamed = by_file[&title.path].get(&title.line).cloned();
    }
}

fn usage(problem: String, fix: &'static str) -> Error {
    Error::Usage {
        problem,
        source: None,
        fix: fix.into(),
    }
}

fn git_failed(root: &Path, source: std::io::Error) -> Error {
    Error::Io {
        action: "run git in",
        path: root.to_path_buf(),
        source,
    }
}
