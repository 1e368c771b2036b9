//! Step 6: the session file written (the same file again for a session
//! captured before) and indexed, under the project lock.

use std::path::PathBuf;

use super::read::Read;
use super::session::SessionText;
use super::Stop;
use crate::capture::extract::{self, SessionMeta};
use crate::capture::locked;
use crate::capture::outcome::WithoutLlm;
use crate::capture::workbench::{Workbench, LOG};
use crate::project::Project;
use crate::store::{self, write_atomic};
use crate::transcript::first_line;

/// A session file on disk.
pub(crate) struct Written {
    /// Relative to the project.
    pub(crate) file: String,
    pub(crate) transcript: PathBuf,
    pub(crate) without_llm: Option<WithoutLlm>,
    pub(crate) over_budget: bool,
    /// For the worker's log: what did not go as it should, and what was redacted.
    pub(crate) notes: Vec<String>,
}

pub(crate) fn write(
    workbench: &mut Workbench,
    stem: &str,
    transcript: PathBuf,
    read: &Read,
    session: SessionText,
) -> Result<Written, Stop> {
    let failed = |e: crate::error::Error| Stop::Failed {
        transcript: Some(transcript.clone()),
        reason: e.to_string(),
    };
    let mut notes = Vec::new();
    let project = &workbench.project;
    let id = &session.meta.session_id;
    let locked = locked::lock(&mut workbench.memory, project, workbench.paths).map_err(failed)?;
    if let Some(e) = locked.open_failure() {
        notes.push(format!(
            "the index cannot be opened: {}",
            first_line(&e.to_string())
        ));
    }
    let path = session_path(project, &session.meta, stem);
    let again = path.exists();
    write_atomic(&path, session.text.as_bytes()).map_err(failed)?;
    if again {
        crate::capture::ledger::LEDGER
            .remove(project, id)
            .map_err(failed)?;
    }
    let file = project.relative(&path);
    if let Err(e) = locked.sync(LOG) {
        // The markdown is the truth: the next sync indexes it.
        notes.push(format!(
            "{file} is written but not indexed yet: {}",
            first_line(&e.to_string())
        ));
    }
    if let Some(left_out) = read.transcript.left_out {
        notes.push(format!("{id}: {left_out}"));
    }
    let found = &read.found;
    if found.total() > 0 {
        notes.push(format!(
            "redacted {} secret(s) from {id}: {:?}",
            found.total(),
            found.kinds
        ));
    }
    Ok(Written {
        file,
        transcript,
        without_llm: session.without_llm,
        over_budget: session.over_budget,
        notes,
    })
}

/// The file a session is written to: the one that already holds it, else
/// `sessions/<YYYY-MM-DD-HHmm>-<slug>-<first 8 of the id>.md`. The id is in
/// every new name because uniqueness checked here is only this clone's: two
/// teammates' sessions of the same minute and title would otherwise get one
/// name and conflict when their clones merge.
fn session_path(project: &Project, meta: &SessionMeta, stem: &str) -> PathBuf {
    if let Some(existing) = store::session_files(project)
        .into_iter()
        .find(|f| f.front_matter.session_id.as_deref() == Some(meta.session_id.as_str()))
    {
        return existing.path;
    }
    let stamp = meta
        .date
        .parse::<jiff::Timestamp>()
        .map(|t| t.strftime("%Y-%m-%d-%H%M").to_string())
        .unwrap_or_else(|_| "undated".into());
    let short: String = stem.chars().take(8).collect();
    let slug = meta.title.as_deref().map(extract::slug).unwrap_or_default();
    let named = if slug.is_empty() {
        stamp
    } else {
        format!("{stamp}-{slug}")
    };
    let dir = project.sessions_dir();
    // Another session's file is never overwritten: the whole id, then a number.
    let candidates = [format!("{named}-{short}"), format!("{named}-{stem}")];
    candidates
        .into_iter()
        .chain((2..).map(|n| format!("{named}-{stem}-{n}")))
        .map(|name| dir.join(format!("{name}.md")))
        .find(|p| !p.exists())
        .expect("an unused name is found")
}
