//! The file hook: when the agent reads or edits a file, what memory knows
//! about that file and this session was not given yet, or nothing. First
//! the items that name the file (gotchas and decisions first), then the
//! newest earlier sessions that changed it (unless more than a few did,
//! [`RARE_FILE_SHARE`]: then which of them matters is anyone's guess), each
//! with its citation, in at most [`MAX_CHARS`]. A session's own summary
//! lines come only as that session's line: on the replayed histories they
//! were most of what the hook cited, by the "files changed" lists of
//! sessions on files everyone changes.
//!
//! It runs at every file tool call, so it reads the `paths` database, the
//! head of the file (for the symbols it defines, which items may name) and
//! the renames the background half read from git (sessions that changed
//! the file under an earlier name count), and nothing else: no git, and a
//! hook's sync, which stats the memory folders and knowledge files and
//! does nothing more unless one moved (memory edited since the last hook
//! is what it answers from, sessions of this file first). A subagent's calls
//! are answered once per subagent (`retrieval.on_file_subagents`): its
//! context is its own, so what its parent was told of the file is not in it,
//! and its record is its own ([`Given::of_payload`]).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Component, Path};

use crate::agents::HookPayload;
use crate::error::Result;
use crate::given::{Given, Hook, FILE_MARK};
use crate::inject::block::cited_line;
use crate::inject::left_off::{self, RARE_FILE_SHARE};
use crate::inject::Added;
use crate::memory::files;
use crate::memory::index::{AboutFile, FileNames};
use crate::memory::session::SessionRecord;
use crate::memory::{Focus, Memory};
use crate::model::SearchPaths;
use crate::policy::renames::Renames;
use crate::policy::stale::Staleness;
use crate::project::Project;
use crate::store::item::{Item, ItemKind};

/// At most this many characters are added at one tool call, heading included.
pub const MAX_CHARS: usize = 800;
/// Characters kept of one item.
const MAX_ITEM_CHARS: usize = 240;
/// At most this many earlier sessions that changed the file.
const SESSIONS: usize = 2;
/// A file this few sessions changed is rare enough to name them, however
/// few sessions memory holds.
const MIN_RARE: usize = 3;

/// Items (per tail of the file's path) and sessions read at most: more
/// than fit, for those given already or stale to be passed over.
const READ_AT_MOST: usize = 24;

/// Answers a file-hook payload in `project`, which has memory (the hook
/// protocol, `crate::hook`, checked).
pub(crate) fn on_file(
    payload: &HookPayload,
    project: &Project,
    paths: &SearchPaths,
) -> Result<Added> {
    let said = |log: String| Ok(Added::nothing(log));
    let Some(touched) = &payload.touched else {
        return said(format!("{}: not a file tool call", payload.agent));
    };
    if !payload.agent.description().protocol.file.adds_context() {
        return said(format!(
            "{} cannot add context at a tool call",
            payload.agent
        ));
    }
    let cwd = payload.cwd.as_deref().unwrap_or(project.root());
    let Some(rel) = relative(project.root(), cwd, &touched.path) else {
        return said(format!("{}: outside the project", touched.tool));
    };
    if rel.starts_with(".thehook/") {
        return said(format!("{} {rel}: memory itself", touched.tool));
    }
    let mut memory = Memory::open(project, paths, false)?;
    let retrieval = &memory.config().retrieval;
    if !retrieval.on_file {
        return said("retrieval.on_file is off".into());
    }
    if payload.subagent.is_some() && !retrieval.on_file_subagents {
        return said(format!("{} {rel}: a subagent's call", touched.tool));
    }
    // A subagent's context is its own: it is told of a file once too.
    let given = Given::of_payload(project, payload);
    let already = given.as_ref().map(Given::load).unwrap_or_default();
    // Told of this file once: later calls on it say nothing, whatever did
    // not fit.
    if already.contains(&format!("{FILE_MARK}{rel}")) {
        return said(format!("{} {rel}: told already", touched.tool));
    }
    let focus = Focus {
        branch: None,
        files: vec![rel.clone()],
    };
    let synced = super::sync_for_hook(&mut memory, &focus)?;
    let current = payload.session_id.as_deref();
    let lines = lines_about(&mut memory, &rel, current, &already)?;
    if lines.is_empty() {
        return said(format!("{} {rel}: nothing new{synced}", touched.tool));
    }
    let notes = synced
        + &given.as_ref().map_or(String::new(), |given| {
            let cited: Vec<&str> = lines.iter().map(|(_, cited)| cited.as_str()).collect();
            given.record(&Hook::File { path: rel.clone() }, &cited)
        });
    let text = block(&rel, &lines);
    Ok(Added {
        log: format!(
            "{} {rel}: {} lines, {} chars{notes}",
            touched.tool,
            lines.len(),
            text.len()
        ),
        output: payload.agent.description().protocol.file.with(&text),
    })
}

/// What memory, synced, knows about the project file `rel` that the
/// context (`already`) of session `current` was not given: its lines with
/// their citations, within [`MAX_CHARS`] with [`block`]'s heading. The
/// file hook's answer, and the prompt hook's for a file it names with `@`.
pub(crate) fn lines_about(
    memory: &mut Memory,
    rel: &str,
    current: Option<&str>,
    already: &HashSet<String>,
) -> Result<Vec<(String, String)>> {
    let project = memory.project().clone();
    // A file most sessions changed says nothing about which of them matters.
    let sessions = memory.index().file_count()? as f32;
    let most = ((sessions * RARE_FILE_SHARE).ceil() as usize).max(MIN_RARE);
    let source = head_of(&project.root().join(rel));
    let renames = Renames::load(&project);
    let names = FileNames {
        path: rel,
        earlier: renames.earlier_names(rel),
        defines: files::defined(&source),
    };
    let about = memory.index().about_file(&names, READ_AT_MOST, most)?;
    let lines = fit(rel, &choose(about, &project, current, already));
    // A session file edited in place since the last sync: read again.
    let cited: Vec<String> = lines.iter().map(|(_, cited)| cited.clone()).collect();
    if super::recheck_for_hook(memory, &cited)? {
        let about = memory.index().about_file(&names, READ_AT_MOST, most)?;
        return Ok(fit(rel, &choose(about, &project, current, already)));
    }
    Ok(lines)
}

/// The first [`files::DEFINITIONS_READ`] bytes of `file` as text; empty for
/// a file not there yet (a Write's), a folder, or one that cannot be read.
fn head_of(file: &Path) -> String {
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(file) {
        let _ = f
            .take(files::DEFINITIONS_READ as u64)
            .read_to_end(&mut head);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// `path` (absolute, or relative to `cwd`) relative to `root`, with `/`
/// between its parts; `None` outside it.
pub(crate) fn relative(root: &Path, cwd: &Path, path: &Path) -> Option<String> {
    let full = cwd.join(path);
    let inside = |root: &Path| {
        let rest = full.strip_prefix(root).ok()?;
        let parts: Option<Vec<&str>> = rest
            .components()
            .map(|c| match c {
                Component::Normal(part) => part.to_str(),
                _ => None,
            })
            .collect();
        parts.filter(|p| !p.is_empty()).map(|p| p.join("/"))
    };
    // The agent may name the file through a symlinked folder (`/tmp` on
    // macOS) that the project root was found without, or the other way.
    inside(root)
        .or_else(|| inside(&root.canonicalize().ok()?))
        .or_else(|| {
            let full = full.canonicalize().ok()?;
            let rest = full.strip_prefix(root.canonicalize().ok()?).ok()?;
            Some(rest.to_str()?.replace('\\', "/")).filter(|r| !r.is_empty())
        })
}

/// The lines to give, best first (as [`AboutFile`] orders them), each with
/// its citation: items an agent may see, not stale, not given; then the
/// newest sessions that changed the file, other than this one.
fn choose(
    about: AboutFile,
    project: &Project,
    session_id: Option<&str>,
    already: &HashSet<String>,
) -> Vec<(String, String)> {
    // Two small files to read: only when some item names the file.
    let staleness = (!about.items.is_empty()).then(|| Staleness::load(project));
    let items: Vec<Item> = about
        .items
        .into_iter()
        // A session's summary is given as that session's line, below, under
        // the rule that a file most sessions changed names none of them.
        .filter(|i| i.kind != ItemKind::Summary)
        .filter(|i| i.for_agents() && !already.contains(&i.citation()))
        .filter(|i| {
            i.session_id
                .as_deref()
                .is_none_or(|s| Some(s) != session_id)
        })
        .filter(|i| staleness.as_ref().is_some_and(|s| s.reason(i).is_none()))
        .collect();
    let sessions: Vec<SessionRecord> = about
        .sessions
        .into_iter()
        .filter(|s| s.session_id.is_none() || s.session_id.as_deref() != session_id)
        .collect();
    let items = items
        .iter()
        .map(|i| (cited_line(i, true, MAX_ITEM_CHARS), i.citation()));
    // The newest few, whether given already or not: older ones are not
    // dripped in at later calls.
    let sessions = sessions
        .iter()
        .take(SESSIONS)
        .filter(|s| !already.contains(&s.citation()))
        .map(|s| (left_off::line(s), s.citation()));
    items.chain(sessions).collect()
}

/// The lines that fit in [`MAX_CHARS`] with the heading, in order; a line
/// that does not fit is passed over for a shorter one after it.
fn fit(rel: &str, lines: &[(String, String)]) -> Vec<(String, String)> {
    let mut used = block(rel, &[]).len();
    let mut out = Vec::new();
    for (line, cited) in lines {
        if used + 1 + line.len() <= MAX_CHARS {
            used += 1 + line.len();
            out.push((line.clone(), cited.clone()));
        }
    }
    out
}

/// The text added: a heading naming the file, the line that says memory is
/// data, the lines.
pub(crate) fn block(rel: &str, lines: &[(String, String)]) -> String {
    let mut text = format!(
        "# Project memory (thehook) on {rel}\n{}",
        crate::text::MEMORY_IS_DATA
    );
    for (line, _) in lines {
        text.push('\n');
        text.push_str(line);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_from_the_project_root() {
        let root = Path::new("/repo/app");
        let rel = |cwd: &str, path: &str| relative(root, Path::new(cwd), Path::new(path));
        assert_eq!(
            rel("/repo/app", "/repo/app/src/a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(rel("/repo/app/src", "b.rs").as_deref(), Some("src/b.rs"));
        assert_eq!(rel("/repo/app", "/etc/passwd"), None);
        assert_eq!(rel("/repo/app", "../other/x.rs"), None);
        assert_eq!(rel("/repo/app", "/repo/app"), None);
    }

    #[test]
    fn what_does_not_fit_is_passed_over_for_what_does() {
        let long = ("x".repeat(MAX_CHARS), "a.md:1".to_string());
        let short = ("- short (b.md:2)".to_string(), "b.md:2".to_string());
        let kept = fit("src/a.rs", &[long, short.clone()]);
        assert_eq!(kept, vec![short]);
        assert!(block("src/a.rs", &kept).len() <= MAX_CHARS);
    }
}
