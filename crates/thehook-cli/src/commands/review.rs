//! `review`: the stale items, and what a person decides about each.

use serde_json::json;
use thehook_core::memory::embed::SearchPaths;
use thehook_core::{ItemRef, Project, RewriteRequest};

use crate::args::{ReviewAction, ReviewArgs};
use crate::output::{Output, Style};
use crate::render::one_line;
use crate::{CommandResult, Exit};

pub(super) fn review(
    project: &Project,
    paths: &SearchPaths,
    args: ReviewArgs,
    out: &mut Output,
) -> CommandResult {
    let mut memory = super::memory::open(project, paths, false, out)?;
    let (done, item) = match &args.action {
        None => return list(&memory.stale_items()?, args.json, out),
        Some(ReviewAction::Confirm { id }) => ("confirmed", memory.confirm(&ItemRef::parse(id)?)?),
        Some(ReviewAction::Rewrite { id, text }) => (
            "rewrote",
            memory.rewrite(&RewriteRequest::parse(id, text)?)?,
        ),
        Some(ReviewAction::Forget { id }) => ("forgot", memory.forget(&ItemRef::parse(id)?)?),
    };
    if args.json {
        out.print(&json!({ "done": done, "item": item }).to_string());
    } else {
        super::memory::print_done(out, done, &item);
    }
    Ok(Exit::Success)
}

fn list(
    stale: &[(thehook_core::memory::item::Item, String)],
    as_json: bool,
    out: &mut Output,
) -> CommandResult {
    if as_json {
        let items: Vec<_> = stale
            .iter()
            .map(|(item, why)| json!({ "item": item, "citation": item.citation(), "stale": why }))
            .collect();
        out.print(&serde_json::to_string_pretty(&json!({ "stale": items })).expect("json"));
        return Ok(Exit::Success);
    }
    if stale.is_empty() {
        out.print("nothing is stale: every cited path and symbol is in the checkout");
        return Ok(Exit::Success);
    }
    for (item, why) in stale {
        out.print(&format!(
            "{}  {}  {}",
            out.paint(Style::Path, &item.citation()),
            out.paint(Style::Kind, item.kind.as_str()),
            out.paint(Style::Dim, &item.id),
        ));
        out.print(&format!("  {}", one_line(&item.text, 200)));
        out.print(&out.paint(Style::Warn, &format!("  stale: {why}")));
    }
    out.print(&format!(
        "\n{} stale item(s), never injected at session start. For each: \
         `thehook review confirm <id>` (still true), `thehook review rewrite <id> \"<text>\"`, \
         or `thehook review forget <id>`.",
        stale.len()
    ));
    Ok(Exit::Success)
}
