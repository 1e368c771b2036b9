//! `review`: what is withheld from agents and what is stale, and what a
//! person decides about each.

use serde_json::json;
use thehook_core::memory::withheld::WithheldEntry;
use thehook_core::memory::Embedding;
use thehook_core::model::SearchPaths;
use thehook_core::policy::confirmed::FILE as CONFIRMED_FILE;
use thehook_core::text::safety::Rule;
use thehook_core::views::review::{waiting, StaleItem};
use thehook_core::views::review_range::{review_range, to_markdown, to_text};
use thehook_core::{ItemRef, Memory, Project, RewriteRequest};

use crate::args::{ReviewAction, ReviewArgs};
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};
use crate::render::one_line;

use super::memory::{open, Opening};

pub(super) fn review(
    project: &Project,
    paths: &SearchPaths,
    args: ReviewArgs,
    out: &mut Output,
) -> CommandResult {
    if let Some(range) = &args.since {
        // Every item the range adds embedded and judged by the learned
        // check, not deferred as a one-shot answer would.
        let all = Opening {
            embedding: Embedding::All,
            ..Opening::EXISTING
        };
        let memory = open(project, paths, all, out)?;
        return review_since(&memory, range, &args, out);
    }
    let mut memory = open(project, paths, Opening::EXISTING, out)?;
    let (done, item) = match &args.action {
        None => {
            let (withheld, stale) = waiting(&memory)?;
            return list(&withheld, &stale, args.json, out);
        }
        Some(ReviewAction::Release { id }) => {
            let entry = memory.release(&ItemRef::parse(id)?)?;
            return released(&entry, args.json, out);
        }
        Some(ReviewAction::Confirm { id }) => ("confirmed", memory.confirm(&ItemRef::parse(id)?)?),
        Some(ReviewAction::Rewrite { id, text }) => (
            "rewrote",
            memory.rewrite(&RewriteRequest::parse(id, text)?)?,
        ),
        Some(ReviewAction::Forget { id }) => ("forgot", memory.forget(&ItemRef::parse(id)?)?),
    };
    super::memory::print_notices(&mut memory, out);
    if args.json {
        out.print(&json!({ "done": done, "item": item }).to_string());
    } else {
        super::memory::print_done(out, done, &item);
    }
    Ok(Exit::Success)
}

/// `review --since`: what a range adds, as text, markdown or JSON; with
/// `--check`, exit 3 when it adds anything withheld or a secret.
fn review_since(
    memory: &Memory,
    range: &str,
    args: &ReviewArgs,
    out: &mut Output,
) -> CommandResult {
    let review = review_range(memory, range)?;
    match (args.json, args.markdown) {
        (true, _) => out.print(&serde_json::to_string_pretty(&review).expect("json")),
        (_, true) => out.print(to_markdown(&review).trim_end()),
        _ => out.print(&to_text(&review)),
    }
    Ok(match args.check && review.fails_check() {
        true => Exit::Findings,
        false => Exit::Success,
    })
}

fn released(entry: &WithheldEntry, as_json: bool, out: &mut Output) -> CommandResult {
    let confirmed = entry.withheld.rule == Rule::Unverified;
    if as_json {
        let done = if confirmed { "confirmed" } else { "released" };
        out.print(&json!({ "done": done, "item": entry }).to_string());
    } else if confirmed {
        out.print(&format!(
            "released {} ({}): agents are given it from now on in this clone, and in every clone \
             once you commit {}, where your confirmation of its text is recorded",
            entry.id, entry.citation, CONFIRMED_FILE
        ));
    } else {
        out.print(&format!(
            "released {} ({}): agents are given it from now on, in this clone only",
            entry.id, entry.citation
        ));
    }
    Ok(Exit::Success)
}

fn list(
    withheld: &[WithheldEntry],
    stale: &[StaleItem],
    as_json: bool,
    out: &mut Output,
) -> CommandResult {
    if as_json {
        let listing = json!({ "withheld": withheld, "stale": stale });
        out.print(&serde_json::to_string_pretty(&listing).expect("json"));
        return Ok(Exit::Success);
    }
    for entry in withheld {
        out.print(&format!(
            "{}  {}  {}",
            out.paint(Style::Path, &entry.citation),
            out.paint(Style::Kind, &entry.kind),
            out.paint(Style::Dim, &entry.id),
        ));
        out.print(&format!("  {}", one_line(&entry.text, 200)));
        let w = &entry.withheld;
        let matched = match w.rule {
            Rule::Learned => String::new(),
            _ => format!(" (matched \"{}\")", w.matched),
        };
        out.print(&out.paint(
            Style::Warn,
            &format!("  withheld: {}: {}{matched}", w.rule, w.rule.what()),
        ));
        if let Some(reason) = &w.reason {
            out.print(&out.paint(Style::Dim, &format!("  {reason}")));
        }
        if let Some(note) = w.learned_note() {
            out.print(&out.paint(Style::Dim, &format!("  {note}")));
        }
        let by = entry.committed_by.as_deref().unwrap_or("not committed");
        out.print(&out.paint(Style::Dim, &format!("  committed by: {by}")));
    }
    if !withheld.is_empty() {
        out.print(&format!(
            "\n{} item(s) withheld from agents. For each: `thehook review release <id>` (safe: \
             agents get it, in this clone only) or `thehook review forget <id>`.\n",
            withheld.len()
        ));
    }
    for StaleItem {
        item,
        citation,
        stale: why,
    } in stale
    {
        out.print(&format!(
            "{}  {}  {}",
            out.paint(Style::Path, citation),
            out.paint(Style::Kind, item.kind.as_str()),
            out.paint(Style::Dim, &item.id),
        ));
        out.print(&format!("  {}", one_line(&item.text, 200)));
        out.print(&out.paint(Style::Warn, &format!("  stale: {why}")));
    }
    if stale.is_empty() {
        out.print("nothing is stale: every cited path and symbol is in the checkout");
        return Ok(Exit::Success);
    }
    out.print(&format!(
        "\n{} stale item(s), never injected at session start. For each: \
         `thehook review confirm <id>` (still true), `thehook review rewrite <id> \"<text>\"`, \
         or `thehook review forget <id>`.",
        stale.len()
    ));
    Ok(Exit::Success)
}
