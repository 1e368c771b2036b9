//! Memory that stays true: an item is stale when it cites a path that is no
//! longer in the checkout, a code symbol that no file mentions any more, or
//! when it is a decision marked superseded. Stale items are never injected
//! at session start, are flagged with their reason in `recall`, counted in
//! `status`, and listed by `thehook review`, where a person confirms (the
//! item is true after all: `.thehook/confirmed.txt`), rewrites or forgets
//! each.
//!
//! Paths are checked live (a `stat` each). Symbols need a search of the
//! checkout, so they are checked by `thehook review` and the session-start
//! background half (one `git grep` for all of them), and the symbols found
//! missing are kept in `index/missing-symbols.json` for the fast paths.

use std::collections::{BTreeSet, HashSet};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, Result};
use crate::project::Project;
use crate::store::id_list::IdList;
use crate::store::item::Item;
use crate::store::write_atomic;

/// Items a person confirmed in review: not stale, whatever they cite.
pub(crate) const CONFIRMED: IdList = IdList {
    file: "confirmed.txt",
    header: "# Items confirmed true by `thehook review confirm`, one id a line.\n\
             # git merges this file by union (see .gitattributes).\n",
};

const SYMBOL_CACHE: &str = "missing-symbols.json";

/// What the last symbol check found.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SymbolCache {
    missing: BTreeSet<String>,
}

/// Decides which items are stale, for one project as it is checked out now.
#[derive(Debug, Default)]
pub(crate) struct Staleness {
    root: std::path::PathBuf,
    confirmed: BTreeSet<String>,
    missing_symbols: BTreeSet<String>,
}

impl Staleness {
    /// The confirmations and the last symbol check, as stored.
    pub(crate) fn load(project: &Project) -> Staleness {
        let cache: SymbolCache = std::fs::read(project.index_dir().join(SYMBOL_CACHE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Staleness {
            root: project.root().to_path_buf(),
            confirmed: CONFIRMED.read(project),
            missing_symbols: cache.missing,
        }
    }

    /// Checks every symbol `items` cite against the checkout now (one `git
    /// grep`), stores what is missing, and returns the updated view. Outside
    /// git, or when git fails, symbols are not judged.
    pub(crate) fn check_symbols(project: &Project, items: &[Item]) -> Result<Staleness> {
        let mut staleness = Staleness::load(project);
        let cited: BTreeSet<String> = items
            .iter()
            .flat_map(|i| cited_symbols(&i.text))
            .map(str::to_string)
            .collect();
        let Some(found) = symbols_in_checkout(project.root(), &cited) else {
            return Ok(staleness);
        };
        let cache = SymbolCache {
            missing: cited.into_iter().filter(|s| !found.contains(s)).collect(),
        };
        let json = serde_json::to_vec(&cache).expect("the cache serialises");
        std::fs::create_dir_all(project.index_dir())
            .at("cannot create folder", project.index_dir())?;
        write_atomic(&project.index_dir().join(SYMBOL_CACHE), &json)?;
        staleness.missing_symbols = cache.missing;
        Ok(staleness)
    }

    /// Why `item` is stale, or `None`.
    pub(crate) fn reason(&self, item: &Item) -> Option<String> {
        if self.confirmed.contains(&item.id) {
            return None;
        }
        if let Some(why) = superseded(&item.text) {
            return Some(why);
        }
        if let Some(path) = cited_paths(&item.text)
            .into_iter()
            .find(|p| self.judged(p) && !self.root.join(p).exists())
        {
            return Some(format!("cites {path}, which is not in the checkout"));
        }
        cited_symbols(&item.text)
            .into_iter()
            .find(|s| self.missing_symbols.contains(*s))
            .map(|s| format!("cites `{s}`, which no file in the checkout mentions"))
    }

    /// A path can be judged when its first folder is in the checkout: other
    /// paths may be relative to somewhere else (a package, the home folder).
    fn judged(&self, path: &str) -> bool {
        let first = path.split('/').next().unwrap_or_default();
        !first.is_empty() && self.root.join(first).is_dir()
    }
}

/// The reason when the text marks itself superseded (the format
/// consolidation asks for: `~~old decision~~ superseded on <date> by ...`).
fn superseded(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let at = lower.find("superseded")?;
    let tail = text[at..].lines().next().unwrap_or_default();
    Some(crate::text::clip_chars(tail.trim(), 100))
}

/// Relative paths the text cites: tokens with a `/` that look like files or
/// folders (no URL, no absolute or home path, no glob, no package scope).
pub(crate) fn cited_paths(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || c == '`') {
        let token = token
            .trim_start_matches(|c: char| "\"'([<*".contains(c))
            .trim_end_matches(|c: char| "\"')]>,;:.!?*".contains(c));
        let token = token.strip_prefix("./").unwrap_or(token);
        // `src/a.rs:12` and `src/a.rs#L12` cite the file.
        let token = token.split(['#']).next().unwrap_or(token);
        let token = match token.rsplit_once(':') {
            Some((path, line)) if line.chars().all(|c| c.is_ascii_digit()) => path,
            _ => token,
        };
        let looks_like_path = token.contains('/')
            && !token.contains("://")
            && !token.starts_with(['/', '~', '$', '@', '-', '.'])
            && !token.contains("..")
            && !token.contains(['*', '{', '}', '|', '=', '%'])
            && token
                .chars()
                .all(|c| c.is_alphanumeric() || "/._-".contains(c));
        if looks_like_path && !out.iter().any(|p| p == token) {
            out.push(token.to_string());
        }
    }
    out
}

/// Code symbols the text cites in backticks: a call (`parse_config()`), a
/// path (`Index::sync`, `client.retry()`), or one identifier that can only
/// be code (snake_case or camelCase). All-capital names (environment
/// variables) and plain words are not judged.
pub(crate) fn cited_symbols(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 || span.contains(char::is_whitespace) || span.contains('/') {
            continue;
        }
        let call = span.find('(');
        let name = call.map_or(span, |at| &span[..at]);
        let qualified = name.contains("::") || (call.is_some() && name.contains('.'));
        if name.contains('.') && !qualified {
            continue; // a file name (`jwt.ts`)
        }
        let last = name.rsplit([':', '.']).next().unwrap_or_default();
        let identifier = last.len() >= 4
            && last.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let has_lower = last.chars().any(|c| c.is_ascii_lowercase());
        let code_shaped = last.trim_matches('_').contains('_')
            || last
                .as_bytes()
                .windows(2)
                .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        if identifier
            && has_lower
            && (call.is_some() || qualified || code_shaped)
            && !out.contains(&last)
        {
            out.push(last);
        }
    }
    out
}

/// Which of `symbols` some file of the checkout (tracked or not, but not
/// ignored, and not `.thehook/`) mentions as a whole word. `None` when git
/// cannot tell.
fn symbols_in_checkout(root: &Path, symbols: &BTreeSet<String>) -> Option<HashSet<String>> {
    if symbols.is_empty() {
        return Some(HashSet::new());
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "grep",
            "--untracked",
            "-I",
            "-F",
            "-w",
            "-o",
            "-h",
            "--no-color",
            "-f",
            "-",
        ])
        .args(["--", ".", ":(exclude).thehook"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let patterns: String = symbols.iter().map(|s| format!("{s}\n")).collect();
    let mut stdin = child.stdin.take()?;
    // Written from another thread: git may fill its stdout before it has
    // read all of its patterns.
    let writer = std::thread::spawn(move || stdin.write_all(patterns.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    // 1: nothing matched; anything else is git failing (not a repository).
    match out.status.code() {
        Some(0) => Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect(),
        ),
        Some(1) => Some(HashSet::new()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
