//! Memory opened for a command: synced, with what was worked around on
//! stderr; and the one-line answer of the commands that change an item.

use thehook_core::memory::Refresh;
use thehook_core::model::SearchPaths;
use thehook_core::{Error, Memory, Project};

use crate::output::{Output, Style};
use crate::render::one_line;

/// Opens the project's memory and syncs it, with what was worked around
/// (a rebuild, warnings about the markdown) on stderr.
pub(super) fn open(
    project: &Project,
    paths: &SearchPaths,
    create: bool,
    out: &mut Output,
) -> Result<Memory, Error> {
    open_embedding(project, paths, create, None, Refresh::EveryFile, out)
}

/// [`open`], with the model loading and embedding `query` on another thread
/// while the index syncs (a one-shot hybrid recall), refreshed as far as
/// `refresh` looks.
pub(super) fn open_embedding(
    project: &Project,
    paths: &SearchPaths,
    create: bool,
    query: Option<&str>,
    refresh: Refresh,
    out: &mut Output,
) -> Result<Memory, Error> {
    let mut memory = Memory::open(project.root(), paths, create)?;
    if let Some(query) = query {
        memory.start_embedding(query);
    }
    if memory.refresh_for_answer(refresh)? {
        super::start_detached(project.root(), &["reindex", "--pending"]);
    }
    print_notices(&mut memory, out);
    Ok(memory)
}

pub(super) fn print_notices(memory: &mut Memory, out: &mut Output) {
    for notice in memory.take_notices() {
        out.note(&format!("warning: {notice}"));
    }
}

/// `<done> <id> (<path:line>): <text>`, what `forget` and `review` say.
pub(super) fn print_done(out: &mut Output, done: &str, item: &thehook_core::memory::item::Item) {
    out.print(&format!(
        "{done} {} ({}): {}",
        item.id,
        out.paint(Style::Path, &item.citation()),
        one_line(&item.text, 120)
    ));
}
