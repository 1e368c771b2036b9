//! `thehook sessions` and `thehook read`: the session browser over the
//! agents' transcript stores.

use thehook_core::browse::{self, ListOptions, ReadOptions};
use thehook_core::{env, Project};

use crate::args::{ReadArgs, SessionsArgs};
use crate::output::Output;
use crate::{CommandResult, Exit};

const STORES: &str = "the agents' transcript stores";

pub(super) fn sessions(project: &Project, args: SessionsArgs, out: &mut Output) -> CommandResult {
    let home = env::require_home(STORES)?;
    let options = ListOptions {
        agent: args.agent,
        since: args.since,
        limit: args
            .limit
            .unwrap_or(thehook_core::request::DEFAULT_SESSION_LIMIT),
    };
    let listing = browse::list(project, &home, &options);
    for why in &listing.unreadable {
        out.note(&format!("skipped: {why}"));
    }
    if args.json {
        out.print(&serde_json::to_string_pretty(&listing).expect("json"));
    } else if !listing.sessions.is_empty() {
        out.print(&browse::render_listing(&listing));
    }
    if listing.sessions.is_empty() && !args.json {
        out.note(&format!(
            "no sessions of {} found in the Claude Code, Cursor or Codex transcript stores under {}",
            project.root().display(),
            home.display()
        ));
    }
    Ok(Exit::found(!listing.sessions.is_empty()))
}

pub(super) fn read(project: &Project, args: ReadArgs, out: &mut Output) -> CommandResult {
    let home = env::require_home(STORES)?;
    let options = ReadOptions::parse(args.lines.as_deref(), args.full, args.grep.as_deref())?;
    let source = browse::find(project, &home, &args.id, true)?;
    let reading = browse::read(&browse::open(&source)?, &options);
    out.print(&reading.text);
    if reading.shown == 0 {
        out.note(&format!(
            "no line matches (the session has {} lines)",
            reading.total
        ));
    }
    Ok(Exit::found(reading.shown > 0))
}
