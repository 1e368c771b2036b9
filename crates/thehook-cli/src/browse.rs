//! `thehook sessions` and `thehook read`: the session browser over the
//! agents' transcript stores.

use thehook_core::browse::{self, ListOptions, ReadOptions, Selection};
use thehook_core::{Error, Project};

use crate::commands::fail;
use crate::output::Output;
use crate::{exit, ReadArgs, SessionsArgs};

pub fn sessions(project: &Project, args: SessionsArgs, out: &mut Output) -> i32 {
    let Some(home) = crate::home_dir() else {
        return fail(out, &no_home());
    };
    let options = ListOptions {
        agent: args.agent,
        since: args.since,
        limit: args.limit,
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
    if listing.sessions.is_empty() {
        if !args.json {
            out.note(&format!(
                "no sessions of {} found in the Claude Code, Cursor or Codex transcript stores under {}",
                project.root().display(),
                home.display()
            ));
        }
        return exit::NOTHING_FOUND;
    }
    exit::SUCCESS
}

pub fn read(project: &Project, args: ReadArgs, out: &mut Output) -> i32 {
    match read_text(project, &args) {
        Ok(reading) => {
            out.print(&reading.text);
            if reading.shown == 0 {
                out.note(&format!(
                    "no line matches (the session has {} lines)",
                    reading.total
                ));
                return exit::NOTHING_FOUND;
            }
            exit::SUCCESS
        }
        Err(e) => fail(out, &e),
    }
}

fn read_text(project: &Project, args: &ReadArgs) -> Result<browse::Reading, Error> {
    let home = crate::home_dir().ok_or_else(no_home)?;
    let lines = args.lines.as_deref().map(Selection::parse).transpose()?;
    let grep = args
        .grep
        .as_deref()
        .map(|g| {
            regex::Regex::new(g).map_err(|e| Error::Usage {
                problem: format!("--grep {g:?} is not a regular expression: {e}"),
                fix: "escape special characters, or use a simpler pattern".into(),
            })
        })
        .transpose()?;
    let source = browse::find(project, &home, &args.id, true)?;
    let transcript = browse::open(&source)?;
    Ok(browse::read(
        &transcript,
        &ReadOptions {
            lines,
            full: args.full,
            grep,
        },
    ))
}

pub(crate) fn no_home() -> Error {
    Error::Usage {
        problem: "HOME is not set, so the agents' transcript stores cannot be found".into(),
        fix: "set HOME to your home folder".into(),
    }
}
