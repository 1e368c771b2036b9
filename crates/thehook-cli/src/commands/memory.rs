//! Memory opened for a command: synced, with what was worked around on
//! stderr; and the one-line answer of the commands that change an item.

use thehook_core::memory::{Embedding, Refresh, SyncPolicy, EMBED_NOW_LIMIT, NO_PROGRESS};
use thehook_core::model::SearchPaths;
use thehook_core::{Error, Memory, Project};

use crate::output::{Output, Style};
use crate::render::one_line;

/// How a command opens memory.
#[derive(Clone, Copy)]
pub(super) struct Opening<'q> {
    /// Start a memory where there is none (`remember`).
    pub(super) create: bool,
    /// How far the sync before the answer looks.
    pub(super) refresh: Refresh,
    /// How many new items it embeds first; the rest are embedded by a
    /// detached `reindex --pending`.
    pub(super) embedding: Embedding,
    /// A query the model loads and embeds on another thread while the
    /// index syncs (a one-shot hybrid recall).
    pub(super) query: Option<&'q str>,
}

impl Opening<'_> {
    /// An existing memory, every file looked at, at most
    /// [`EMBED_NOW_LIMIT`] items embedded first, no query.
    pub(super) const EXISTING: Opening<'static> = Opening {
        create: false,
        refresh: Refresh::EveryFile,
        embedding: Embedding::AtMost(EMBED_NOW_LIMIT),
        query: None,
    };
    /// An existing memory, the folders' stamps trusted (`recall`, which
    /// answers while an agent may wait).
    pub(super) const STAMPED: Opening<'static> = Opening {
        refresh: Refresh::Stamped,
        ..Opening::EXISTING
    };
}

/// Opens the project's memory and syncs it for an answer
/// ([`SyncPolicy::answer`]), with what was worked around (a rebuild,
/// warnings about the markdown) on stderr. Items left unembedded are
/// embedded by a detached `reindex --pending`.
pub(super) fn open(
    project: &Project,
    paths: &SearchPaths,
    how: Opening,
    out: &mut Output,
) -> Result<Memory, Error> {
    let mut memory = Memory::open(project, paths, how.create)?;
    if let Some(query) = how.query {
        memory.start_embedding(query);
    }
    let synced = memory.sync(SyncPolicy::answer(how.refresh, how.embedding), NO_PROGRESS)?;
    if synced.vectors_missing {
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
pub(super) fn print_done(out: &mut Output, done: &str, item: &thehook_core::store::item::Item) {
    out.print(&format!(
        "{done} {} ({}): {}",
        item.id,
        out.paint(Style::Path, &item.citation()),
        one_line(&item.text, 120)
    ));
}
