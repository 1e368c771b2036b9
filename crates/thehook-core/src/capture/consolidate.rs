//! `thehook consolidate`: the LLM merges the sessions not yet consolidated
//! with `knowledge/conventions.md`, `architecture.md` and `history.md`.
//!
//! The answer is refused, and nothing changes, when it is malformed or when
//! it would drop an item the knowledge files hold now (merging reworded
//! duplicates is fine; losing a fact is not). Applying is all or nothing:
//! the new files and the ledger of merged sessions ([`super::ledger`]) are staged in
//! `queue/.consolidate/`, a manifest written last commits them, and a run
//! that was killed while applying is finished by the next one.
//!
//! Everything written merges line by line in git without conflicts: one
//! knowledge item per line (nested detail folded into it), the session ids in
//! a sorted ledger, and `.thehook/.gitattributes` asking git for its union
//! merge on both. Session files are never edited.

#[cfg(test)]
mod tests;

use crate::capture::ledger;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::capture::locked;
use crate::capture::workbench::LOG;
use crate::capture::worker::Worker;
use crate::error::{fix, Error, IoContext, Result, Step};
use crate::project::Project;
use crate::store::{self, write_atomic};
use crate::text::analysis::lexical::Analyzer;

/// The knowledge files consolidation owns, with their title.
pub const FILES: [(&str, &str); 3] = [
    ("conventions.md", "Conventions"),
    ("architecture.md", "Architecture decisions"),
    ("history.md", "History"),
];

/// Most sessions merged in one run, oldest first (file names start with
/// the date): the prompt stays a size an LLM CLI takes; the rest wait for
/// the next run.
const MAX_SESSIONS: usize = 20;

/// Share of an existing item's terms that must reappear in one new item
/// for it to count as kept.
const KEPT_SHARE: f32 = 0.6;

/// What a consolidation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Consolidated {
    pub sessions: usize,
    /// Items in the three files before and after.
    pub items_before: usize,
    pub items_after: usize,
    /// Why the index could not follow the files just written (a full disk):
    /// consolidation took effect, and the next sync indexes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_indexed: Option<String>,
}

/// Whether enough sessions wait for consolidation (`every_n_sessions`,
/// 0 turns it off).
pub fn due(project: &Project, every_n: usize) -> bool {
    every_n > 0 && pending_sessions(project).len() >= every_n
}

fn pending_sessions(project: &Project) -> Vec<store::SessionFile> {
    let merged = ledger::LEDGER.read(project);
    store::session_files(project)
        .into_iter()
        .filter(|f| ledger::is_pending(f, &merged))
        .collect()
}

/// Consolidates now. `Ok(None)` when no session waits.
pub fn consolidate(worker: &mut Worker) -> Result<Option<Consolidated>> {
    let project = worker.project().clone();
    finish_interrupted(&project)?;
    let mut sessions = pending_sessions(&project);
    sessions.sort_by(|a, b| a.path.file_name().cmp(&b.path.file_name()));
    sessions.truncate(MAX_SESSIONS);
    if sessions.is_empty() {
        return Ok(None);
    }
    let current: Vec<Option<String>> = FILES
        .iter()
        .map(|(name, _)| std::fs::read_to_string(project.knowledge_dir().join(name)).ok())
        .collect();
    let session_texts: Vec<(String, String)> = sessions
        .iter()
        .filter_map(|s| {
            let text = std::fs::read_to_string(&s.path).ok()?;
            let body = crate::store::outside::without_marked(body_of(&text));
            Some((project.relative(&s.path), body))
        })
        .collect();
    let answer = crate::capture::call::ask(
        &project,
        &worker.workbench.config.llm,
        worker.workbench.around.path.as_deref(),
        &prompt(&current, &session_texts),
        &crate::capture::bill::Purpose::Consolidation,
    )
    .map_err(|why| Error::Llm {
        problem: format!("consolidation got no answer: {why}"),
        source: crate::error::cause(why.clone()),
        fix: fix!(
            "check the LLM CLI (",
            Step::Doctor,
            "), then ",
            Step::Consolidate
        ),
    })?;
    let answer = if worker.workbench.config.capture.redact_secrets {
        crate::text::redact::redact(&answer).into_owned()
    } else {
        answer
    };
    let new =
        parse_answer(&answer).map_err(|why| refused(&format!("the answer is malformed: {why}")))?;
    let before = existing_items(&project, &current);
    let dropped = dropped_items(&before, &new);
    if !dropped.is_empty() {
        let shown: Vec<String> = dropped.iter().take(3).map(|d| format!("`{d}`")).collect();
        return Err(refused(&format!(
            "the answer would drop {} existing item(s), e.g. {}",
            dropped.len(),
            shown.join(", ")
        )));
    }

    let locked = locked::lock(
        &mut worker.workbench.memory,
        &project,
        worker.workbench.paths,
    )?
    .opened()?;
    let now: Vec<Option<String>> = FILES
        .iter()
        .map(|(name, _)| std::fs::read_to_string(project.knowledge_dir().join(name)).ok())
        .collect();
    if now != current {
        return Err(Error::Llm {
            problem:
                "the knowledge files changed while the LLM was consolidating; nothing was changed"
                    .into(),
            source: None,
            fix: fix!(Step::Consolidate, " again"),
        });
    }
    let mut staged: Vec<(String, String)> = Vec::new();
    for ((name, title), items) in FILES.iter().zip(&new) {
        let mut text = format!("# {title}\n\n");
        for item in items {
            let _ = writeln!(text, "{item}");
        }
        staged.push((project.relative(&project.knowledge_dir().join(name)), text));
    }
    staged.push((
        project.relative(&project.dir().join(ledger::LEDGER.file)),
        ledger::LEDGER.with_added(&project, sessions.iter().map(ledger::key)),
    ));
    crate::store::ensure_merge_attributes(&project)?;
    apply(&project, &staged)?;
    // The files are the truth and are in place: an index that cannot follow
    // now is said, not taken for a consolidation that failed.
    let not_indexed = locked
        .sync(LOG)
        .err()
        .map(|e| crate::transcript::first_line(&e.to_string()));
    Ok(Some(Consolidated {
        sessions: sessions.len(),
        items_before: before.len(),
        items_after: new.iter().map(Vec::len).sum(),
        not_indexed,
    }))
}

fn refused(why: &str) -> Error {
    Error::Llm {
        problem: format!("consolidation refused: {why}; nothing was changed"),
        source: None,
        fix: fix!(
            Step::Consolidate,
            " again (the LLM may answer better), or merge by hand"
        ),
    }
}

/// The prompt: the current files, then the sessions.
fn prompt(current: &[Option<String>], sessions: &[(String, String)]) -> String {
    let mut p = String::from(
        r#"You maintain the long-term memory of a software project. Merge the new session notes below into the three knowledge files.

Answer with exactly three parts, in this order, each introduced by its marker line and holding only markdown list items:

=== conventions.md ===
- `[convention]` <a convention of the project>
=== architecture.md ===
- `[ADR]` <a decision>, <YYYY-MM-DD>
  - **Context**: ... (nested detail lines are allowed here)
=== history.md ===
- <YYYY-MM-DD>: <what happened, one line>

Rules:
- Keep every item the current files hold: merge duplicates into one item, never drop a fact.
- A decision that a later one replaced stays, marked: `- [ADR] ~~old decision~~ superseded on <date> by <new decision>`.
- Items are short facts about the project (under 300 characters), not instructions.
- Secrets appear as [REDACTED:...] markers; keep them as they are.

"#,
    );
    for ((name, _), text) in FILES.iter().zip(current) {
        let _ = writeln!(p, "--- current knowledge/{name} ---");
        let _ = writeln!(p, "{}", text.as_deref().unwrap_or("(empty)").trim());
    }
    for (path, body) in sessions {
        let _ = writeln!(p, "--- new session {path} ---\n{}", body.trim());
    }
    p
}

/// Why the LLM's answer cannot be merged: the line and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MalformedAnswer {
    #[error("line {line}: unknown part `{name}`")]
    UnknownPart { line: usize, name: String },
    #[error("line {line}: `{name}` appears twice")]
    RepeatedPart { line: usize, name: String },
    #[error("line {line} is not a list item: `{start}`")]
    NotAListItem { line: usize, start: String },
    #[error("line {line} is {chars} characters long")]
    TooLong { line: usize, chars: usize },
    #[error("line {line}: a nested line before any item")]
    NestedFirst { line: usize },
    #[error("the part `=== {name} ===` is missing")]
    MissingPart { name: &'static str },
}

/// The three files' items, checked: every non-empty line is a list item.
/// Nested lines are folded into their item, so that each item is one line:
/// git's line merge can then never split an item between two sides.
fn parse_answer(answer: &str) -> std::result::Result<Vec<Vec<String>>, MalformedAnswer> {
    let mut files: Vec<Option<Vec<String>>> = vec![None, None, None];
    let mut current: Option<usize> = None;
    // Whether the last item has detail folded into it already.
    let mut folded = false;
    for (n, line) in answer.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(marker) = trimmed
            .strip_prefix("===")
            .and_then(|m| m.strip_suffix("==="))
        {
            let name = marker.trim();
            let i = FILES.iter().position(|(f, _)| *f == name).ok_or_else(|| {
                MalformedAnswer::UnknownPart {
                    line: n + 1,
                    name: name.to_string(),
                }
            })?;
            if files[i].is_some() {
                return Err(MalformedAnswer::RepeatedPart {
                    line: n + 1,
                    name: name.to_string(),
                });
            }
            files[i] = Some(Vec::new());
            current = Some(i);
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("```") || trimmed.starts_with('#') {
            continue;
        }
        let Some(i) = current else { continue };
        if !trimmed.starts_with("- ") && !trimmed.starts_with("* ") {
            return Err(MalformedAnswer::NotAListItem {
                line: n + 1,
                start: crate::text::clip_chars(trimmed, 60),
            });
        }
        if trimmed.chars().count() > 600 {
            return Err(MalformedAnswer::TooLong {
                line: n + 1,
                chars: trimmed.chars().count(),
            });
        }
        let nested = line.starts_with("  ") || line.starts_with('\t');
        let items = files[i].as_mut().expect("set at its marker");
        if nested && items.is_empty() {
            return Err(MalformedAnswer::NestedFirst { line: n + 1 });
        }
        let text = trimmed[2..].trim();
        match items.last_mut() {
            Some(item) if nested => {
                item.push_str(if folded { "; " } else { " — " });
                item.push_str(text);
                folded = true;
            }
            _ => {
                items.push(format!("- {text}"));
                folded = false;
            }
        }
    }
    files
        .into_iter()
        .zip(FILES)
        .map(|(f, (name, _))| f.ok_or(MalformedAnswer::MissingPart { name }))
        .collect()
}

/// The items of the current knowledge files, as text.
fn existing_items(project: &Project, current: &[Option<String>]) -> Vec<String> {
    FILES
        .iter()
        .zip(current)
        .filter_map(|((name, _), text)| {
            let rel = project.relative(&project.knowledge_dir().join(name));
            text.as_ref()
                .map(|t| store::parse_markdown(&rel, t, "1970-01-01"))
        })
        .flat_map(|parsed| parsed.items.into_iter().map(|i| i.text))
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// Existing items no new item covers (most of their terms, in one item).
fn dropped_items(before: &[String], new: &[Vec<String>]) -> Vec<String> {
    let analyzer = Analyzer::default();
    let terms = |s: &str| -> HashSet<String> { analyzer.terms(s).into_iter().collect() };
    let new_items: Vec<HashSet<String>> = new.iter().flatten().map(|i| terms(i)).collect();
    before
        .iter()
        .filter(|old| {
            let old_terms = terms(old);
            if old_terms.is_empty() {
                return false;
            }
            let kept = new_items.iter().any(|n| {
                let shared = old_terms.iter().filter(|t| n.contains(*t)).count();
                shared as f32 >= KEPT_SHARE * old_terms.len() as f32
            });
            !kept
        })
        .map(|old| crate::text::clip_chars(old.lines().next().unwrap_or_default(), 80))
        .collect()
}

/// A markdown text without its front matter.
fn body_of(text: &str) -> &str {
    text.strip_prefix("---")
        .and_then(|rest| rest.find("\n---").map(|end| &rest[end + 4..]))
        .unwrap_or(text)
}

/// The staging folder of an apply in progress.
fn staging(project: &Project) -> PathBuf {
    project.queue_dir().join(".consolidate")
}

#[derive(Serialize, Deserialize)]
struct Manifest {
    /// `(staged file name, project-relative target)`.
    moves: Vec<(String, String)>,
}

/// Stages every file, commits with the manifest, then moves them in place.
fn apply(project: &Project, files: &[(String, String)]) -> Result<()> {
    let dir = staging(project);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).at("cannot clear", &dir)?;
    }
    std::fs::create_dir_all(&dir).at("cannot create folder", &dir)?;
    let mut moves = Vec::new();
    for (i, (target, text)) in files.iter().enumerate() {
        let name = format!("{i}.md");
        // The LLM's answer: nothing hidden is written.
        let text = crate::text::safety::strip_hidden(text);
        write_atomic(&dir.join(&name), text.as_bytes())?;
        moves.push((name, target.clone()));
    }
    let manifest = serde_json::to_vec(&Manifest { moves }).expect("a manifest serialises");
    write_atomic(&dir.join("manifest.json"), &manifest)?;
    finish_interrupted(project)
}

/// Finishes a committed apply (a manifest exists) or discards an
/// uncommitted one.
pub fn finish_interrupted(project: &Project) -> Result<()> {
    let dir = staging(project);
    if !dir.exists() {
        return Ok(());
    }
    let manifest: Option<Manifest> = std::fs::read(dir.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    if let Some(manifest) = manifest {
        for (name, target) in &manifest.moves {
            let from = dir.join(name);
            // Moved already by the run that was interrupted.
            if !from.exists() {
                continue;
            }
            let to = project.root().join(target);
            move_into_place(&from, &to)?;
        }
    }
    std::fs::remove_dir_all(&dir).at("cannot remove", &dir)
}

fn move_into_place(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).at("cannot create folder", parent)?;
    }
    std::fs::rename(from, to).at("cannot move into place", to)
}
