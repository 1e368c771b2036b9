//! `thehook read`: a past session, compact or the lines asked for in full.

use thehook_core::browse::{self, ReadOptions};
use thehook_core::{env, Project};

use crate::args::ReadArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

use super::sessions::STORES;

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
