//! `thehook reindex`: the index rebuilt from the markdown.

use thehook_core::model::SearchPaths;
use thehook_core::{Memory, Project};

use crate::args::ReindexArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

use super::memory::print_notices;
use thehook_core::memory::{SyncPolicy, NO_PROGRESS};

pub(super) fn reindex(
    project: &Project,
    paths: &SearchPaths,
    args: ReindexArgs,
    out: &mut Output,
) -> CommandResult {
    if args.pending {
        return embed_pending(project, paths);
    }
    let mut memory = Memory::open(project, paths, false)?;
    let bar = out.stderr_tty.then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "embedding {bar:30} {pos}/{len} items ({per_sec}, {eta} left)",
            )
            .expect("valid template"),
        );
        bar
    });
    let result = memory.reindex_reported(&|done, total| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let done = result?;
    for w in &done.warnings {
        out.note(&format!("warning: {w}"));
    }
    print_notices(&mut memory, out);
    if args.json {
        out.print(&serde_json::to_string(&done).expect("json"));
    } else {
        let rate = if done.seconds > 0.0 {
            done.items as f64 / done.seconds
        } else {
            0.0
        };
        out.print(&format!(
            "indexed {} items from {} files in {:.2} s ({:.0} items/s); embeddings: {}",
            done.items, done.files, done.seconds, rate, done.embeddings
        ));
    }
    Ok(Exit::Success)
}

/// `reindex --pending`: one full sync, which embeds what waits for vectors.
/// Quiet, and a no-op while another one runs (each command that answered
/// early starts one).
fn embed_pending(project: &Project, paths: &SearchPaths) -> CommandResult {
    let Some(_running) = project.try_lock_embedding()? else {
        return Ok(Exit::Success);
    };
    let mut memory = Memory::open(project, paths, false)?;
    memory.sync(SyncPolicy::FULL, NO_PROGRESS)?;
    Ok(Exit::Success)
}
