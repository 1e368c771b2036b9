//! `thehook reindex`: the index rebuilt from the markdown.

use std::time::Instant;

use serde_json::json;
use thehook_core::memory::embed::{Availability, SearchPaths};
use thehook_core::{Memory, Project};

use crate::args::ReindexArgs;
use crate::output::Output;
use crate::{CommandResult, Exit};

use super::memory::print_notices;

pub(super) fn reindex(
    project: &Project,
    paths: &SearchPaths,
    args: ReindexArgs,
    out: &mut Output,
) -> CommandResult {
    if args.pending {
        return embed_pending(project, paths);
    }
    let mut memory = Memory::open(project.root(), paths, false)?;
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
    let started = Instant::now();
    let result = memory.reindex(&|done, total| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let stats = result?;
    let secs = started.elapsed().as_secs_f64();
    for w in &stats.warnings {
        out.note(&format!("warning: {w}"));
    }
    print_notices(&mut memory, out);
    let embeddings = match memory.availability() {
        Availability::Ready { model, .. } => model.clone(),
        Availability::Missing { reason, .. } => format!("none, lexical-only ({reason})"),
    };
    if args.json {
        let report = json!({
            "items": stats.items_added,
            "files": stats.files_changed,
            "embedded": stats.items_embedded,
            "seconds": secs,
            "embeddings": embeddings,
            "warnings": stats.warnings,
        });
        out.print(&report.to_string());
    } else {
        let rate = if secs > 0.0 {
            stats.items_added as f64 / secs
        } else {
            0.0
        };
        out.print(&format!(
            "indexed {} items from {} files in {:.2} s ({:.0} items/s); embeddings: {embeddings}",
            stats.items_added, stats.files_changed, secs, rate
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
    let mut memory = Memory::open(project.root(), paths, false)?;
    memory.sync(&|_, _| {})?;
    Ok(Exit::Success)
}
